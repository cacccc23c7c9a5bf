package dev.gleaner.common.time;

/** A source of monotonic nanoseconds; tests pass a {@link FakeTicker} and move it by hand. */
@FunctionalInterface
public interface Ticker {
  long nanos();

  Ticker SYSTEM = System::nanoTime;

  default long millis() {
    return nanos() / 1_000_000L;
  }

  /**
   * Wall-clock time, epoch milliseconds: for what is stored or shown (timestamps, deadlines), never
   * for measuring a duration (which is what {@link #nanos} is for, a clock that does not jump).
   */
  default long epochMillis() {
    return System.currentTimeMillis();
  }
}
