package dev.gleaner.deploy.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools' one way to start a master JVM: its port read from the file the master writes once it
 * listens, its log kept, a master that exits first reported at once with the end of its log, and
 * every master it started ended by its pid.
 */
class MasterProcessTest {
  private static final byte[] SECRET = "master-process-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;

  /** The port it returns is the master's, not an earlier master's left in the folder; SIGTERM stops it. */
  @Test
  void startsAMasterAndReturnsThePortItListensOn() throws Exception {
    Path secret = Files.write(dir.resolve("secret"), SECRET);
    Files.writeString(dir.resolve("master.port"), "1\n");
    try (MasterProcess m = MasterProcess.start(dir, List.of("-Xmx128m"), List.of("--data",
        dir.resolve("data").toString(), "--secret-file", secret.toString()), Duration.ofSeconds(60))) {
      assertTrue(m.alive());
      assertNotEquals(1, m.port());
      try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", m.port()), SECRET)) {
        assertEquals(0, c.status(null).getJobsCount(), "the master answers on that port");
      }
      assertEquals(dir.resolve("master.log"), m.log());
      assertTrue(m.stop(Duration.ofSeconds(30)), "SIGTERM stops the master: " + WorkerProcesses.tail(m.log(), 20));
      assertFalse(m.alive());
      assertTrue(Files.readString(m.log()).contains("gleaner master listening on port " + m.port()),
          "its log is kept, the line for people in it");
    }
  }

  /** A master that cannot start (no secret file) is reported as soon as it has exited, not at the time limit. */
  @Test
  void aMasterThatExitsAtOnceIsReportedAtOnceWithTheEndOfItsLog() {
    Path missing = dir.resolve("no-secret");
    IllegalStateException e = assertTimeoutPreemptively(Duration.ofMinutes(2), () -> assertThrows(
        IllegalStateException.class, () -> MasterProcess.start(dir, List.of("-Xmx128m"), List.of("--data",
            dir.resolve("data").toString(), "--secret-file", missing.toString()), Duration.ofMinutes(10))));
    assertTrue(e.getMessage().matches("(?s)the master \\(pid \\d+\\) exited with status 1 before listening; last lines"
        + " of its log " + Pattern.quote(dir.resolve("master.log").toString()) + ":\n.*"), e.getMessage());
    assertTrue(e.getMessage().contains("gleaner: secret file " + missing + " does not exist"), e.getMessage());
    assertNoChildLeft();
  }

  /** A master not listening within the limit is ended by its pid, and the report says so. */
  @Test
  void aMasterThatDoesNotListenInTimeIsEndedAndReported() throws Exception {
    Path secret = Files.write(dir.resolve("secret"), SECRET);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> MasterProcess.start(dir,
        List.of("-Xmx128m"), List.of("--data", dir.resolve("data").toString(), "--secret-file", secret.toString()),
        Duration.ZERO));
    assertTrue(e.getMessage().contains(") did not listen within 0 s (no " + dir.resolve("master.port") + ")"),
        e.getMessage());
    assertNoChildLeft();
  }

  private static void assertNoChildLeft() {
    List<ProcessHandle> left = ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList();
    assertTrue(left.isEmpty(), "processes left running: " + left);
  }
}
