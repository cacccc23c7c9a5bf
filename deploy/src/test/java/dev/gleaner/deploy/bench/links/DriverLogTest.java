package dev.gleaner.deploy.bench.links;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A link change is timed from the driver's word that the job was submitted. */
class DriverLogTest {
  @TempDir
  Path dir;

  @Test
  void theWordInTheLogIsFound() throws Exception {
    Path log = dir.resolve("driver.log");
    Files.writeString(log, "starting\n" + DriverLog.SUBMITTED + "job-1\n");
    Process p = new ProcessBuilder("sleep", "30").start();
    try {
      assertTrue(DriverLog.awaitSubmitted(log, p, Duration.ofSeconds(10)));
    } finally {
      p.destroyForcibly().waitFor();
    }
  }

  @Test
  void aDriverThatEndsWithoutItIsNotWaitedFor() throws Exception {
    Path log = dir.resolve("driver.log");
    Files.writeString(log, "links driver: cannot connect\n");
    Process p = new ProcessBuilder("true").start();
    try {
      assertFalse(DriverLog.awaitSubmitted(log, p, Duration.ofMinutes(5)));
    } finally {
      p.destroyForcibly().waitFor();
    }
  }
}
