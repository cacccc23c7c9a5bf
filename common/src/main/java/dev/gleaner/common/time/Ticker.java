package dev.gleaner.common.time;

/** A source of monotonic nanoseconds; tests pass a {@link FakeTicker} and move it by hand. */
@FunctionalInterface
public interface Ticker {
  long nanos();

  Ticker SYSTEM = System::nanoTime;

  default long millis() {
    return nanos() / 1_000_000L;
  }
}
