package dev.gleaner.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.HeldChunk;
import dev.gleaner.protocol.Piece;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a worker claims from a new master: only what it holds, up to where it really stopped. */
class OutboxTest {
  private final Outbox outbox = new Outbox();

  private static Assign assign(long id, long start, long end) {
    return Assign.newBuilder().setJobId("job-1").setChunkId(id).setStart(start).setEnd(end).addCheckpoints(start + 10)
        .build();
  }

  private static Piece piece(long id, long start, long end) {
    return Piece.newBuilder().setJobId("job-1").setChunkId(id).setStart(start).setEnd(end)
        .setResult(ByteString.copyFrom(new byte[8])).build();
  }

  @Test
  void aChunkThatStoppedIsClaimedOnlyUpToItsLastPiece() {
    outbox.assigned(assign(1, 0, 100));
    outbox.piece(piece(1, 0, 10));
    // stopped (its input will not come, or a drain): it computes no more
    outbox.ended("job-1", 1);
    List<HeldChunk> claims = outbox.claims();
    assertEquals(1, claims.size());
    assertEquals(10, claims.get(0).getEnd(), "claimed to its last piece, not to its assigned end");
    assertEquals(0, claims.get(0).getAcked());
    assertEquals(List.of(), claims.get(0).getCheckpointsList(), "no checkpoint past its end");
  }

  @Test
  void anAcknowledgedStoppedChunkIsForgottenAndAFailedOneReleasesItsPieces() {
    outbox.assigned(assign(1, 0, 100));
    outbox.piece(piece(1, 0, 10));
    outbox.ended("job-1", 1);
    outbox.acked("job-1", 1, 10, true);
    assertTrue(outbox.claims().isEmpty());
    assertEquals(0, outbox.unacked());

    outbox.assigned(assign(2, 100, 200));
    outbox.piece(piece(2, 100, 110));
    outbox.failed("job-1", 2, "the program failed");
    assertEquals(0, outbox.unacked(), "a failed chunk's pieces are not waited for (a drain would wait in vain)");
    assertTrue(outbox.claims().isEmpty());
  }

  /**
   * A cancel truncates a running chunk where the master had saved up to: a piece sent just before,
   * acknowledged after the truncation, must not make the outbox forget the chunk, whose final piece
   * (what it computed since, up to its current step) is still to go.
   */
  @Test
  void aChunkTruncatedBehindAPieceOnTheWayStillSendsItsFinalPiece() {
    outbox.assigned(assign(4, 0, 1000));
    outbox.piece(piece(4, 0, 100));
    outbox.truncated("job-1", 4, 0);
    outbox.acked("job-1", 4, 100, true);
    assertEquals(0, outbox.unacked());
    outbox.piece(piece(4, 100, 130).toBuilder().setFinal(true).build());
    assertEquals(1, outbox.unacked(), "the final piece is kept to be sent, not dropped");
    outbox.acked("job-1", 4, 130, true);
    outbox.ended("job-1", 4);
    assertTrue(outbox.claims().isEmpty());
    assertEquals(0, outbox.unacked());
  }

  /** A piece the master discarded (another copy saved its units first) is not counted as durable. */
  @Test
  void unitsAcknowledgedCountOnlyWhatTheMasterKept() {
    WorkerCounters counters = new WorkerCounters();
    Outbox counted = new Outbox(counters);
    counted.assigned(assign(5, 0, 100));
    counted.piece(piece(5, 0, 30));
    counted.piece(piece(5, 30, 50));
    counted.acked("job-1", 5, 30, true);
    counted.acked("job-1", 5, 50, false);
    assertEquals(List.of(50L, 30L, 20L), List.of(counters.unitsReported(), counters.unitsAcknowledged(),
        counters.unitsDiscarded()));
  }

  @Test
  void aRunningChunkIsClaimedWhole() {
    outbox.assigned(assign(3, 0, 100));
    outbox.piece(piece(3, 0, 10));
    outbox.acked("job-1", 3, 10, true);
    HeldChunk h = outbox.claims().get(0);
    assertEquals(List.of(0L, 100L, 10L), List.of(h.getStart(), h.getEnd(), h.getAcked()));
  }

  @Test
  void aHeldPieceOverANewMastersResultLimitFailsItsChunkInsteadOfBeingSentForever() {
    java.util.List<Long> cancelled = new java.util.ArrayList<>();
    outbox.chunks(new Outbox.Chunks() {
      @Override
      public void cancel(String jobId, long chunkId) {
        cancelled.add(chunkId);
      }

      @Override
      public void cancelAll() {}
    });
    outbox.assigned(assign(1, 0, 100));
    outbox.piece(piece(1, 0, 10));
    outbox.piece(Piece.newBuilder().setJobId("job-1").setChunkId(1).setStart(10).setEnd(20)
        .setResult(ByteString.copyFrom(new byte[100])).build());
    outbox.assigned(assign(2, 100, 200));
    outbox.piece(piece(2, 100, 110));
    io.netty.channel.embedded.EmbeddedChannel c = new io.netty.channel.embedded.EmbeddedChannel();
    // a master restarted with a limit of 50 bytes for one piece's result
    outbox.connected(c, 1 << 20, 50);
    java.util.List<String> sent = new java.util.ArrayList<>();
    for (Object m; (m = c.readOutbound()) != null; ) {
      dev.gleaner.protocol.Envelope e = (dev.gleaner.protocol.Envelope) m;
      sent.add(e.hasPiece() ? "piece " + e.getPiece().getChunkId() + "@" + e.getPiece().getStart()
          : e.hasChunkFailed() ? "failed " + e.getChunkFailed().getChunkId() + ": " + e.getChunkFailed().getMessage()
          : e.getBodyCase().toString());
    }
    assertEquals(List.of("piece 1@0", "failed 1: the result of the piece at 10 is 100 bytes, over the master's limit"
        + " of 50 bytes for one piece (gleaner master --max-result-mib)", "piece 2@100"), sent);
    assertEquals(List.of(1L), cancelled, "the chunk stops computing");
    assertEquals(1, outbox.unacked(), "chunk 1 is no longer waited for; chunk 2's piece is");
    assertEquals(List.of(2L), outbox.claims().stream().map(HeldChunk::getChunkId).toList());
    c.finishAndReleaseAll();
  }
}
