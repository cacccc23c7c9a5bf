package dev.gleaner.master.net;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * At most {@code lines} log lines per window; the lines left out are counted and said in one line
 * when the next window opens, so a flood of hostile requests (connections refused before a login, a
 * worker's metrics asked for under a rebound name) cannot fill the disk and is still visible.
 */
public final class RateLimitedLog {
  private final Logger log;
  private final int lines;
  private final long windowMillis;
  private final String what;
  private long windowStart;
  private int used;
  private final AtomicLong suppressed = new AtomicLong();

  /** {@code what}: the events logged, for the folded line ("connection(s) were refused before logging in"). */
  public RateLimitedLog(Logger log, int lines, long windowMillis, String what) {
    this.log = log;
    this.lines = lines;
    this.windowMillis = windowMillis;
    this.what = what;
  }

  /** Whether one more line may be written now. */
  public synchronized boolean allow() {
    long now = System.currentTimeMillis();
    if (now - windowStart >= windowMillis) {
      long left = suppressed.getAndSet(0);
      if (left > 0) {
        log.warn("{} more {} in the last {} s (not logged one by one)", left, what,
            Math.max(1, (now - windowStart) / 1000));
      }
      windowStart = now;
      used = 0;
    }
    if (used < lines) {
      used++;
      return true;
    }
    suppressed.incrementAndGet();
    return false;
  }
}
