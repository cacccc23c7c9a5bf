package dev.gleaner.master.status;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.StatusRequest;
import dev.gleaner.protocol.WorkerStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A status of a large cluster stays small: the first workers listed, every worker counted by state. */
class ManyWorkersStatusTest {
  @TempDir
  Path dir;

  private static StatusReply status(int port, boolean allWorkers) throws Exception {
    try (RawPeer client = RawPeer.client(port, SECRET)) {
      client.send(Envelope.newBuilder().setStatusRequest(StatusRequest.newBuilder().setAllWorkers(allWorkers)).build());
      return client.read().getStatusReply();
    }
  }

  private static int counted(StatusReply r) {
    return r.getWorkersByStateMap().values().stream().mapToInt(Integer::intValue).sum();
  }

  @Test
  void aStatusListsTheFirstWorkersToJoinAndCountsEveryOneUnlessAllAreAsked() throws Exception {
    int n = 210;
    List<RawPeer> workers = new ArrayList<>();
    try (MasterFixture master = MasterFixture.start(dir)) {
      for (int i = 0; i < n; i++) {
        workers.add(RawPeer.worker(master.port, SECRET, String.format(Locale.ROOT, "w%03d", i)));
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> counted(status(master.port, false)) == n);
      StatusReply some = status(master.port, false);
      assertEquals(200, some.getWorkersCount());
      assertEquals(n - 200, some.getWorkersOmitted());
      for (int i = 0; i < 200; i++) {
        assertEquals(String.format(Locale.ROOT, "w%03d", i), some.getWorkers(i).getWorkerId(), "in the order they joined");
      }
      assertEquals(n, (int) some.getWorkersByStateMap().getOrDefault("READY", 0), some.getWorkersByStateMap().toString());
      StatusReply all = status(master.port, true);
      assertEquals(n, all.getWorkersCount());
      assertEquals(0, all.getWorkersOmitted());
      assertEquals(n, all.getWorkersList().stream().map(WorkerStatus::getWorkerId).distinct().count());
      // one that leaves is counted as gone, listed or not
      workers.remove(n - 1).close();
      await().atMost(Duration.ofSeconds(30))
          .until(() -> status(master.port, false).getWorkersByStateMap().getOrDefault("GONE", 0) == 1);
      assertEquals(n, counted(status(master.port, false)));
    } finally {
      for (RawPeer w : workers) {
        w.close();
      }
    }
  }
}
