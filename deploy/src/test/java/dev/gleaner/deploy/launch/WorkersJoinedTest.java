package dev.gleaner.deploy.launch;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tools' one wait for workers: joined means READY at the master; a launched worker that died ends
 * the wait at once, with its log; a wait that runs out of time says which workers were not READY.
 */
class WorkersJoinedTest {
  @TempDir
  Path dir;

  private static StatusReply listing(String... idAndState) {
    StatusReply.Builder b = StatusReply.newBuilder();
    for (int i = 0; i < idAndState.length; i += 2) {
      b.addWorkers(WorkerStatus.newBuilder().setWorkerId(idAndState[i]).setState(idAndState[i + 1]));
      b.putWorkersByState(idAndState[i + 1], b.getWorkersByStateOrDefault(idAndState[i + 1], 0) + 1);
    }
    return b.build();
  }

  @Test
  void workerJvmsThatJoinedAreReadyAndOneThatDiedIsReportedAtOnceWithItsLog() throws Exception {
    try (LocalCluster c = new LocalCluster(dir); WorkerProcesses workers = new WorkerProcesses(dir)) {
      workers.start("p1", c.master.port(), c.secretFile(), 1, 1, "128m");
      workers.start("p2", c.master.port(), c.secretFile(), 1, 1, "128m");
      WorkersJoined.awaitWorkers(() -> c.master.status(null), List.of("p1", "p2"), Duration.ofSeconds(60), workers);
      WorkersJoined.awaitWorkers(() -> c.master.status(null), 2, Duration.ofSeconds(60), workers);

      // a worker that cannot start: its secret file is not there
      workers.start("p3", c.master.port(), dir.resolve("no-such-secret"), 1, 1, "128m");
      IllegalStateException e = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> assertThrows(
          IllegalStateException.class, () -> WorkersJoined.awaitWorkers(() -> c.master.status(null), 3,
              Duration.ofMinutes(10), workers)));
      assertTrue(e.getMessage().startsWith("worker process p3 exited with status "), e.getMessage());
      assertTrue(e.getMessage().contains("no-such-secret"), "the end of its log: " + e.getMessage());
    }
  }

  @Test
  void aWorkerAwayWithItsOwnerOrGoneHasNotJoined() throws Exception {
    StatusReply s = listing("w1", "READY", "w2", "AWAY", "w3", "GONE");
    WorkersJoined.awaitWorkers(() -> s, List.of("w1"), Duration.ofSeconds(1), WorkersJoined.Launched.IN_PROCESS);
    WorkersJoined.awaitWorkers(() -> s, 1, Duration.ofSeconds(1), WorkersJoined.Launched.IN_PROCESS);

    IllegalStateException e = assertThrows(IllegalStateException.class, () -> WorkersJoined.awaitWorkers(() -> s,
        List.of("w1", "w2", "w3", "w4"), Duration.ofMillis(300), WorkersJoined.Launched.IN_PROCESS));
    assertTrue(e.getMessage().startsWith("3 of 4 workers did not join (READY at the master) within 0.3 s: w2 AWAY,"
        + " w3 GONE, w4 not listed"), e.getMessage());

    e = assertThrows(IllegalStateException.class, () -> WorkersJoined.awaitWorkers(() -> s, 2, Duration.ofMillis(300),
        WorkersJoined.Launched.IN_PROCESS));
    assertTrue(e.getMessage().startsWith("1 of 2 workers joined (READY at the master) within 0.3 s; the master lists"
        + " w1 READY, w2 AWAY, w3 GONE"), e.getMessage());
  }
}
