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
  /** Returns and their seconds the workers' priors give (in the mean, not in the shape). */
  private long priorReturns;
  private double priorDowntime;
  /** Up periods seen to end in an interruption. */
  private long ups;
  /** The logarithms of the up periods and of the outages seen to end: their sums and sums of squares. */
  private double upLogs;
  private double upLogSquares;
  private double downLogs;
  private double downLogSquares;

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
    double l = log(seconds);
    downLogs += l;
    downLogSquares += l * l;
  }

  /** The workers' priors changed by {@code returns} outages lasting {@code seconds} in all. */
  void pastOutages(long returns, double seconds) {
    priorReturns += returns;
    priorDowntime += seconds;
  }

  /** An up period of {@code seconds} ended in an interruption. */
  void upEnded(double seconds) {
    ups++;
    double l = log(seconds);
    upLogs += l;
    upLogSquares += l * l;
  }

  /** A period's logarithm: of a millisecond for one seen to last less (a period of 0 has none). */
  private static double log(double seconds) {
    return Math.log(Math.max(1e-3, seconds));
  }

  /** The Weibull shape of the up periods that ended in an interruption (see {@link Shrinkage#shape}). */
  double upShape() {
    return Shrinkage.shape(ups, upLogs, upLogSquares, Estimator.SHAPE_PRIOR);
  }

  /** The Weibull shape of the outages that ended in a return. */
  double downShape() {
    return Shrinkage.shape(returns, downLogs, downLogSquares, Estimator.SHAPE_PRIOR);
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

  /**
   * The mean outage: those seen to end and a prior's, and those of {@code workers} under way at {@code now}
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
    if (returns + priorReturns == 0 && open == 0) {
      return Double.POSITIVE_INFINITY;
    }
    return (downtime + priorDowntime + open) / Math.max(1, returns + priorReturns);
  }
}
