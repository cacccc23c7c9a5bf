package dev.gleaner.master.loop;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.LongResult;
import dev.gleaner.common.workload.PrimeSieve;
import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.master.testing.ScriptedWorker;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Availability;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.WorkerStatus;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker's owner policy as the master sees it: away workers get nothing; a vacate is a loss that keeps the session. */
class AvailabilityTest {
  @TempDir
  Path dir;

  private static long primes(long from, long to) {
    return new PrimeSieve().count(from, to, ChunkComputation.Cancellation.NEVER);
  }

  private static WorkerStatus worker(MasterFixture m, String id) {
    return m.server.status(null).getWorkersList().stream().filter(w -> w.getWorkerId().equals(id)).findFirst()
        .orElse(WorkerStatus.getDefaultInstance());
  }

  private static Envelope availability(boolean available, String reason, long at) {
    Availability.Builder a = Availability.newBuilder().setAvailable(available).setReason(reason);
    return Envelope.newBuilder().setAvailability(available ? a.setUntilMillis(at) : a.setBackAtMillis(at)).build();
  }

  @Test
  void anAwayWorkerGetsNothingUntilAvailableAndItsVacatedChunkIsCommittedUpToItsPieceThenFinishedByOthers()
      throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String id = m.submit(MasterFixture.primes(0, 400_000, "self", 400_000, 3));
      long back = System.currentTimeMillis() + 3_600_000;
      try (RawPeer w = RawPeer.workerAway(m.port, SECRET, "w", Availability.newBuilder().setAvailable(false)
          .setReason("the owner is at the keyboard").setBackAtMillis(back).build())) {
        await().atMost(Duration.ofSeconds(10)).until(() -> worker(m, "w").getState().equals("AWAY"));
        assertEquals("the owner is at the keyboard", worker(m, "w").getAwayReason());
        assertEquals(back, worker(m, "w").getBackAtMillis());
        JobStatus waiting = m.job(id);
        assertEquals(0, waiting.getUnitsHeld(), "nothing handed to an away worker");
        assertEquals(0, waiting.getSharesCount());

        long until = System.currentTimeMillis() + 7_200_000;
        w.send(availability(true, "the owner left", until));
        Envelope e = w.readSkippingAcks(10_000);
        assertTrue(e != null && e.hasAssign(), "an assignment once available, got " + e);
        Assign a = e.getAssign();
        long declared = worker(m, "w").getAvailableUntilMillis();
        // through the controller's clock and back, in floating seconds: to the millisecond or so
        assertTrue(Math.abs(declared - until) <= 10, "its window's end is its declared end: " + declared + " vs " + until);
        long cut = a.getStart() + (a.getEnd() - a.getStart()) / 3;
        w.send(Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId(a.getJobId()).setChunkId(a.getChunkId())
            .setStart(a.getStart()).setEnd(cut).setResult(ByteString.copyFrom(LongResult.encode(primes(a.getStart(), cut)))))
            .build());
        w.send(availability(false, "the owner is back", back));
        await().atMost(Duration.ofSeconds(10)).until(() -> worker(m, "w").getState().equals("AWAY"));
        WorkerStatus away = worker(m, "w");
        assertEquals(1, away.getRiskInterruptions(), "a vacate is an interruption in its history");
        assertEquals("", away.getCurrentChunk(), "its chunk was taken back");
        await().atMost(Duration.ofSeconds(10)).until(() -> m.job(id).getUnitsDone() == cut - a.getStart());

        try (ScriptedWorker other = new ScriptedWorker(m.port, SECRET, "other")) {
          JobStatus s = m.awaitEnd(id);
          assertEquals("DONE", s.getState(), s.getMessage());
          assertEquals(primes(0, 400_000) + " primes", s.getResult());
          assertEquals(cut - a.getStart(), s.getSharesList().stream().filter(x -> x.getWorkerId().equals("w"))
              .findFirst().orElseThrow().getUnits(), "what w saved before it vacated counts");
        }
        assertEquals("AWAY", worker(m, "w").getState(), "still connected, still away");
      }
    }
  }
}
