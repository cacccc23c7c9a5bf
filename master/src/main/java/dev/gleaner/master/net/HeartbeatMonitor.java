package dev.gleaner.master.net;

import dev.gleaner.common.time.Ticker;
import dev.gleaner.master.loop.ControlLoop;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Declares down the workers that have been silent longer than the timeout. Time comes from the
 * injected {@link Ticker}; {@link #sweep()} is run periodically by the server, so a test moves a
 * fake ticker and waits for the sweep instead of sleeping through the timeout.
 */
final class HeartbeatMonitor {
  private static final Logger log = LoggerFactory.getLogger(HeartbeatMonitor.class);

  private final Set<WorkerSession> sessions = ConcurrentHashMap.newKeySet();
  private final ControlLoop loop;
  private final Ticker ticker;
  private final long timeoutNanos;

  HeartbeatMonitor(ControlLoop loop, Ticker ticker, Duration timeout) {
    this.loop = loop;
    this.ticker = ticker;
    this.timeoutNanos = timeout.toNanos();
  }

  void watch(WorkerSession s) {
    sessions.add(s);
  }

  void forget(WorkerSession s) {
    sessions.remove(s);
  }

  /** Ends every session silent for longer than the timeout; returns how many. */
  int sweep() {
    long now = ticker.nanos();
    int down = 0;
    for (WorkerSession s : sessions) {
      long silent = now - s.lastHeardNanos;
      if (silent > timeoutNanos) {
        String why = "no heartbeat for " + TimeUnit.NANOSECONDS.toMillis(silent) + " ms";
        log.warn("worker {}: {}", s.workerId, why);
        sessions.remove(s);
        loop.lost(s, why, true);
        s.channel.close();
        down++;
      }
    }
    return down;
  }
}
