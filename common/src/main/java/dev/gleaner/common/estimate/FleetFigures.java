package dev.gleaner.common.estimate;

import java.util.Collection;

/**
 * The fleet's totals, every worker's together: interruptions and crashes over time up (the prior
 * of a newcomer's risk), and the up periods and outages seen to end (the laws a forecast draws from).
 */
final class FleetFigures {
  private long interruptions;
  /** Interruptions seen to be crashes. */
  private long crashes;
  private double exposure;
  /** Returns seen after an interruption, and the seconds those outages lasted. */
  private long returns;
  private double downtime;
  private double downtimeSquares;
  /** Up periods seen to end in an interruption: their count, seconds and squared seconds. */
  private long ups;
  private double uptime;
  private double uptimeSquares;

  /** A worker's past as the store knows it changed by {@code interruptions} and {@code exposureSeconds}. */
  void history(long interruptions, double exposureSeconds) {
    this.interruptions += interruptions;
    this.exposure += exposureSeconds;
  }

  /** A worker was up for {@code seconds} more. */
  void up(double seconds) {
    exposure += seconds;
  }

  /** A worker was interrupted; {@code crash}: it lost what it had not saved. */
  void interrupted(boolean crash) {
    interruptions++;
    if (crash) {
      crashes++;
    }
  }

  /** Returns seen after an interruption. */
  long returns() {
    return returns;
  }

  /** An outage of {@code seconds} ended in a return. */
  void returned(double seconds) {
    returns++;
    downtime += seconds;
    downtimeSquares += seconds * seconds;
  }

  /** An up period of {@code seconds} ended in an interruption. */
  void upEnded(double seconds) {
    ups++;
    uptime += seconds;
    uptimeSquares += seconds * seconds;
  }

  /**
   * Interruptions per second up, the time up counted with {@code extraExposure} more. A fleet seen
   * up for less than a second counts as seen for one: a worker interrupted the instant it joined
   * made this infinite, and every worker's risk with it, which no plan can take.
   */
  double rate(double extraExposure) {
    double t = exposure + extraExposure;
    if (interruptions == 0) {
      return 0;
    }
    return interruptions / Math.max(1, t);
  }

  /** Crashes per second up, the time up counted with {@code extraExposure} more; 0 while none was seen. */
  double crashRate(double extraExposure) {
    return crashes == 0 ? 0 : crashes / Math.max(1, exposure + extraExposure);
  }

  /** The squared coefficient of variation of the up periods that ended in an interruption. */
  double upVariability() {
    return Shrinkage.variability(ups, uptime, uptimeSquares, Estimator.VARIABILITY_PRIOR);
  }

  /** The squared coefficient of variation of the outages that ended in a return. */
  double downVariability() {
    return Shrinkage.variability(returns, downtime, downtimeSquares, Estimator.VARIABILITY_PRIOR);
  }

  /**
   * The mean outage: those seen to end, and those of {@code workers} under way at {@code now}
   * counted for the time they have lasted (unless longer than {@link Estimator#DEPARTED_AFTER});
   * infinite while none has been seen.
   */
  double downtime(Collection<WorkerFigures> workers, double now) {
    double open = 0;
    for (WorkerFigures f : workers) {
      double d = now - f.downSince;
      if (d <= Estimator.DEPARTED_AFTER) {
        open += Math.max(0, d);
      }
    }
    if (returns == 0 && open == 0) {
      return Double.POSITIVE_INFINITY;
    }
    return (downtime + open) / Math.max(1, returns);
  }
}
