package dev.gleaner.common.estimate;

/**
 * The arithmetic that shrinks one worker's figure toward the fleet's, or the fleet's toward a law's:
 * a worker seen little is estimated as the fleet, and its own observations take over as they grow.
 *
 * <p>Each is the estimate of a Poisson rate (or an exponential mean) under a prior worth one
 * observation of the fleet's value: {@code (k + 1) / (T + 1/r0)} for a rate from k events over T
 * seconds, {@code (D + d0) / (n + 1)} for a mean from n periods lasting D seconds. A variability
 * (the squared coefficient of variation) is shrunk toward the exponential law's 1.
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

  /**
   * The squared coefficient of variation of {@code n} periods whose seconds sum to {@code sum} and
   * their squares to {@code squares}, shrunk toward 1 by {@code prior} periods' weight; 1 below two
   * periods.
   */
  static double variability(long n, double sum, double squares, double prior) {
    if (n < 2 || !(sum > 0)) {
      return 1;
    }
    double mean = sum / n;
    double seen = Math.max(0, squares / n / (mean * mean) - 1);
    return (n * seen + prior) / (n + prior);
  }
}
