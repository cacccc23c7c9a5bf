package dev.gleaner.master.control;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Error lines of one kind (a full disk failing every write) at most once per window: the first of a
 * kind is logged with its stack trace, the others in the window are counted and said, with the
 * last of them, in the first line of a later window. A store that fails every write of a busy
 * master would otherwise write hundreds of stack traces a second; nothing is hidden, only folded.
 */
final class ProblemLog {
  /** The window: at most one line of a kind per this many seconds. */
  static final long WINDOW_SECONDS = 10;

  private final Logger log;
  private final LongSupplier nanos;
  private final long windowNanos;
  private final Map<String, Kind> kinds = new HashMap<>();

  private static final class Kind {
    long loggedAt;
    boolean logged;
    long folded;
    boolean traced;
  }

  ProblemLog(Logger log, LongSupplier nanos) {
    this.log = log;
    this.nanos = nanos;
    this.windowNanos = TimeUnit.SECONDS.toNanos(WINDOW_SECONDS);
  }

  /**
   * An error of {@code kind}: logged now with {@code message} if no line of that kind was in the
   * window, else counted. The cause's stack trace goes with the first line of a kind only; later
   * lines name it.
   */
  synchronized void error(String kind, String message, Throwable cause) {
    Kind k = kinds.computeIfAbsent(kind, x -> new Kind());
    long now = nanos.getAsLong();
    if (k.logged && now - k.loggedAt < windowNanos) {
      k.folded++;
      return;
    }
    String more = k.folded == 0 ? "" : " (and " + k.folded + " more like it since the last such line, "
        + TimeUnit.NANOSECONDS.toSeconds(now - k.loggedAt) + " s ago)";
    if (cause != null && !k.traced) {
      log.error(message + more, cause);
      k.traced = true;
    } else {
      log.error(message + more);
    }
    k.logged = true;
    k.loggedAt = now;
    k.folded = 0;
  }
}
