package dev.gleaner.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real worker JVMs against an in-process master; one is killed with SIGKILL in the middle of a
 * chunk, and the job still ends with the exact count. Every process started here is ended here.
 */
class WorkerProcessesTest {
  @TempDir
  Path dir;

  @Test
  void aWorkerKilledMidChunkLosesNothingAndTheCountIsExact() throws Exception {
    try (LocalCluster c = new LocalCluster(dir); WorkerProcesses workers = new WorkerProcesses(dir)) {
      for (String id : List.of("p1", "p2", "p3")) {
        workers.start(id, c.master.port(), c.secretFile(), 1, 3, "128m");
      }
      // pi(10^9) = 50,847,534; chunks of 62.5M units with 3 checkpoints take a few seconds each here
      String id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("to", "1000000000")
          .setChunkUnits(62_500_000).setCheckpoints(3).setMinWorkers(3).build());
      try {
        await().atMost(Duration.ofSeconds(60))
            .until(() -> c.workerStatus("p2").getUnitsDone() > 0 && !c.workerStatus("p2").getCurrentChunk().isEmpty());
        long beforeKill = c.workerStatus("p2").getUnitsDone();
        Process p2 = workers.process("p2");
        p2.destroyForcibly();
        assertTrue(p2.waitFor(10, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(30)).until(() -> c.workerStatus("p2").getState().equals("GONE"));
        assertEquals(1, c.workerStatus("p2").getInterruptions());

        JobStatus s = c.awaitEnd(id, Duration.ofSeconds(240));
        assertEquals("DONE", s.getState(), s.getMessage());
        assertEquals("50847534 primes", s.getResult());
        assertEquals(1_000_000_000L, s.getUnitsDone());
        long p2Units = s.getSharesList().stream().filter(x -> x.getWorkerId().equals("p2")).findFirst().orElseThrow().getUnits();
        // what p2 saved before dying counts: what the status said, and at most the one piece (a quarter of
        // a chunk) it may have sent between that status and its death
        assertTrue(p2Units >= beforeKill && p2Units - beforeKill <= 62_500_000 / 4,
            "p2 had saved " + beforeKill + " units when it was killed, and is credited " + p2Units);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(e.getMessage() + "\nworker logs:\n" + workers.logs(), e);
      }
    }
  }
}
