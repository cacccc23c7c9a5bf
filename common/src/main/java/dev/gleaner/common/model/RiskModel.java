package dev.gleaner.common.model;

import java.util.Arrays;
import java.util.Locale;

/**
 * When a worker is interrupted: the probability that it has been interrupted by time {@code t}
 * (seconds since the job started), and a way to draw an interruption time. The papers' closed forms
 * hold for {@link #LINEAR}; the general solvers' evaluation and the simulator take any model.
 */
public interface RiskModel {
  /** Linear risk (papers 000 and 001): P(down by t) = min(1, kappa t), kappa = {@link Worker#risk()}. */
  RiskModel LINEAR = new RiskModel() {
    @Override
    public double interrupted(Worker w, double t) {
      return t <= 0 ? 0 : Math.min(1, w.risk() * t);
    }

    @Override
    public double lifetime(Worker w, double u) {
      return w.risk() == 0 ? Double.POSITIVE_INFINITY : u / w.risk();
    }

    @Override
    public String name() {
      return "linear";
    }

    /** Lifetimes uniform on [0, 1/kappa] have mean 1/(2 kappa). */
    @Override
    public double riskForRate(double rate) {
      return rate / 2;
    }
  };

  /** Memoryless risk: P(down by t) = 1 - exp(-kappa t), so a mean lifetime of 1/kappa. */
  RiskModel EXPONENTIAL = new RiskModel() {
    @Override
    public double interrupted(Worker w, double t) {
      return t <= 0 ? 0 : -Math.expm1(-w.risk() * t);
    }

    @Override
    public double lifetime(Worker w, double u) {
      return w.risk() == 0 || u >= 1 ? Double.POSITIVE_INFINITY : -Math.log1p(-u) / w.risk();
    }

    @Override
    public String name() {
      return "exponential";
    }
  };

  /** P(w is down by time t); 0 for t <= 0, non-decreasing, at most 1. */
  double interrupted(Worker w, double t);

  /**
   * The interruption time of w for a uniform draw {@code u} in [0, 1): the inverse of
   * {@link #interrupted}. Infinite when the worker is never interrupted.
   */
  double lifetime(Worker w, double u);

  String name();

  /**
   * The risk parameter of a worker observed to be interrupted {@code rate} times per second up: the
   * one whose mean lifetime is {@code 1/rate} (so {@code rate} itself for the exponential model).
   */
  default double riskForRate(double rate) {
    return rate;
  }

  /**
   * The least risk parameter of a worker that is surely gone {@code secondsLeft} from now: under the
   * linear model, the one that reaches probability 1 then; the others use the same figure (their
   * lifetimes have no upper end).
   */
  default double riskForEnd(double secondsLeft) {
    return 1 / secondsLeft;
  }

  /**
   * The risk seen in a history: the same distribution of lifetimes for every worker, the
   * observed ones with equal weight (a worker's {@code risk} is not used).
   *
   * @param lifetimes observed times from start to interruption, seconds, positive
   */
  static RiskModel empirical(double[] lifetimes) {
    if (lifetimes.length == 0) {
      throw new IllegalArgumentException("an empirical risk model needs at least one observed lifetime");
    }
    double[] sorted = lifetimes.clone();
    Arrays.sort(sorted);
    if (!(sorted[0] > 0) || Double.isNaN(sorted[sorted.length - 1])) {
      throw new IllegalArgumentException("observed lifetimes must be positive numbers");
    }
    return new RiskModel() {
      @Override
      public double interrupted(Worker w, double t) {
        // the number of observed lifetimes <= t, over all of them
        int lo = 0;
        int hi = sorted.length;
        while (lo < hi) {
          int mid = (lo + hi) >>> 1;
          if (sorted[mid] <= t) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        return (double) lo / sorted.length;
      }

      @Override
      public double lifetime(Worker w, double u) {
        return sorted[Math.min(sorted.length - 1, (int) (u * sorted.length))];
      }

      @Override
      public String name() {
        return String.format(Locale.ROOT, "empirical (%d lifetimes)", sorted.length);
      }
    };
  }

  /**
   * By name: {@code linear} or {@code exponential}.
   *
   * @throws IllegalArgumentException naming the known models
   */
  static RiskModel byName(String name) {
    return switch (name.trim().toLowerCase(Locale.ROOT)) {
      case "linear" -> LINEAR;
      case "exponential" -> EXPONENTIAL;
      default -> throw new IllegalArgumentException("unknown risk model '" + name + "'; known: linear, exponential"
          + " (an empirical one comes from --lifetimes FILE)");
    };
  }
}
