package dev.gleaner.deploy.bench.links;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** What the links driver writes to its log as it goes, read by the bench while it runs. */
final class DriverLog {
  /** The line the driver writes once the master has the job: a link change is timed from it. */
  static final String SUBMITTED = "links driver: submitted ";

  private static final long LOOK_MILLIS = 10;

  private DriverLog() {}

  /**
   * Waits until {@code log} holds {@link #SUBMITTED}, looking every 10 ms for at most {@code limit};
   * false if the driver ended first or the limit passed.
   */
  static boolean awaitSubmitted(Path log, Process driver, Duration limit) throws IOException, InterruptedException {
    long looks = Math.max(1, limit.toMillis() / LOOK_MILLIS);
    for (long i = 0; i < looks; i++) {
      if (Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains(SUBMITTED)) {
        return true;
      }
      if (driver.waitFor(LOOK_MILLIS, TimeUnit.MILLISECONDS)) {
        return false;
      }
    }
    return false;
  }
}
