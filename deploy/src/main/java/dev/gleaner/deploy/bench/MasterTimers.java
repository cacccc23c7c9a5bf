package dev.gleaner.deploy.bench;

import dev.gleaner.protocol.StatusReply;

/**
 * A master's timers between two of its status replies. A timer counts from the master's start (its
 * status gives {@code NAME.count} and {@code NAME.mean_ms}), so what a job added is the later total
 * less the earlier.
 */
public final class MasterTimers {
  private MasterTimers() {}

  /** Events of timer {@code name} between {@code before} and {@code after}. */
  public static double count(StatusReply before, StatusReply after, String name) {
    return after.getMetricsOrDefault(name + ".count", 0) - before.getMetricsOrDefault(name + ".count", 0);
  }

  /** The mean of timer {@code name} over the events between {@code before} and {@code after}, ms; NaN if none. */
  public static double meanMs(StatusReply before, StatusReply after, String name) {
    double n0 = before.getMetricsOrDefault(name + ".count", 0);
    double n1 = after.getMetricsOrDefault(name + ".count", 0);
    if (!(n1 > n0)) {
      return Double.NaN;
    }
    return (n1 * after.getMetricsOrDefault(name + ".mean_ms", 0) - n0 * before.getMetricsOrDefault(name + ".mean_ms", 0))
        / (n1 - n0);
  }
}
