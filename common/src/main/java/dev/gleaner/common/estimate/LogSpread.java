package dev.gleaner.common.estimate;

/**
 * The spread of a worker's speed from piece to piece for one workload: the logarithms of its
 * pieces' speeds, each weighing the seconds of computing it took (a piece cut short after a few
 * units says little of the worker's pace; an hour-long one much).
 */
final class LogSpread {
  /** Pieces; seconds in all; the seconds-weighted sums of the logarithms and of their squares. */
  private long n;
  double seconds;
  private double logs;
  private double logSquares;

  void observe(double unitsPerSecond, double secondsTaken) {
    double l = Math.log(unitsPerSecond);
    n++;
    seconds += secondsTaken;
    logs += secondsTaken * l;
    logSquares += secondsTaken * l * l;
  }

  /** The weighted variance of the logarithms about their weighted mean (0 before two pieces). */
  double variance() {
    return seconds > 0 ? Math.max(0, logSquares / seconds - (logs / seconds) * (logs / seconds)) : 0;
  }

  long pieces() {
    return n;
  }
}
