package dev.gleaner.master.loop;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.gleaner.common.time.FakeTicker;
import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.GrepWorkload;
import dev.gleaner.common.workload.LinesResult;
import dev.gleaner.common.workload.LongResult;
import dev.gleaner.common.workload.PrimeSieve;
import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.master.testing.ScriptedWorker;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.HeldChunk;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.Piece;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The dispatcher against scripted workers on loopback: assignment, pieces, failures, restarts. */
class DispatchTest {
  @TempDir
  Path dir;

  private static long primes(long from, long to) {
    return new PrimeSieve().count(from, to, ChunkComputation.Cancellation.NEVER);
  }

  private static Envelope piece(Assign a, long from, long to) {
    return Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId(a.getJobId()).setChunkId(a.getChunkId())
        .setStart(from).setEnd(to).setResult(ByteString.copyFrom(LongResult.encode(primes(from, to))))
        .setFinal(to == a.getEnd())).build();
  }

  private static Assign nextAssign(RawPeer p) throws Exception {
    Envelope e = p.readSkippingAcks(10_000);
    assertTrue(e != null && e.hasAssign(), "expected an assignment, got " + e);
    return e.getAssign();
  }

  @Test
  void equalSplitGivesEachWorkerItsShareAndTheAnswerIsExact() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      JobSpec spec = MasterFixture.primes(0, 2_000_000, "equal", 0, 3).toBuilder().setMinWorkers(2).build();
      String id = m.submit(spec);
      try (ScriptedWorker a = new ScriptedWorker(m.port, SECRET, "a"); ScriptedWorker b = new ScriptedWorker(m.port, SECRET, "b")) {
        var status = m.awaitEnd(id);
        assertEquals(primes(0, 2_000_000) + " primes", status.getResult());
        assertEquals("equal", status.getStrategy());
        // each worker starts on its own half, cut at its 3 checkpoints into quarters; what happens after
        // depends on timing (an idle worker takes the other's queued pieces, or the tail of a slow one's)
        assertEquals(2_000_000L, status.getSharesList().stream().mapToLong(s -> s.getUnits()).sum());
        Assign firstA = a.assigned.get(0);
        Assign firstB = b.assigned.get(0);
        assertEquals(java.util.Set.of(0L, 1_000_000L), java.util.Set.of(firstA.getStart(), firstB.getStart()));
        assertEquals(250_000, firstA.getEnd() - firstA.getStart(), firstA.toString());
        assertEquals(250_000, firstB.getEnd() - firstB.getStart(), firstB.toString());
      }
    }
  }

  /** Borrowed desktops: with --expected-up, a worker never seen interrupted is planned at risk from the start. */
  @Test
  void aRiskPriorPlansNewWorkersAtTheExpectedRate() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir.resolve("plain"));
        MasterFixture borrowed = MasterFixture.start(dir.resolve("borrowed"), c -> c.withExpectedUp(36_000))) {
      try (RawPeer a = RawPeer.worker(m.port, SECRET, "pc"); RawPeer b = RawPeer.worker(borrowed.port, SECRET, "pc")) {
        await().atMost(Duration.ofSeconds(10)).until(() -> m.server.liveWorkers().size() == 1
            && borrowed.server.liveWorkers().size() == 1);
        var plain = m.server.status(null).getWorkers(0);
        var lent = borrowed.server.status(null).getWorkers(0);
        assertEquals(0, plain.getRiskRate(), "a dedicated cluster: nobody at risk until seen");
        // ten interruptions over ten times 10 h, the prior's, with this worker's own (none yet)
        assertEquals(10, lent.getRiskInterruptions());
        assertEquals(0, lent.getInterruptions(), "status counts the interruptions seen, not the prior's");
        assertEquals(11 / (360_000 + 36_000.0), lent.getRiskRate(), 1e-9);
      }
    }
  }

  @Test
  void aRetransmittedPieceIsAcknowledgedAgainButCountsOnce() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String id = m.submit(MasterFixture.primes(0, 100_000, "self", 100_000, 1));
      try (RawPeer w = RawPeer.worker(m.port, SECRET, "w")) {
        // the chunk's two pieces, 50,000 units each, come as two assignments (the window)
        Assign a = nextAssign(w);
        Assign b = nextAssign(w);
        assertEquals(List.of(0L, 50_000L, 50_000L, 100_000L), List.of(a.getStart(), a.getEnd(), b.getStart(), b.getEnd()));
        w.send(piece(a, 0, 50_000));
        w.send(piece(a, 0, 50_000));
        w.send(piece(b, 50_000, 100_000));
        w.send(piece(b, 50_000, 100_000));
        int acks = 0;
        while (acks < 4) {
          Envelope e = w.read();
          if (e.hasPieceAck()) {
            acks++;
          }
        }
        var status = m.awaitEnd(id);
        assertEquals(primes(0, 100_000) + " primes", status.getResult());
        assertEquals(100_000, status.getUnitsDone());
      }
    }
  }

  @Test
  void aResentSubRangeOfAnAcknowledgedPieceCountsNothing() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String id = m.submit(MasterFixture.primes(0, 100_000, "self", 100_000, 1));
      try (RawPeer w = RawPeer.worker(m.port, SECRET, "w")) {
        Assign a = nextAssign(w);
        Assign b = nextAssign(w);
        w.send(piece(a, 0, 50_000));
        // inside, and across the edge of, a saved piece: neither may count a unit twice
        w.send(piece(a, 0, 25_000));
        w.send(piece(a, 10_000, 40_000));
        w.send(piece(b, 50_000, 100_000));
        var status = m.awaitEnd(id);
        assertEquals("DONE", status.getState());
        assertEquals(primes(0, 100_000) + " primes", status.getResult());
        assertEquals(100_000, status.getUnitsDone());
      }
    }
  }

  @Test
  void aWorkerThatDisconnectsMidChunkLosesOnlyItsUncheckpointedUnits() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String id = m.submit(MasterFixture.primes(0, 1_000_000, "self", 1_000_000, 3));
      try (RawPeer quitter = RawPeer.worker(m.port, SECRET, "quitter")) {
        // it holds [0, 250,000) and [250,000, 500,000), saves the first 100,000 units (as a drain
        // would) and vanishes
        Assign first = nextAssign(quitter);
        assertEquals(0, first.getStart());
        quitter.send(piece(first, 0, 100_000));
        await().atMost(Duration.ofSeconds(10)).until(() -> m.job(id).getUnitsDone() == 100_000);
      }
      try (ScriptedWorker rescuer = new ScriptedWorker(m.port, SECRET, "rescuer")) {
        var status = m.awaitEnd(id);
        assertEquals(primes(0, 1_000_000) + " primes", status.getResult());
        long given = 0;
        for (Assign a : new ArrayList<>(rescuer.assigned)) {
          assertTrue(a.getStart() >= 100_000, "saved units are not computed again: " + a);
          given += a.getEnd() - a.getStart();
        }
        assertEquals(900_000, given, "the rescuer computes everything else, once");
      }
      var quitter = m.server.status(null).getWorkersList().stream().filter(w -> w.getWorkerId().equals("quitter")).findFirst().orElseThrow();
      assertEquals("GONE", quitter.getState());
      assertEquals(1, quitter.getInterruptions());
    }
  }

  @Test
  void aSilentWorkerIsDeclaredDownWhenTheClockPassesTheTimeout() throws Exception {
    FakeTicker ticker = new FakeTicker();
    try (MasterFixture m = MasterFixture.start(dir, c -> c.withTicker(ticker)
        .withHeartbeat(Duration.ofMillis(20), Duration.ofSeconds(30)))) {
      String id = m.submit(MasterFixture.primes(0, 500_000, "self", 500_000, 0));
      try (RawPeer silent = RawPeer.worker(m.port, SECRET, "silent")) {
        Assign a = nextAssign(silent);
        assertEquals(List.of("silent"), m.server.liveWorkers());
        ticker.advance(Duration.ofSeconds(29));
        assertEquals(List.of("silent"), m.server.liveWorkers(), "not yet: 29 s of silence is under the timeout");
        ticker.advance(Duration.ofSeconds(2));
        await().atMost(Duration.ofSeconds(10)).until(() -> m.server.liveWorkers().isEmpty());
        assertTrue(silent.closedByMaster());
        try (ScriptedWorker next = new ScriptedWorker(m.port, SECRET, "next")) {
          var status = m.awaitEnd(id);
          assertEquals(primes(0, 500_000) + " primes", status.getResult());
          assertEquals(a.getStart(), next.assigned.get(0).getStart());
        }
      }
    }
  }

  /**
   * A worker that logs in and sends what its role may not send, again and again (a broken build, a
   * hostile peer): each session is refused, none counts as an interruption, and after its first join
   * none re-plans the running job. Each cycle is 5 s apart on the master's clock, past the re-plan
   * interval, so a re-plan per join or per refusal would show.
   */
  @Test
  void aWorkerRefusedOverAndOverIsNoInterruptionAndReplansNothing() throws Exception {
    FakeTicker ticker = new FakeTicker();
    try (MasterFixture m = MasterFixture.start(dir, c -> c.withTicker(ticker)
        .withHeartbeat(Duration.ofMillis(20), Duration.ofHours(1)))) {
      String id = m.submit(MasterFixture.primes(0, 50_000_000, "equal", 0, 3));
      try (RawPeer honest = RawPeer.worker(m.port, SECRET, "honest")) {
        nextAssign(honest);
        for (int k = 0; k < 7; k++) {
          ticker.advance(Duration.ofSeconds(5));
          try (RawPeer broken = RawPeer.worker(m.port, SECRET, "broken")) {
            broken.send(Envelope.newBuilder().setSubmit(dev.gleaner.protocol.Submit.newBuilder()
                .setSpec(MasterFixture.primes(0, 10, "", 0, 0))).build());
            Envelope e;
            do {
              e = broken.read();
            } while (!e.hasError());
            assertEquals(Error.Code.UNEXPECTED_MESSAGE, e.getError().getCode(), e.toString());
            assertTrue(broken.closedByMaster());
          }
          // (its join may reach the status after the refusal reached the peer: absent, it is not GONE yet)
          await().atMost(Duration.ofSeconds(10)).until(() -> m.server.status(null).getWorkersList().stream()
              .anyMatch(w -> w.getWorkerId().equals("broken") && w.getState().equals("GONE")));
        }
        ticker.advance(Duration.ofSeconds(5));
        honest.send(Messages.heartbeat(1, 0));
        await().atMost(Duration.ofSeconds(10)).until(() ->
            m.server.status(null).getMetricsOrDefault("gleaner.heartbeat.lag.count", 0) >= 1);
        assertEquals(1, m.job(id).getReplans(), "one re-plan, for its first join: " + m.job(id).getPlanReason());
        assertEquals(0, worker(m, "broken").getInterruptions());
        assertEquals(0, m.server.status(null).getMetricsOrDefault("gleaner.workers.failures", 0));
      }
    }
  }

  private static dev.gleaner.protocol.WorkerStatus worker(MasterFixture m, String id) {
    return m.server.status(null).getWorkersList().stream().filter(w -> w.getWorkerId().equals(id)).findFirst()
        .orElseThrow();
  }

  /** The heartbeat lag is how late a heartbeat came past the interval: about 0 on time, not the interval. */
  @Test
  void theHeartbeatLagIsWhatAHeartbeatCameLatePastTheInterval() throws Exception {
    FakeTicker ticker = new FakeTicker();
    try (MasterFixture m = MasterFixture.start(dir, c -> c.withTicker(ticker)
        .withHeartbeat(Duration.ofSeconds(2), Duration.ofHours(1)))) {
      try (RawPeer w = RawPeer.worker(m.port, SECRET, "w")) {
        ticker.advance(Duration.ofSeconds(2));
        w.send(Messages.heartbeat(1, 0));
        await().atMost(Duration.ofSeconds(10)).until(() ->
            m.server.status(null).getMetricsOrDefault("gleaner.heartbeat.lag.count", 0) == 1);
        ticker.advance(Duration.ofMillis(2300));
        w.send(Messages.heartbeat(2, 0));
        await().atMost(Duration.ofSeconds(10)).until(() ->
            m.server.status(null).getMetricsOrDefault("gleaner.heartbeat.lag.count", 0) == 2);
        var metrics = m.server.status(null).getMetricsMap();
        assertEquals(300, metrics.get("gleaner.heartbeat.lag.max_ms"), 1e-6, "" + metrics);
        assertEquals(150, metrics.get("gleaner.heartbeat.lag.mean_ms"), 1e-6, "on time, then 0.3 s late: " + metrics);
      }
    }
  }

  @Test
  void aWorkerThatHeartbeatsButNeverReportsLosesItsChunkWhenTheLeaseEnds() throws Exception {
    FakeTicker ticker = new FakeTicker();
    try (MasterFixture m = MasterFixture.start(dir, c -> c.withTicker(ticker)
        .withHeartbeat(Duration.ofMillis(20), Duration.ofHours(1)))) {
      String id = m.submit(MasterFixture.primes(0, 500_000, "self", 500_000, 0));
      try (RawPeer stuck = RawPeer.worker(m.port, SECRET, "stuck")) {
        Assign a = nextAssign(stuck);
        // 500,000 units at the calibrated 10^6 units/s: half a second; the lease is its floor, 120 s
        ticker.advance(Duration.ofSeconds(60));
        stuck.send(Messages.heartbeat(1, 0));
        ticker.advance(Duration.ofSeconds(59));
        // several of the loop's ticks see 119 s: still within the lease
        await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(5))
            .until(() -> m.server.liveWorkers().equals(List.of("stuck")));
        ticker.advance(Duration.ofSeconds(2));
        Envelope e = stuck.readSkippingAcks(10_000);
        assertTrue(e != null && e.hasError(), "expected an error, got " + e);
        assertEquals(Error.Code.LEASE_EXPIRED, e.getError().getCode());
        assertTrue(e.getError().getMessage().contains("no piece of chunk"), e.getError().getMessage());
        assertTrue(stuck.closedByMaster());
        // a hung worker counts as interrupted, in the history kept across restarts too
        await().atMost(Duration.ofSeconds(10)).until(() ->
            m.server.status(null).getMetricsOrDefault("gleaner.workers.failures", 0) == 1);
        try (ScriptedWorker next = new ScriptedWorker(m.port, SECRET, "next")) {
          var status = m.awaitEnd(id);
          assertEquals(primes(0, 500_000) + " primes", status.getResult());
          assertEquals(a.getStart(), next.assigned.get(0).getStart());
        }
      }
    }
  }

  @Test
  void aJobWhoseInputIsNotServedAfterARestartWaitsForARestartThatServesIt() throws Exception {
    Path file = dir.resolve("in.txt");
    Files.writeString(file, "GATTACA\nnothing\nGATTACA\n", StandardCharsets.UTF_8);
    JobSpec spec = JobSpec.newBuilder().setWorkload("grep").putParams("file", file.toString())
        .putParams("pattern", "GATTACA").build();
    String id;
    try (MasterFixture m = MasterFixture.start(dir.resolve("data"), c -> c.withServe(dir))) {
      id = m.submit(spec);
    }
    try (MasterFixture m = MasterFixture.start(dir.resolve("data"))) {
      // started without --serve: the job is not failed, only not taken up
      assertTrue(m.server.status(null).getJobsList().stream().noneMatch(j -> j.getJobId().equals(id)));
    }
    try (MasterFixture m = MasterFixture.start(dir.resolve("data"), c -> c.withServe(dir));
         ScriptedWorker w = new ScriptedWorker(m.port, SECRET, "w")) {
      var status = m.awaitEnd(id);
      assertEquals("DONE", status.getState(), status.getMessage());
      assertTrue(status.getResult().startsWith("2 matching lines"), status.getResult());
    }
  }

  /** Checks picked before a restart are still made after it. */
  @Test
  void aRestartedMasterStillMakesTheChecksItPickedBeforeIt() throws Exception {
    String id;
    try (MasterFixture m = MasterFixture.start(dir)) {
      id = m.submit(MasterFixture.primes(0, 300_000, "self", 100_000, 0).toBuilder().setVerify(1).build());
      try (ScriptedWorker a = new ScriptedWorker(m.port, SECRET, "a")) {
        // a alone computes every piece; nobody may check them yet
        await().atMost(Duration.ofSeconds(30)).until(() -> m.job(id).getUnitsDone() == 300_000);
        await().atMost(Duration.ofSeconds(10)).until(() -> m.job(id).getMessage().startsWith("waiting for a worker"));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> m.server.liveWorkers().isEmpty());
    }
    try (MasterFixture m = MasterFixture.start(dir)) {
      assertEquals("QUEUED", m.job(id).getState(), "not DONE: the checks are still to make");
      try (ScriptedWorker b = new ScriptedWorker(m.port, SECRET, "b")) {
        var status = m.awaitEnd(id);
        assertEquals("DONE", status.getState(), status.getMessage());
        assertEquals(primes(0, 300_000) + " primes", status.getResult());
        assertEquals(300_000, status.getUnitsVerified(), "b checked what a computed before the restart");
        assertEquals(3, b.assigned.size());
      }
    }
  }

  @Test
  void aRestartedMasterResumesFromTheCommittedPiecesOnly() throws Exception {
    String id;
    long checkpoint;
    try (MasterFixture m = MasterFixture.start(dir)) {
      id = m.submit(MasterFixture.primes(0, 800_000, "self", 400_000, 1));
      try (RawPeer w = RawPeer.worker(m.port, SECRET, "w")) {
        Assign a = nextAssign(w);
        checkpoint = a.getEnd();
        assertEquals(200_000, checkpoint, "pieces of 200,000 units: the chunk cut at its checkpoint");
        w.send(piece(a, a.getStart(), checkpoint));
        await().atMost(Duration.ofSeconds(10)).until(() -> m.job(id).getUnitsDone() == checkpoint);
      }
      // seen as lost before the master stops: its chunks are not reserved for it after the restart
      await().atMost(Duration.ofSeconds(10)).until(() -> m.server.liveWorkers().isEmpty());
    }
    try (MasterFixture m = MasterFixture.start(dir)) {
      assertEquals(checkpoint, m.job(id).getUnitsDone());
      try (ScriptedWorker w = new ScriptedWorker(m.port, SECRET, "w2")) {
        var status = m.awaitEnd(id);
        assertEquals(primes(0, 800_000) + " primes", status.getResult());
        long given = 0;
        for (Assign a : new ArrayList<>(w.assigned)) {
          assertTrue(a.getStart() >= checkpoint, "committed units must not be computed again: " + a);
          given += a.getEnd() - a.getStart();
        }
        assertEquals(800_000 - checkpoint, given);
      }
    }
  }

  @Test
  void aWorkerThatKeptComputingThroughARestartReportsToTheRestartedMasterAndNothingIsHandedOutTwice()
      throws Exception {
    String id;
    Assign held;
    MasterFixture first = MasterFixture.start(dir);
    try (RawPeer w = RawPeer.worker(first.port, SECRET, "w", 7)) {
      id = first.submit(MasterFixture.primes(0, 800_000, "self", 100_000, 0));
      Assign a = nextAssign(w);
      held = nextAssign(w);
      w.send(piece(a, a.getStart(), a.getEnd()));
      await().atMost(Duration.ofSeconds(10)).until(() -> first.job(id).getUnitsDone() == a.getEnd() - a.getStart());
      // the master goes away while w computes its second chunk
      first.close();
    } finally {
      first.close();
    }
    try (MasterFixture m = MasterFixture.start(dir)) {
      try (ScriptedWorker other = new ScriptedWorker(m.port, SECRET, "other")) {
        // w comes back with the chunk it kept computing, and reports it
        HeldChunk claim = HeldChunk.newBuilder().setJobId(id).setChunkId(held.getChunkId()).setStart(held.getStart())
            .setEnd(held.getEnd()).setAcked(held.getStart()).build();
        try (RawPeer w = RawPeer.worker(m.port, SECRET, "w", 8, List.of(claim))) {
          w.send(piece(held, held.getStart(), held.getEnd()));
          Envelope reply = w.readSkippingHeartbeats(10_000);
          // new chunks may come first: w has room for more
          for (int i = 0; i < 50 && reply != null && reply.hasAssign(); i++) {
            reply = w.readSkippingHeartbeats(10_000);
          }
          assertTrue(reply != null && reply.hasPieceAck(), "the restarted master takes the piece: " + reply);
          assertEquals(held.getEnd(), reply.getPieceAck().getEnd());
        }
        // w leaves; the other worker does the rest
        var status = m.awaitEnd(id);
          assertEquals(primes(0, 800_000) + " primes", status.getResult());
          for (Assign a : new ArrayList<>(other.assigned)) {
            assertTrue(a.getEnd() <= held.getStart() || a.getStart() >= held.getEnd(),
                "the chunk w kept computing is not handed out again: " + a);
            assertTrue(a.getChunkId() > held.getChunkId(), "chunk ids are never reused: " + a);
          }
      }
    }
  }

  @Test
  void aPieceWhoseResultIsMalformedOnEveryWorkerFailsTheJobInsteadOfBeingTriedForever() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String id = m.submit(MasterFixture.primes(0, 1000, "self", 1000, 0));
      for (int i = 1; i <= 3; i++) {
        try (RawPeer garbler = RawPeer.worker(m.port, SECRET, "garbler-" + i)) {
          Assign a = nextAssign(garbler);
          garbler.send(Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId(id).setChunkId(a.getChunkId())
              .setStart(a.getStart()).setEnd(a.getEnd()).setResult(ByteString.copyFrom(new byte[3])).setFinal(true))
              .build());
          assertTrue(garbler.closedByMaster());
        }
      }
      var status = m.awaitEnd(id);
      assertEquals("FAILED", status.getState());
      assertTrue(status.getMessage().contains("failed 3 times") && status.getMessage().contains("malformed primes result"),
          status.getMessage());
    }
  }

  @Test
  void aWorkerWhoseResultPartsGoOverTheLimitEachTimeFailsTheJobInsteadOfLoggingInForEver() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir, c -> c.withMaxFrameBytes(64 * 1024).withMaxResultBytes(64 * 1024))) {
      String id = m.submit(MasterFixture.primes(0, 1000, "self", 1000, 0));
      for (int i = 1; i <= 3; i++) {
        // the same worker each time, as a broken one logging in again after each refusal
        try (RawPeer hoarder = RawPeer.worker(m.port, SECRET, "hoarder")) {
          Assign a = nextAssign(hoarder);
          // two parts of 40,000 bytes, each within a frame, together over the 65,536 bytes of one piece
          for (int part = 0; part < 2; part++) {
            hoarder.send(Envelope.newBuilder().setPiecePart(dev.gleaner.protocol.PiecePart.newBuilder().setJobId(id)
                .setChunkId(a.getChunkId()).setStart(a.getStart()).setData(ByteString.copyFrom(new byte[40_000]))).build());
          }
          Envelope e = hoarder.readSkippingAcks(10_000);
          assertTrue(e != null && e.hasError() && e.getError().getCode() == Error.Code.BAD_RESULT, String.valueOf(e));
          assertTrue(e.getError().getMessage().contains("over the limit of 65536 bytes"), e.getError().getMessage());
          assertTrue(hoarder.closedByMaster());
        }
      }
      var status = m.awaitEnd(id);
      assertEquals("FAILED", status.getState(), status.getMessage());
      assertTrue(status.getMessage().contains("failed 3 times") && status.getMessage().contains("over the limit"),
          status.getMessage());
    }
  }

  @Test
  void aSubmitSentAgainWithItsKeyGetsTheSameJobAndAnotherJobUnderTheKeyIsRefused() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      JobSpec spec = MasterFixture.primes(0, 1000, "self", 1000, 0).toBuilder().setKey("friday-run").build();
      String first = m.submit(spec);
      try (RawPeer client = RawPeer.client(m.port, SECRET)) {
        client.send(Envelope.newBuilder().setSubmit(dev.gleaner.protocol.Submit.newBuilder().setSpec(spec)).build());
        Envelope again = client.read();
        assertEquals(first, again.getSubmitReply().getJobId());
        assertTrue(again.getSubmitReply().getExisting());
        client.send(Envelope.newBuilder().setSubmit(dev.gleaner.protocol.Submit.newBuilder()
            .setSpec(spec.toBuilder().putParams("to", "2000"))).build());
        Envelope refused = client.read();
        assertEquals(Error.Code.BAD_JOB, refused.getError().getCode());
        assertTrue(refused.getError().getMessage().contains("the key 'friday-run' already names job " + first),
            refused.getError().getMessage());
      }
      assertEquals(1, m.server.status("").getJobsCount());
    }
    // the key is durable: a restarted master answers the same
    try (MasterFixture m = MasterFixture.start(dir)) {
      assertEquals("job-1", m.submit(MasterFixture.primes(0, 1000, "self", 1000, 0).toBuilder().setKey("friday-run")
          .build()));
      assertEquals("job-2", m.submit(MasterFixture.primes(0, 1000, "self", 1000, 0)));
    }
  }

  @Test
  void aLargeResultStaysOutOfStatusRepliesAndStreamsWholeOnRequest() throws Exception {
    Path file = dir.resolve("many.txt");
    String text = MasterFixture.writeGattacaLines(file, 40_000, " GATTACA GATTACA");
    try (MasterFixture m = MasterFixture.start(dir.resolve("data"), c -> c.withServe(dir))) {
      String id = m.submit(MasterFixture.grepGattaca(file, 400_000));
      try (ScriptedWorker w = new ScriptedWorker(m.port, SECRET, "w")) {
        assertEquals("DONE", m.awaitEnd(id).getState());
      }
      String whole = "40000 matching lines\n" + String.join("\n", text.lines().toList());
      try (RawPeer client = RawPeer.client(m.port, SECRET)) {
        client.send(Envelope.newBuilder().setStatusRequest(dev.gleaner.protocol.StatusRequest.getDefaultInstance()).build());
        var all = client.read().getStatusReply().getJobs(0);
        assertTrue(all.getResultTruncated());
        assertEquals(whole.getBytes(StandardCharsets.UTF_8).length, all.getResultSize());
        assertTrue(all.getResult().length() <= 4096 && whole.startsWith(all.getResult()), "the start of the result");

        client.send(Envelope.newBuilder().setResultRequest(dev.gleaner.protocol.ResultRequest.newBuilder().setJobId(id))
            .build());
        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        int parts = 0;
        for (boolean last = false; !last && parts < 10_000; parts++) {
          var part = client.read().getResultPart();
          part.getData().writeTo(got);
          last = part.getLast();
        }
        assertTrue(parts > 1, "streamed in parts, each under the frame limit: " + parts);
        assertEquals(whole, got.toString(StandardCharsets.UTF_8));

        client.send(Envelope.newBuilder().setResultRequest(dev.gleaner.protocol.ResultRequest.newBuilder()
            .setJobId("job-99")).build());
        Envelope unknown = client.read();
        assertEquals(Error.Code.BAD_JOB, unknown.getError().getCode());
        assertTrue(unknown.getError().getMessage().contains("no job 'job-99'"), unknown.getError().getMessage());
      }
    }
  }

  /**
   * Recovery lists grow with the square of the workers (once, about 8 N^2 bytes in every status: with
   * about 1,450 workers status went silent). Now a status of all jobs has none and a status of one
   * job the first 16 entries of each list with its length: 1,500 workers answer in one frame.
   */
  @Test
  void aStatusOfFifteenHundredWorkersFitsInOneFrame() throws Exception {
    int n = 1500;
    try (MasterFixture m = MasterFixture.start(dir, c -> c.withHeartbeat(Duration.ofSeconds(2), Duration.ofMinutes(10)))) {
      List<RawPeer> peers = new ArrayList<>();
      try {
        for (int i = 0; i < n; i++) {
          peers.add(RawPeer.worker(m.port, SECRET, "w" + i));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> m.server.liveWorkers().size() == n);
        String id = m.submit(MasterFixture.primes(0, 100_000_000, "self", 10_000, 0).toBuilder().setMinWorkers(n)
            .build());
        await().atMost(Duration.ofSeconds(60)).until(() -> m.job(id).getRecoveryCount() == n);
        try (RawPeer client = RawPeer.client(m.port, SECRET)) {
          client.send(Envelope.newBuilder().setStatusRequest(dev.gleaner.protocol.StatusRequest.newBuilder().setJobId(id))
              .build());
          Envelope one = client.read();
          assertTrue(one.hasStatusReply(), one.toString().lines().findFirst().orElse(""));
          var job = one.getStatusReply().getJobs(0);
          assertEquals(n, job.getRecoveryCount());
          for (var list : job.getRecoveryList()) {
            assertEquals(16, list.getListCount(), "cut to its first 16 entries");
            assertEquals(n - 1, list.getLength(), "every other worker");
          }
          assertTrue(one.getSerializedSize() < 1024 * 1024, "a status of one job: " + one.getSerializedSize() + " bytes");
          client.send(Envelope.newBuilder().setStatusRequest(dev.gleaner.protocol.StatusRequest.getDefaultInstance())
              .build());
          Envelope some = client.read();
          assertEquals(200, some.getStatusReply().getWorkersCount(), "the first 200 listed");
          assertEquals(n - 200, some.getStatusReply().getWorkersOmitted(), "the others counted");
          client.send(Envelope.newBuilder().setStatusRequest(dev.gleaner.protocol.StatusRequest.newBuilder()
              .setAllWorkers(true)).build());
          Envelope all = client.read();
          assertEquals(n, all.getStatusReply().getWorkersCount());
          assertEquals(0, all.getStatusReply().getJobs(0).getRecoveryCount(), "no lists in a status of all jobs");
          assertTrue(all.getSerializedSize() < 1024 * 1024, "a status of all: " + all.getSerializedSize() + " bytes");
        }
      } finally {
        for (RawPeer p : peers) {
          p.close();
        }
      }
    }
  }

  @Test
  void aStatusReplyOverTheFrameLimitIsRefusedWithAnErrorThatNamesTheLimit() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir, c -> c.withMaxFrameBytes(2048))) {
      for (int i = 0; i < 40; i++) {
        m.submit(MasterFixture.primes(0, 1000, "self", 1000, 0).toBuilder().setName("a rather long job name " + i).build());
      }
      try (RawPeer client = RawPeer.client(m.port, SECRET)) {
        client.send(Envelope.newBuilder().setStatusRequest(dev.gleaner.protocol.StatusRequest.getDefaultInstance()).build());
        Envelope e = client.read();
        assertEquals(Error.Code.FRAME_TOO_LARGE, e.getError().getCode());
        assertTrue(e.getError().getMessage().contains("over the frame limit of 2048 bytes"), e.getError().getMessage());
      }
    }
  }

  @Test
  void withVerifyAWrongResultIsCaughtByTwoHonestWorkersAndReplaced() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String id = m.submit(MasterFixture.primes(0, 300_000, "self", 100_000, 0).toBuilder().setVerify(1).build());
      // a worker that adds one to every count it reports, then leaves
      try (RawPeer liar = RawPeer.worker(m.port, SECRET, "liar")) {
        Assign a = nextAssign(liar);
        liar.send(Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId(id).setChunkId(a.getChunkId())
            .setStart(a.getStart()).setEnd(a.getEnd()).setFinal(true)
            .setResult(ByteString.copyFrom(LongResult.encode(primes(a.getStart(), a.getEnd()) + 1)))).build());
        await().atMost(Duration.ofSeconds(10)).until(() -> m.job(id).getUnitsDone() == a.getEnd() - a.getStart());
      }
      try (ScriptedWorker w1 = new ScriptedWorker(m.port, SECRET, "w1");
           ScriptedWorker w2 = new ScriptedWorker(m.port, SECRET, "w2")) {
        var status = m.awaitEnd(id);
        assertEquals("DONE", status.getState(), status.getMessage());
        assertEquals(primes(0, 300_000) + " primes", status.getResult(), "the liar's count was replaced");
        assertEquals(300_000, status.getUnitsVerified());
        assertTrue(status.getMismatchesList().stream().anyMatch(x -> x.contains("liar's result was wrong")),
            status.getMismatchesList().toString());
      }
    }
  }

  @Test
  void grepStreamsLineAlignedInputAndCountsExactly() throws Exception {
    Path file = dir.resolve("genome.fa");
    StringBuilder text = new StringBuilder();
    int matching = 0;
    List<String> firstMatches = new ArrayList<>();
    for (int i = 0; i < 60_000; i++) {
      String line = i % 7 == 0 ? ">seq" + i + " GATTACA" : "ACGT".repeat(1 + i % 20);
      if (line.contains("GATTACA")) {
        matching++;
        if (firstMatches.size() < 5) {
          firstMatches.add(line);
        }
      }
      text.append(line).append('\n');
    }
    Files.writeString(file, text, StandardCharsets.UTF_8);
    try (MasterFixture m = MasterFixture.start(dir.resolve("data"), c -> c.withServe(dir))) {
      JobSpec spec = JobSpec.newBuilder().setWorkload("grep").putParams("file", file.toString())
          .putParams("pattern", "GATTACA").putParams("max-lines", "5").setChunkUnits(300_000).setCheckpoints(2).build();
      String id = m.submit(spec);
      // a worker that vanishes in the middle of its chunk's input stream
      try (RawPeer quitter = RawPeer.worker(m.port, SECRET, "quitter")) {
        Assign a = nextAssign(quitter);
        assertTrue(a.getDataBytes() > 0);
        Envelope next;
        do {
          next = quitter.readSkippingAcks(10_000);
        } while (next != null && next.hasAssign());
        assertTrue(next != null && next.hasData(), "expected input data, got " + next);
      }
      try (ScriptedWorker a = new ScriptedWorker(m.port, SECRET, "a"); ScriptedWorker b = new ScriptedWorker(m.port, SECRET, "b")) {
        var status = m.awaitEnd(id);
        assertEquals("DONE", status.getState(), status.getMessage());
        LinesResult expected = new LinesResult(matching, 5, firstMatches);
        assertEquals(new GrepWorkload().render(expected.encode()), status.getResult());
        assertNull(a.failure);
        assertNull(b.failure);
      }
    }
  }
  @Test
  void atItsDeadlineAJobEndsWithItsSavedPiecesAndAResumeComputesOnlyTheRest() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      JobSpec spec = MasterFixture.primes(0, 1_000_000, "self", 100_000, 0);
      String first = m.submit(spec.toBuilder().setDeadlineMillis(System.currentTimeMillis() + 1500).build());
      Assign a;
      try (RawPeer w = RawPeer.worker(m.port, SECRET, "w")) {
        a = nextAssign(w);
        w.send(piece(a, a.getStart(), a.getEnd()));
        var partial = m.awaitEnd(first);
        assertEquals("DONE_PARTIAL", partial.getState(), partial.getMessage());
        assertEquals(a.getEnd() - a.getStart(), partial.getUnitsDone());
        assertEquals(primes(a.getStart(), a.getEnd()) + " primes", partial.getResult());
        long notDone = partial.getNotDoneList().stream().mapToLong(r -> r.getEnd() - r.getStart()).sum();
        assertEquals(1_000_000 - partial.getUnitsDone(), notDone, "every unit is done or listed not done");
      }
      String second = m.submit(spec.toBuilder().setResume(first).build());
      try (ScriptedWorker w = new ScriptedWorker(m.port, SECRET, "w2")) {
        var done = m.awaitEnd(second);
        assertEquals("DONE", done.getState(), done.getMessage());
        // its rate counts its own units, not the pieces it took over from the first job
        double seconds = Math.max(1e-3, (done.getFinishedAtMillis() - done.getSubmittedAtMillis()) / 1000.0);
        assertEquals(1_000_000 - (a.getEnd() - a.getStart()), done.getUnitsPerSecond() * seconds,
            1e-6 * 1_000_000, "units/s over its own time");
        assertEquals(primes(0, 1_000_000) + " primes", done.getResult(), "the first job's pieces count in the result");
        for (Assign x : new ArrayList<>(w.assigned)) {
          assertTrue(x.getEnd() <= a.getStart() || x.getStart() >= a.getEnd(), "saved units are not computed again: " + x);
        }
      }
    }
  }
}
