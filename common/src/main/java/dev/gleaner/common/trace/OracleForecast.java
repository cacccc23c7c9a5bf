package dev.gleaner.common.trace;

import dev.gleaner.common.trace.AvailabilityTrace.Period;
import dev.gleaner.common.trace.DesktopTraceGenerator.Weibull;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The best forecast of a trace's time up that can be made part way through it: made by an oracle
 * that knows the law the trace was drawn from (Weibull up and down periods, as {@link
 * DesktopTraceGenerator} draws them) and each node's state and the age of its period at that
 * moment, and that expects the rest by drawing it many times. What it misses is the luck of the
 * rest of the trace alone, so its error is the floor of what any forecast made then can be
 * expected to reach on that trace; a scheduler's forecast, which must also estimate the law from a
 * few periods, does well to come near it.
 */
public final class OracleForecast {
  private OracleForecast() {}

  /**
   * The oracle's forecast.
   *
   * @param actual seconds up over the trace's nodes within the horizon
   * @param seen of those, the seconds up before the forecast's moment
   * @param mean the forecast of {@code actual}: seen plus the mean over the draws of the rest
   * @param low the draws' 5th percentile
   * @param high their 95th percentile (a band as sure as a forecast's, see {@code Forecast#RUNS})
   */
  public record Result(double actual, double seen, double mean, double low, double high) {
    /** The forecast's error, relative to the actual figure. */
    public double error() {
      return (mean - actual) / actual;
    }
  }

  /**
   * Forecasts the time up over {@code [0, horizon)} from {@code at}, with {@code draws} draws of the
   * rest (seeded).
   */
  public static Result at(AvailabilityTrace trace, double horizon, double at, Weibull up, Weibull down, int draws,
      long seed) {
    if (!(horizon > 0) || !(at >= 0) || at > horizon) {
      throw new IllegalArgumentException("the forecast's moment must be within [0, horizon], got " + at + " of "
          + horizon);
    }
    if (draws < 1 || draws > 10_000_000) {
      throw new IllegalArgumentException("the draws (--draws) must be between 1 and 10000000, got " + draws);
    }
    double actual = 0;
    double seen = 0;
    double[] rest = new double[draws];
    SplittableRandom random = new SplittableRandom(seed);
    for (String node : trace.nodes().keySet()) {
      actual += trace.upSeconds(node, horizon);
      seen += trace.upSeconds(node, at);
      // the period the node is in at `at`, and since when (up periods that touch count as one; a node down
      // since the trace's start is taken as down from then)
      double blockStart = 0;
      double lastEnd = Double.NEGATIVE_INFINITY;
      for (Period p : trace.up(node, horizon)) {
        if (p.start() > at) {
          break;
        }
        if (p.start() > lastEnd) {
          blockStart = p.start();
        }
        lastEnd = Math.max(lastEnd, p.end());
      }
      boolean isUp = lastEnd > at;
      double since = isUp ? blockStart : Math.max(0, lastEnd);
      for (int d = 0; d < draws; d++) {
        rest[d] += upAhead(random, isUp, at - since, horizon - at, up, down);
      }
    }
    Arrays.sort(rest);
    double sum = 0;
    for (double r : rest) {
      sum += r;
    }
    return new Result(actual, seen, seen + sum / draws, seen + quantile(rest, 0.05), seen + quantile(rest, 0.95));
  }

  /** One draw of the seconds up within the next {@code length} seconds for a node in its state since {@code age}. */
  static double upAhead(SplittableRandom random, boolean isUp, double age, double length, Weibull up, Weibull down) {
    double t = 0;
    double sum = 0;
    boolean state = isUp;
    double a = age;
    // bounded: each period is drawn afresh, and a period shorter than a millisecond counts as one
    for (int i = 0; i < 10_000_000 && t < length; i++) {
      double len = Math.max(0.001, (state ? up : down).residual(a, random.nextDouble()));
      double end = Math.min(length, t + len);
      if (state) {
        sum += end - t;
      }
      t = end;
      state = !state;
      a = 0;
    }
    return sum;
  }

  private static double quantile(double[] sorted, double q) {
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }
}
