package dev.gleaner.common.time;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker that moves only when told to. */
public final class FakeTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong();

  @Override
  public long nanos() {
    return nanos.get();
  }

  public FakeTicker advance(Duration d) {
    nanos.addAndGet(d.toNanos());
    return this;
  }
}
