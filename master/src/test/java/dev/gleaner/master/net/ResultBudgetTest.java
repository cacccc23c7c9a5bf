package dev.gleaner.master.net;

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
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.PiecePart;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Results over one frame are joined in memory; the master joins only as many at once as half its
 * heap holds at the result limit, and a worker with one more waits, kept alive, then goes on.
 */
class ResultBudgetTest {
  @TempDir
  Path dir;

  private static byte[] result(Assign a) {
    return LongResult.encode(new PrimeSieve().count(a.getStart(), a.getEnd(), ChunkComputation.Cancellation.NEVER));
  }

  /** The first half of the chunk's result as a part. */
  private static Envelope part(Assign a) {
    return Envelope.newBuilder().setPiecePart(PiecePart.newBuilder().setJobId(a.getJobId()).setChunkId(a.getChunkId())
        .setStart(a.getStart()).setData(ByteString.copyFrom(Arrays.copyOf(result(a), 4)))).build();
  }

  /** The last piece of the chunk: the rest of its result. */
  private static Envelope last(Assign a) {
    return Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId(a.getJobId()).setChunkId(a.getChunkId())
        .setStart(a.getStart()).setEnd(a.getEnd()).setResultPrefixBytes(4)
        .setResult(ByteString.copyFrom(Arrays.copyOfRange(result(a), 4, 8))).setFinal(true)).build();
  }

  private static Assign assign(RawPeer p) throws Exception {
    Envelope e = p.readSkippingAcks(10_000);
    assertTrue(e != null && e.hasAssign(), "expected an assignment, got " + e);
    return e.getAssign();
  }

  private static dev.gleaner.protocol.PieceAck acked(RawPeer p) throws Exception {
    Envelope e;
    do {
      e = p.read();
    } while (!e.hasPieceAck());
    return e.getPieceAck();
  }

  private static String scrape(int port) throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
        .build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  /** a starts a result in parts and takes the one place; b sends its whole result and waits for it. */
  private static void aHoldsThePlaceAndBWaits(MasterFixture m, RawPeer a, Assign aa, RawPeer b, Assign ba)
      throws Exception {
    a.send(part(aa));
    // the answer to a heartbeat sent after the part: the master has taken the part in
    a.send(Messages.heartbeat(7, 0));
    Envelope e;
    do {
      e = a.read();
    } while (!e.hasHeartbeat());
    b.send(part(ba));
    b.send(last(ba));
    await().atMost(Duration.ofSeconds(10)).until(() -> scrape(m.port).contains("gleaner_results_waiting 1.0"));
  }

  @Test
  void aSecondResultOverOneFrameWaitsForTheFirstAndItsWorkerIsKeptAlive() throws Exception {
    // a limit for one result as large as the heap: the master joins one such result at a time
    try (MasterFixture m = MasterFixture.start(dir, c -> c.withMaxResultBytes(Runtime.getRuntime().maxMemory()))) {
      String id = m.submit(MasterFixture.primes(0, 200_000, "equal", 0, 0).toBuilder().setMinWorkers(2).build());
      // (each worker's first chunk is enough here; the job's others are left undone)
      try (RawPeer a = RawPeer.worker(m.port, SECRET, "a"); RawPeer b = RawPeer.worker(m.port, SECRET, "b")) {
        Assign aa = assign(a);
        Assign ba = assign(b);
        aHoldsThePlaceAndBWaits(m, a, aa, b, ba);
        Envelope e;
        // b's connection is not read while it waits, but the master sends it heartbeats
        do {
          e = b.read();
        } while (!e.hasHeartbeat());
        assertEquals(0, e.getHeartbeat().getSeq(), "a heartbeat of the master's own, not an answer");
        assertEquals(0, m.job(id).getUnitsDone(), "nothing is whole yet");

        a.send(last(aa));
        // a's result is whole and durable; then b's turn comes and its waiting parts go on
        assertEquals(aa.getChunkId(), acked(a).getChunkId());
        assertEquals(ba.getChunkId(), acked(b).getChunkId());
        await().atMost(Duration.ofSeconds(10)).until(() -> m.job(id).getUnitsDone()
            == (aa.getEnd() - aa.getStart()) + (ba.getEnd() - ba.getStart()));
        assertTrue(scrape(m.port).contains("gleaner_results_waiting 0.0"));
      }
    }
  }

  @Test
  void aWorkerWaitingItsTurnKeepsItsLeaseWhileTheResultAheadIsStillArriving() throws Exception {
    // leases of 1 s: the wait below is longer, while both workers are plainly reporting
    try (MasterFixture m = MasterFixture.start(dir, c -> c.withMaxResultBytes(Runtime.getRuntime().maxMemory())
        .withLease(Duration.ofSeconds(1), 1.0).withHeartbeat(Duration.ofMillis(100), Duration.ofSeconds(10)))) {
      m.submit(MasterFixture.primes(0, 200_000, "equal", 0, 0).toBuilder().setMinWorkers(2).build());
      try (RawPeer a = RawPeer.worker(m.port, SECRET, "a"); RawPeer b = RawPeer.worker(m.port, SECRET, "b")) {
        Assign aa = assign(a);
        Assign ba = assign(b);
        aHoldsThePlaceAndBWaits(m, a, aa, b, ba);
        Envelope e;
        // a's result goes on arriving (empty parts) for 25 of the master's heartbeats to b: 2.5 s, over both leases
        for (int i = 0; i < 25; i++) {
          a.send(Envelope.newBuilder().setPiecePart(PiecePart.newBuilder().setJobId(aa.getJobId())
              .setChunkId(aa.getChunkId()).setStart(aa.getStart())).build());
          do {
            e = b.read();
            assertTrue(!e.hasError(), "b was dropped while it waited: " + e);
          } while (!e.hasHeartbeat());
        }
        a.send(last(aa));
        assertEquals(aa.getChunkId(), acked(a).getChunkId());
        assertEquals(ba.getChunkId(), acked(b).getChunkId());
        assertTrue(m.server.liveWorkers().containsAll(java.util.List.of("a", "b")), m.server.liveWorkers().toString());
      }
    }
  }
}
