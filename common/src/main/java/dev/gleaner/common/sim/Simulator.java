package dev.gleaner.common.sim;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Timeline;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Monte Carlo runs of a timeline: each trial draws every worker's interruption time from the risk
 * model and counts the units saved before their workers went down (and by the deadline, if any).
 */
public final class Simulator {
  private Simulator() {}

  /**
   * A Monte Carlo estimate.
   *
   * @param mean mean units done per trial
   * @param stdErr standard error of the mean
   * @param trials number of trials
   */
  public record Estimate(double mean, double stdErr, int trials) {}

  /**
   * Runs {@code trials} independent trials seeded by {@code seed} (the same seed gives the same
   * draws).
   *
   * @param deadline seconds after which nothing counts; {@link Double#POSITIVE_INFINITY} for none
   */
  public static Estimate run(Timeline timeline, Platform platform, RiskModel risk, double deadline, int trials, long seed) {
    return run(platform, risk, deadline, trials, seed, down -> timeline.workDone(down));
  }

  /** One trial's outcome from the workers' interruption times (already cut at the deadline). */
  @FunctionalInterface
  public interface Trial {
    double workDone(Map<String, Double> downAt);
  }

  /** Runs a trial function under sampled interruptions; see {@link #run(Timeline, Platform, RiskModel, double, int, long)}. */
  public static Estimate run(Platform platform, RiskModel risk, double deadline, int trials, long seed, Trial trial) {
    if (trials < 2) {
      throw new IllegalArgumentException("a Monte Carlo estimate needs at least 2 trials, got " + trials);
    }
    SplittableRandom random = new SplittableRandom(seed);
    double sum = 0;
    double sumSq = 0;
    Map<String, Double> down = new HashMap<>();
    for (int t = 0; t < trials; t++) {
      for (Worker w : platform.workers()) {
        down.put(w.id(), Math.min(deadline, risk.lifetime(w, random.nextDouble())));
      }
      double done = trial.workDone(down);
      sum += done;
      sumSq += done * done;
    }
    double mean = sum / trials;
    double variance = Math.max(0, (sumSq - trials * mean * mean) / (trials - 1));
    return new Estimate(mean, Math.sqrt(variance / trials), trials);
  }
}
