package dev.gleaner.common.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Synthetic availability traces: each node alternates up and down periods whose lengths are drawn
 * from Weibull distributions, seeded, until the horizon.
 *
 * <p>The default fits are those of the Notre Dame desktop trace in the Failure Trace Archive: up
 * time Weibull(shape 0.45, scale 4.16 h), down time Weibull(shape 0.51, scale 0.74 h), from Kondo,
 * Javadi, Iosup and Epema, "The Failure Trace Archive: Enabling Comparative Analysis of Failures in
 * Diverse Distributed Systems" (CCGrid 2010), the table of fitted availability and unavailability
 * distributions per trace. A shape below 1 means many short periods and a few very long ones: the
 * mean up time is scale x Gamma(1 + 1/shape), 10.3 h, while half the up periods last less than
 * 1.8 h.
 *
 * <p>How: node k draws from its own stream, {@code new SplittableRandom(seed).split()} taken k+1
 * times, so adding nodes does not change the first ones. A node starts up with the long-run
 * probability mean up / (mean up + mean down) and then alternates, each period drawn afresh (the
 * first one is not a residual life: a simplification the archive's traces, which start when
 * monitoring started, share). The last period is cut at the horizon. Times are rounded to the
 * millisecond so that the written trace is exactly the one drawn.
 */
public final class DesktopTraceGenerator {
  /** A Weibull distribution, scale in seconds. */
  public record Weibull(double shape, double scaleSeconds) {
    public Weibull {
      if (!(shape > 0) || !(scaleSeconds > 0) || !Double.isFinite(shape) || !Double.isFinite(scaleSeconds)) {
        throw new IllegalArgumentException("a Weibull needs a positive shape and scale, got " + shape + " and "
            + scaleSeconds);
      }
    }

    /** The draw for a uniform u in [0, 1). */
    public double quantile(double u) {
      return scaleSeconds * Math.pow(-Math.log1p(-u), 1 / shape);
    }

    /** The Weibull of this shape and mean. */
    public static Weibull ofMean(double shape, double meanSeconds) {
      return new Weibull(shape, meanSeconds / Math.exp(logGamma(1 + 1 / shape)));
    }

    public double mean() {
      return scaleSeconds * Math.exp(logGamma(1 + 1 / shape));
    }

    /** The squared coefficient of variation of a Weibull of shape {@code k}: 1 at k = 1, above for k below 1. */
    public static double variability(double k) {
      return Math.exp(logGamma(1 + 2 / k) - 2 * logGamma(1 + 1 / k)) - 1;
    }

    /**
     * What is left of a period that has lasted {@code ageSeconds} so far, for a uniform u in [0, 1):
     * the inverse of the survival given the age, P(T > a + t | T > a) = exp((a/s)^k - ((a+t)/s)^k).
     */
    public double residual(double ageSeconds, double u) {
      double a = Math.max(0, ageSeconds);
      return scaleSeconds * Math.pow(Math.pow(a / scaleSeconds, shape) - Math.log1p(-u), 1 / shape) - a;
    }
  }

  /** Notre Dame desktops, up time (FTA, Kondo et al. 2010). */
  public static final Weibull NOTRE_DAME_UP = new Weibull(0.45, 4.16 * 3600);
  /** Notre Dame desktops, down time (FTA, Kondo et al. 2010). */
  public static final Weibull NOTRE_DAME_DOWN = new Weibull(0.51, 0.74 * 3600);

  private DesktopTraceGenerator() {}

  /**
   * The events of {@code nodes} nodes named 1..nodes over {@code [0, horizon)} seconds, both
   * types, in node order then time order.
   */
  public static List<TraceEvent> generate(int nodes, double horizonSeconds, long seed, Weibull up, Weibull down) {
    if (nodes < 1 || nodes > 100_000) {
      throw new IllegalArgumentException("the number of nodes must be between 1 and 100000, got " + nodes);
    }
    if (!(horizonSeconds >= 1) || !Double.isFinite(horizonSeconds)) {
      throw new IllegalArgumentException("the horizon must be at least 1 second, got " + horizonSeconds);
    }
    SplittableRandom root = new SplittableRandom(seed);
    double pUp = up.mean() / (up.mean() + down.mean());
    List<TraceEvent> out = new ArrayList<>();
    for (int k = 0; k < nodes; k++) {
      SplittableRandom r = root.split();
      String id = Integer.toString(k + 1);
      boolean available = r.nextDouble() < pUp;
      double t = 0;
      while (t < horizonSeconds) {
        double len = (available ? up : down).quantile(r.nextDouble());
        double end = Math.min(horizonSeconds, Math.round((t + len) * 1000) / 1000.0);
        if (end > t) {
          out.add(new TraceEvent(id, available, t, end, 0));
          t = end;
        }
        available = !available;
      }
    }
    return out;
  }

  /** Lanczos' approximation of ln Gamma(x), x > 0, to about 15 digits. */
  static double logGamma(double x) {
    double[] g = {0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
        -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
        1.5056327351493116e-7};
    if (x < 0.5) {
      return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
    }
    x -= 1;
    double a = g[0];
    double t = x + 7.5;
    for (int i = 1; i < 9; i++) {
      a += g[i] / (x + i);
    }
    return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
  }
}
