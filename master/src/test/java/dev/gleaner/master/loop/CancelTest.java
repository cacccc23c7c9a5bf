package dev.gleaner.master.loop;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.LongResult;
import dev.gleaner.common.workload.PrimeSieve;
import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.CancelJob;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.JobReply;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.PieceAck;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cancel with a grace over the wire: the chunk being computed is truncated where its worker had
 * reported up to, the final piece the worker then sends counts, and the job ends CANCELLED with it;
 * a master restarted while it waits for that piece ends the job at once, with what is saved.
 */
class CancelTest {
  @TempDir
  Path dir;

  private static long primes(long from, long to) {
    return new PrimeSieve().count(from, to, ChunkComputation.Cancellation.NEVER);
  }

  private static JobReply cancel(MasterFixture m, String id, int graceMs) throws IOException {
    try (RawPeer client = RawPeer.client(m.port, SECRET)) {
      client.send(Envelope.newBuilder().setCancelJob(CancelJob.newBuilder().setJobId(id).setReason("enough")
          .setGraceMs(graceMs)).build());
      Envelope e = client.read();
      assertTrue(e.hasJobReply(), "a reply, got " + e);
      return e.getJobReply();
    }
  }

  private static Envelope piece(Assign a, long from, long to, boolean last) {
    return Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId(a.getJobId()).setChunkId(a.getChunkId())
        .setStart(from).setEnd(to).setFinal(last).setResult(ByteString.copyFrom(LongResult.encode(primes(from, to)))))
        .build();
  }

  /** The first Assign the worker gets. */
  private static Assign assigned(RawPeer w) throws IOException {
    Envelope e = w.readSkippingAcks(10_000);
    assertTrue(e != null && e.hasAssign(), "an assignment, got " + e);
    return e.getAssign();
  }

  @Test
  void whatTheWorkerComputedSinceItsLastPieceCounts() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String id = m.submit(MasterFixture.primes(0, 1_000_000, "self", 1_000_000, 0));
      try (RawPeer w = RawPeer.worker(m.port, SECRET, "w")) {
        Assign a = assigned(w);
        JobReply r = cancel(m, id, 60_000);
        assertEquals("ENDING", r.getState(), r.getMessage());
        Envelope t = w.readSkippingHeartbeats(10_000);
        assertTrue(t != null && t.hasTruncate(), "the chunk is truncated, not cancelled: " + t);
        assertEquals(a.getStart(), t.getTruncate().getEnd(), "where the worker had reported up to");
        long upTo = a.getStart() + 123_456;
        w.send(piece(a, a.getStart(), upTo, true));
        JobStatus s = m.awaitEnd(id);
        assertEquals("CANCELLED", s.getState(), s.getMessage());
        assertEquals(upTo - a.getStart(), s.getUnitsDone());
        assertEquals(primes(a.getStart(), upTo) + " primes", s.getResult());
      }
    }
  }

  @Test
  void withoutAGraceTheChunkIsCancelledAndNothingSinceTheLastPieceCounts() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String id = m.submit(MasterFixture.primes(0, 1_000_000, "self", 1_000_000, 0));
      try (RawPeer w = RawPeer.worker(m.port, SECRET, "w")) {
        assigned(w);
        assertEquals("CANCELLED", cancel(m, id, 0).getState());
        Envelope c = w.readSkippingHeartbeats(10_000);
        assertTrue(c != null && c.hasCancel(), "the chunk is cancelled: " + c);
        assertEquals(0, m.awaitEnd(id).getUnitsDone());
      }
    }
  }

  /** The acknowledgement says whether the piece counted: a piece of a chunk cancelled meanwhile did not. */
  @Test
  void aPieceOfACancelledChunkIsAcknowledgedAsNotCounted() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String id = m.submit(MasterFixture.primes(0, 1_000_000, "self", 1_000_000, 0));
      try (RawPeer w = RawPeer.worker(m.port, SECRET, "w")) {
        Assign a = assigned(w);
        w.send(piece(a, a.getStart(), a.getStart() + 1000, false));
        PieceAck saved = acked(w);
        assertEquals(a.getStart() + 1000, saved.getEnd());
        assertTrue(saved.getCounted(), "a committed piece counted: " + saved);
        assertEquals("CANCELLED", cancel(m, id, 0).getState());
        w.send(piece(a, a.getStart() + 1000, a.getStart() + 2000, false));
        PieceAck late = acked(w);
        assertEquals(a.getStart() + 2000, late.getEnd());
        assertFalse(late.getCounted(), "a piece of a cancelled chunk did not count: " + late);
        assertEquals(1000, m.awaitEnd(id).getUnitsDone());
      }
    }
  }

  /** The next acknowledgement the worker gets, past anything else the master sends it. */
  private static PieceAck acked(RawPeer w) throws IOException {
    Envelope e = w.readSkipping(10_000, m -> !m.hasPieceAck());
    assertTrue(e != null, "an acknowledgement within 10 s");
    return e.getPieceAck();
  }

  @Test
  void aMasterRestartedWhileItWaitsForTheLastPiecesEndsTheJobWithWhatIsSaved() throws Exception {
    String id;
    long saved = 1000;
    MasterFixture m = MasterFixture.start(dir);
    // the worker stays connected until the master has stopped: the job is still waiting for its last piece then
    try (RawPeer w = RawPeer.worker(m.port, SECRET, "w")) {
      id = m.submit(MasterFixture.primes(0, 1_000_000, "self", 1_000_000, 0));
      Assign a = assigned(w);
      w.send(piece(a, a.getStart(), a.getStart() + saved, false));
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
          .until(() -> m.job(id).getUnitsDone() == saved);
      assertEquals("ENDING", cancel(m, id, 600_000).getState());
      assertEquals("ENDING", m.job(id).getState(), "it waits for the worker's last piece");
      m.close();
    }
    try (MasterFixture again = MasterFixture.start(dir)) {
      JobStatus s = again.awaitEnd(id);
      assertEquals("CANCELLED", s.getState(), s.getMessage());
      assertTrue(s.getMessage().contains("enough"), s.getMessage());
      assertEquals(saved, s.getUnitsDone());
    }
  }

  @Test
  void aGraceOverTenMinutesIsRefusedInOneLine() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String id = m.submit(MasterFixture.primes(0, 1_000_000, "self", 1_000_000, 0));
      try (RawPeer client = RawPeer.client(m.port, SECRET)) {
        client.send(Envelope.newBuilder().setCancelJob(CancelJob.newBuilder().setJobId(id).setGraceMs(600_001)).build());
        Envelope e = client.read();
        assertTrue(e.hasError(), "refused: " + e);
        assertEquals("a cancel waits at most 10 min for the last pieces, not 600001 ms", e.getError().getMessage());
      }
      assertEquals("QUEUED", m.job(id).getState(), "the job goes on (it waits for a worker)");
    }
  }
}
