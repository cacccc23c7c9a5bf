package dev.gleaner.common.estimate;

/**
 * The arithmetic that shrinks one worker's figure toward the fleet's, or the fleet's toward a law's:
 * a worker seen little is estimated as the fleet, and its own observations take over as they grow.
 *
 * <p>Each is the estimate of a Poisson rate (or an exponential mean) under a prior worth one
 * observation of the fleet's value: {@code (k + 1) / (T + 1/r0)} for a rate from k events over T
 * seconds, {@code (D + d0) / (n + 1)} for a mean from n periods lasting D seconds. A Weibull shape is
 * shrunk toward the exponential law's 1.
 */
final class Shrinkage {
  private Shrinkage() {}

  /**
   * Events per second from {@code events} over {@code exposure} seconds, shrunk toward
   * {@code fleetRate} by one event's weight; 0 while the fleet's rate is 0 (nothing seen anywhere).
   */
  static double rate(long events, double exposure, double fleetRate) {
    return fleetRate == 0 ? 0 : (events + 1) / (exposure + 1 / fleetRate);
  }

  /** The mean of {@code periods} periods lasting {@code seconds} in all, shrunk toward {@code fleetMean} by one period. */
  static double mean(double seconds, long periods, double fleetMean) {
    return (seconds + fleetMean) / (periods + 1);
  }

  /** The variance of the logarithm of an exponential law's draws: pi^2 / 6 (a Weibull of shape k: that / k^2). */
  static final double EXPONENTIAL_LOG_VARIANCE = Math.PI * Math.PI / 6;

  /**
   * The Weibull shape of {@code n} periods whose logarithms sum to {@code logSum} and their squares
   * to {@code logSquares}, from the variance of the logarithms (pi^2 / (6 k^2) for a shape k), which
   * a few periods measure well even of a heavy-tailed law, whose squares a few long periods rule;
   * shrunk toward the exponential's shape 1 by {@code prior} periods' weight; 1 below two periods.
   */
  static double shape(long n, double logSum, double logSquares, double prior) {
    if (n < 2) {
      return 1;
    }
    double squares = Math.max(0, logSquares - logSum * logSum / n);
    double variance = (squares + prior * EXPONENTIAL_LOG_VARIANCE) / (n - 1 + prior);
    return Math.max(MIN_SHAPE, Math.min(MAX_SHAPE, Math.sqrt(EXPONENTIAL_LOG_VARIANCE / variance)));
  }

  /** The shapes a fleet's periods are taken to have at most, and at least (as regular as a clock nearly). */
  static final double MIN_SHAPE = 0.2;
  static final double MAX_SHAPE = 10;
}
