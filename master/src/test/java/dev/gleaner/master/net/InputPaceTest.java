package dev.gleaner.master.net;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.ScriptedWorker;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.InputPace;
import dev.gleaner.protocol.JobSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker's word of its read pace, while a long transfer crosses a link that was just cut, moves the
 * master's estimate of that link before the transfer ends; a word of a transfer that has ended does not.
 */
class InputPaceTest {
  @TempDir
  Path dir;

  private static double bandwidth(MasterFixture m, String worker) {
    return m.server.status(null).getWorkersList().stream().filter(w -> w.getWorkerId().equals(worker))
        .findFirst().orElseThrow().getBandwidth().getValue();
  }

  private static void paces(ScriptedWorker w, String job, long chunk, long bytes, long nanos) throws Exception {
    for (int i = 0; i < 3; i++) {
      w.peer.send(Envelope.newBuilder().setInputPace(InputPace.newBuilder().setJobId(job).setChunkId(chunk)
          .setBytes(bytes).setNanos(nanos)).build());
    }
  }

  @Test
  void threeSlowPacesMoveTheLinksEstimateBeforeTheTransferEnds() throws Exception {
    Path file = dir.resolve("lines.txt");
    Files.writeString(file, "ACGT\n".repeat(200_000), StandardCharsets.US_ASCII);
    try (MasterFixture m = MasterFixture.start(dir.resolve("data"), c -> c.withServe(dir))) {
      try (ScriptedWorker w = new ScriptedWorker(m.port, SECRET, "w")) {
        AtomicLong first = new AtomicLong(-1);
        List<Double> seen = new ArrayList<>();
        w.beforeArrival = a -> {
          if (first.compareAndSet(-1, a.getChunkId())) {
            return;
          }
          if (seen.isEmpty()) {
            double measured = bandwidth(m, "w");
            seen.add(measured);
            // each pace is over the last 5 ms: as a worker's would, its span has passed when it is told
            long since = System.nanoTime();
            await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() - since > 5_000_000);
            // three paces of 1 kB/s of the first chunk, whose input has all come: they tell nothing
            paces(w, a.getJobId(), first.get(), 5, 5_000_000);
            // the link is cut: three paces of 800 B/s of this one (far below what the first transfer
            // measured, however slow this machine's loopback)
            paces(w, a.getJobId(), a.getChunkId(), 4, 5_000_000);
            // (within the master's 10 s heartbeat timeout: this worker answers none meanwhile)
            await().atMost(Duration.ofSeconds(8)).until(() -> bandwidth(m, "w") < measured / 2);
            seen.add(bandwidth(m, "w"));
          }
        };
        String job = m.submit(JobSpec.newBuilder().setWorkload("grep").putParams("file", file.toString())
            .putParams("pattern", "CG").setStrategy("self").setChunkUnits(100_000).build());
        assertEquals("DONE", m.awaitEnd(job).getState());
        assertNull(w.failure);
        assertEquals(2, seen.size(), "the second chunk's input came: " + seen);
        // had the first chunk's counted, the link would stand at 1 kB/s: 800 B/s is not far enough below that
        assertEquals(800, seen.get(1), 1e-6, "the paces' rate, before the transfer's end was told: " + seen);
      }
    }
  }
}
