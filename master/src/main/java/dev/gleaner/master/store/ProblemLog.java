package dev.gleaner.master.store;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Error lines of one kind (a full disk failing every write) at most once per window: the first of a
 * window is logged with its stack trace, the others in the window are counted, and the count, with
 * the last of them, is said by the next line of that kind or by {@link #flush} once the window is
 * over, whichever comes first. A store that fails every write of a busy master would otherwise write
 * hundreds of stack traces a second; lines are folded, never dropped without a count.
 */
public final class ProblemLog {
  /** The window: at most one line of a kind per this many seconds (and one folded count). */
  public static final long WINDOW_SECONDS = 10;

  private final Logger log;
  private final LongSupplier nanos;
  private final long windowNanos;
  private final Map<String, Kind> kinds = new LinkedHashMap<>();

  private static final class Kind {
    long loggedAt;
    boolean logged;
    long folded;
    String lastFolded;
  }

  public ProblemLog(Logger log, LongSupplier nanos) {
    this.log = log;
    this.nanos = nanos;
    this.windowNanos = TimeUnit.SECONDS.toNanos(WINDOW_SECONDS);
  }

  /**
   * An error of {@code kind}: logged now, with the cause's stack trace, if no line of that kind was
   * in the window; else counted, to be said later.
   */
  public synchronized void error(String kind, String message, Throwable cause) {
    Kind k = kinds.computeIfAbsent(kind, x -> new Kind());
    long now = nanos.getAsLong();
    if (k.logged && now - k.loggedAt < windowNanos) {
      k.folded++;
      k.lastFolded = message;
      return;
    }
    String more = k.folded == 0 ? "" : " (and " + k.folded + " more like it since the last such line, "
        + TimeUnit.NANOSECONDS.toSeconds(now - k.loggedAt) + " s ago)";
    if (cause != null) {
      log.error(message + more, cause);
    } else {
      log.error(message + more);
    }
    k.logged = true;
    k.loggedAt = now;
    k.folded = 0;
    k.lastFolded = null;
  }

  /** Says the count of each kind whose window is over with failures folded in it (called often: each pass of the loop). */
  public synchronized void flush() {
    long now = nanos.getAsLong();
    for (Kind k : kinds.values()) {
      if (k.folded > 0 && now - k.loggedAt >= windowNanos) {
        log.error("{} more like it in the {} s after the line before; the last: {}", k.folded,
            TimeUnit.NANOSECONDS.toSeconds(now - k.loggedAt), k.lastFolded);
        k.loggedAt = now;
        k.folded = 0;
        k.lastFolded = null;
      }
    }
  }
}
