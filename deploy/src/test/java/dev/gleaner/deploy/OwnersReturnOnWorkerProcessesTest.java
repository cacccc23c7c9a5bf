package dev.gleaner.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real worker JVMs lent by owners who come back in the middle of a job (through their
 * {@code --owner-file}): each vacates within its grace, one owner leaves again and its worker takes
 * work again, and the count is exact. Every process started here is ended here.
 */
class OwnersReturnOnWorkerProcessesTest {
  private static final long GRACE_MILLIS = 10_000;
  private static final Pattern VACATED = Pattern.compile("vacated in (\\d+) ms");

  @TempDir
  Path dir;

  @Test
  void everyVacateEndsWithinItsGraceAndTheCountIsExact() throws Exception {
    try (LocalCluster c = new LocalCluster(dir); WorkerProcesses workers = new WorkerProcesses(dir)) {
      for (String id : List.of("p1", "p2", "p3")) {
        workers.start(id, c.master.port(), c.secretFile(), 1, 3, "128m", List.of("--owner-file",
            dir.resolve("owner-" + id).toString(), "--idle-before-start", "0", "--vacate-grace", GRACE_MILLIS + "ms",
            "--owner-poll", "200ms"));
      }
      String id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("to", "1000000000")
          .setChunkUnits(62_500_000).setCheckpoints(3).setMinWorkers(3).build());
      try {
        for (String w : List.of("p1", "p2")) {
          await().atMost(Duration.ofSeconds(60))
              .until(() -> c.workerStatus(w).getUnitsDone() > 0 && !c.workerStatus(w).getCurrentChunk().isEmpty());
          Files.writeString(dir.resolve("owner-" + w), "busy\n");
        }
        for (String w : List.of("p1", "p2")) {
          await().atMost(Duration.ofSeconds(30)).until(() -> c.workerStatus(w).getState().equals("AWAY"));
        }
        workers.requireAlive();
        long p1Before = c.workerStatus("p1").getUnitsDone();
        Files.writeString(dir.resolve("owner-p1"), "idle\n");
        await().atMost(Duration.ofSeconds(30)).until(() -> c.workerStatus("p1").getState().equals("READY"));

        JobStatus s = c.awaitEnd(id, Duration.ofSeconds(240));
        assertEquals("DONE", s.getState(), s.getMessage());
        assertEquals("50847534 primes", s.getResult());
        assertEquals(1_000_000_000L, s.getUnitsDone());
        assertEquals("AWAY", c.workerStatus("p2").getState(), "p2's owner is still there");
        assertTrue(c.workerStatus("p1").getUnitsDone() >= p1Before);
        for (String w : List.of("p1", "p2")) {
          List<Long> took = vacates(workers.log(w));
          assertEquals(1, took.size(), w + " vacated once: " + took);
          assertTrue(took.get(0) <= GRACE_MILLIS, w + " vacated in " + took.get(0) + " ms, over its grace");
          System.out.println(w + " vacated in " + took.get(0) + " ms (grace " + GRACE_MILLIS + " ms)");
        }
        workers.requireAlive();
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(e.getMessage() + "\nworker logs:\n" + workers.logs(), e);
      }
    }
  }

  private static List<Long> vacates(Path log) throws java.io.IOException {
    List<Long> out = new ArrayList<>();
    for (String line : Files.readAllLines(log)) {
      Matcher m = VACATED.matcher(line);
      if (m.find()) {
        out.add(Long.parseLong(m.group(1)));
      }
    }
    return out;
  }
}
