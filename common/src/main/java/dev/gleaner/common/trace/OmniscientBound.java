package dev.gleaner.common.trace;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;

/**
 * The most work any schedule could save on a trace, knowing every up period in advance: paper
 * 000's H6-omniscient (Section 6; {@link dev.gleaner.common.sim.Heuristics#omniscient}) taken from
 * one interruption per worker to a trace of many up and down periods.
 *
 * <p>The model is the closed-loop simulator's ({@link dev.gleaner.common.sim.ClosedLoop}): a
 * worker computes at its speed s (units/s); a piece of x units counts once it is computed and
 * saved, which costs x/s + eps seconds; a piece's input (x units at the worker's bandwidth bw) must
 * have arrived before it is computed; work not saved when the worker goes down is lost; a worker
 * down receives nothing. Only units are counted, at most W, each at most once.
 *
 * <p>Why it is the most: units saved in one up period of length l (cut to the horizon) come in
 * pieces x_1..x_n, each finished inside it, so x_1 + .. + x_n <= s (l - n eps) <= s (l - eps),
 * and the last unit must have crossed the link and then been computed and saved inside it, so
 * x_1 + .. + x_n <= bw (l - eps). One piece per period, floor(min(s, bw) (l - eps)) units (0 when
 * l <= eps), reaches the first bound and, with no input, is a schedule. Work of different periods
 * and workers adds up, distinct units being interchangeable, up to W. With finite bandwidth the
 * sum treats every worker as having the port to itself, so it is an upper bound and no more when
 * the shared port is the bottleneck.
 *
 * <p>With a fixed chunk size cs, as in the paper's experiments (no communication), a period of
 * length l completes floor(l / (cs/s + eps)) chunks; with one period [0, down) per worker this is
 * exactly the paper's H6.
 */
public final class OmniscientBound {
  private OmniscientBound() {}

  /**
   * The bound with pieces of any size: one piece per up period.
   *
   * @param platform every worker, each a node of the trace (its speed and bandwidth)
   * @param work W, units
   * @param eps seconds charged for each piece saved
   * @param horizon seconds from the trace's origin after which nothing counts (the deadline)
   */
  public static long units(AvailabilityTrace trace, Platform platform, long work, double eps, double horizon) {
    check(work, eps, horizon);
    long done = 0;
    for (Worker w : platform.workers()) {
      double rate = Math.min(w.speed(), w.bandwidth());
      for (AvailabilityTrace.Period p : trace.up(w.id(), horizon)) {
        done += period(p.length(), rate, eps);
        if (done >= work) {
          return work;
        }
      }
    }
    return done;
  }

  /** Units of one period of length l at rate units/s: floor(rate (l - eps)), 0 if l <= eps. */
  static long period(double length, double rate, double eps) {
    return length > eps ? (long) Math.floor(rate * (length - eps)) : 0;
  }

  /**
   * The bound in chunks of {@code chunk} units, bandwidth ignored (the paper's H6: no
   * communication): floor(l / (chunk/s + eps)) chunks per up period.
   */
  public static long units(AvailabilityTrace trace, Platform platform, long work, double eps, double horizon,
      long chunk) {
    check(work, eps, horizon);
    if (chunk < 1) {
      throw new IllegalArgumentException("the chunk size must be at least 1 unit, got " + chunk);
    }
    long done = 0;
    for (Worker w : platform.workers()) {
      double per = chunk / w.speed() + eps;
      for (AvailabilityTrace.Period p : trace.up(w.id(), horizon)) {
        done += (long) Math.floor(Math.min(p.length() / per, (double) work / chunk + 1)) * chunk;
        if (done >= work) {
          return work;
        }
      }
    }
    return done;
  }

  private static void check(long work, double eps, double horizon) {
    if (work < 1) {
      throw new IllegalArgumentException("the work must be at least 1 unit, got " + work);
    }
    if (!(eps >= 0) || !Double.isFinite(eps)) {
      throw new IllegalArgumentException("eps must be a finite number of seconds >= 0, got " + eps);
    }
    if (!(horizon > 0)) {
      throw new IllegalArgumentException("the horizon must be positive seconds, got " + horizon);
    }
  }
}
