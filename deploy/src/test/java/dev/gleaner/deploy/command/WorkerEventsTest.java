package dev.gleaner.deploy.command;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.CommandLineTest;
import dev.gleaner.deploy.launch.WorkerEventsFile;
import dev.gleaner.deploy.launch.WorkerEventsFile.Event;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.deploy.testing.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gleaner worker --events-file}: worker JVMs write, as it happens, when the clock of their
 * drawn interruptions started, each down their crash file causes, and each vacate for their owner
 * with how long it took; a file that cannot be written is one line before the worker starts.
 */
class WorkerEventsTest {
  private static final long GRACE_MILLIS = 5_000;

  @TempDir
  Path dir;

  @Test
  void workerJvmsWriteTheirFailureClockTheirDownsAndTheirVacates() throws Exception {
    Path owner = dir.resolve("w1.owner");
    Path crash = dir.resolve("w2.crash");
    try (LocalCluster c = new LocalCluster(dir); WorkerProcesses workers = new WorkerProcesses(dir)) {
      long before = System.currentTimeMillis();
      // w1's drawn interruptions (one in 10,000 s on average up) are far beyond the test
      workers.start("w1", c.master.port(), c.secretFile(), 1, 1, "128m", List.of("--interrupt", "linear:0.0001",
          "--owner-file", owner.toString(), "--idle-before-start", "0", "--owner-poll", "50ms", "--vacate-grace",
          GRACE_MILLIS + "ms"));
      workers.start("w2", c.master.port(), c.secretFile(), 1, 1, "128m", List.of("--crash-file", crash.toString()));
      try {
        WorkersJoined.awaitWorkers(() -> c.master.status(null), List.of("w1", "w2"), Duration.ofSeconds(60), workers);
        List<Event> clock = WorkerEventsFile.read(workers.events("w1"), WorkerEventsFile.FAILURE_CLOCK);
        assertEquals(1, clock.size(), clock::toString);
        assertTrue(clock.get(0).atMillis() >= before && clock.get(0).atMillis() <= System.currentTimeMillis(),
            "the clock started after the JVM was launched and before it joined: " + clock + ", launched at " + before);
        assertEquals(List.of(), WorkerEventsFile.read(workers.events("w2"), WorkerEventsFile.FAILURE_CLOCK),
            "no drawn interruptions, no failure clock");

        long crashed = System.currentTimeMillis();
        Files.writeString(crash, "");
        await().atMost(Duration.ofSeconds(30))
            .until(() -> WorkerEventsFile.read(workers.events("w2"), WorkerEventsFile.DOWN).size() == 1);
        assertTrue(WorkerEventsFile.read(workers.events("w2"), WorkerEventsFile.DOWN).get(0).atMillis() >= crashed);
        Files.delete(crash);

        long back = System.currentTimeMillis();
        Files.writeString(owner, "busy\n");
        await().atMost(Duration.ofSeconds(30))
            .until(() -> WorkerEventsFile.read(workers.events("w1"), WorkerEventsFile.VACATED).size() == 1);
        Event vacate = WorkerEventsFile.read(workers.events("w1"), WorkerEventsFile.VACATED).get(0);
        assertTrue(vacate.atMillis() >= back && vacate.tookMillis() >= 0 && vacate.tookMillis() <= GRACE_MILLIS,
            vacate.toString());
        assertEquals(List.of(), WorkerEventsFile.read(workers.events("w1"), WorkerEventsFile.DOWN), "w1 was not down");
        workers.requireAlive();
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(e.getMessage() + "\nworker logs:\n" + workers.logs(), e);
      }
    }
  }

  @Test
  void anEventsFileThatCannotBeWrittenIsOneLineBeforeTheWorkerStarts() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "worker-events-test-secret-0123456789");
    Path file = dir.resolve("none").resolve("w1.events");
    CommandLineTest.Run r = CommandLineTest.gleaner("worker", "--master", "127.0.0.1:1", "--secret-file",
        secret.toString(), "--events-file", file.toString());
    assertEquals(1, r.code(), r.err());
    assertEquals("gleaner: --events-file " + file + ": cannot write it (no such folder)", r.err().strip());
  }
}
