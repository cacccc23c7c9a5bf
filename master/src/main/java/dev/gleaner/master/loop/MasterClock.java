package dev.gleaner.master.loop;

import dev.gleaner.common.time.Ticker;

/**
 * The master's two clocks: controller time (seconds on the injected ticker since the loop
 * started, what every event carries) and the wall clock of the same ticker (epoch milliseconds,
 * for timestamps, deadlines and what people read). Safe from any thread.
 */
public final class MasterClock {
  private final Ticker ticker;
  private final long originNanos;

  MasterClock(Ticker ticker) {
    this.ticker = ticker;
    this.originNanos = ticker.nanos();
  }

  /** Controller time: seconds since the loop started. */
  public double now() {
    return (ticker.nanos() - originNanos) / 1e9;
  }

  /** The wall clock, epoch milliseconds. */
  public long epochMillis() {
    return ticker.epochMillis();
  }

  /** The ticker's nanoseconds, for durations. */
  public long nanos() {
    return ticker.nanos();
  }

  /** Wall-clock milliseconds as controller time. */
  public double fromMillis(long epochMillis) {
    return now() + (epochMillis - ticker.epochMillis()) / 1000.0;
  }

  /** A controller time as wall-clock milliseconds. */
  public long toMillis(double t) {
    return ticker.epochMillis() + Math.round((t - now()) * 1000);
  }

  /** A controller time as wall-clock milliseconds; 0 for infinity (no such time). */
  public long toMillisOrZero(double t) {
    return Double.isFinite(t) ? toMillis(t) : 0;
  }
}
