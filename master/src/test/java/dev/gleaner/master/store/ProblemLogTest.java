package dev.gleaner.master.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** A flood of store failures on a hand-moved clock: one line per kind per window, the rest counted in the next. */
class ProblemLogTest {
  private final AtomicLong clock = new AtomicLong(5_000_000_000L);
  private final Logger logger = (Logger) LoggerFactory.getLogger("dev.gleaner.test.problems");
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

  @BeforeEach
  void listen() {
    lines.start();
    logger.addAppender(lines);
    logger.setLevel(Level.INFO);
  }

  @AfterEach
  void stopListening() {
    logger.detachAppender(lines);
  }

  private void seconds(double s) {
    clock.addAndGet((long) (s * 1e9));
  }

  private List<String> messages() {
    return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  void aFloodOfOneKindIsOneLinePerWindowWithTheCountOfTheRest() {
    ProblemLog log = new ProblemLog(logger, clock::get);
    IOException full = new IOException("[SQLITE_FULL] database or disk is full");
    // 200 failed writes a second for 25 s, as a full disk on a busy master (190 a second were seen)
    for (int i = 0; i < 25 * 200; i++) {
      log.error("piece", "job job-1: cannot save piece " + i + ": " + full.getMessage(), full);
      clock.addAndGet(5_000_000);
    }
    assertEquals(List.of("job job-1: cannot save piece 0: [SQLITE_FULL] database or disk is full",
        "job job-1: cannot save piece 2000: [SQLITE_FULL] database or disk is full (and 1999 more like it since the"
            + " last such line, 10 s ago)",
        "job job-1: cannot save piece 4000: [SQLITE_FULL] database or disk is full (and 1999 more like it since the"
            + " last such line, 10 s ago)"), messages());
    assertNotNull(lines.list.get(0).getThrowableProxy(), "each line has the stack trace: one per window");
    assertNotNull(lines.list.get(1).getThrowableProxy());
    assertEquals(Level.ERROR, lines.list.get(2).getLevel());
    // the disk is freed: no failure comes after the last line, and the count of the rest is said all the same
    log.flush();
    assertEquals(3, lines.list.size(), "not before its window is over");
    seconds(ProblemLog.WINDOW_SECONDS);
    log.flush();
    assertEquals("999 more like it in the 15 s after the line before; the last: job job-1: cannot save piece 4999:"
        + " [SQLITE_FULL] database or disk is full", messages().get(3));
    log.flush();
    assertEquals(4, lines.list.size(), "said once");
  }

  @Test
  void eachKindHasItsOwnWindowAndAQuietOneLogsAtOnce() {
    ProblemLog log = new ProblemLog(logger, clock::get);
    log.error("piece", "piece failed", null);
    log.error("assign", "assign failed", null);
    log.error("piece", "piece failed again", null);
    seconds(ProblemLog.WINDOW_SECONDS);
    log.error("assign", "assign failed later", null);
    assertEquals(List.of("piece failed", "assign failed", "assign failed later"), messages());
    seconds(TimeUnit.MINUTES.toSeconds(5));
    log.error("piece", "piece failed much later", null);
    assertEquals("piece failed much later (and 1 more like it since the last such line, 310 s ago)",
        messages().get(3));
  }
}
