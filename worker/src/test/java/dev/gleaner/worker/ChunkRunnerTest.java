package dev.gleaner.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.LongResult;
import dev.gleaner.common.workload.PrimeSieve;
import dev.gleaner.common.workload.UnitRange;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Piece;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.Test;

class ChunkRunnerTest {
  /** Records what the runner reports. */
  static final class RecordingReporter implements ChunkRunner.Reporter {
    final List<Piece> pieces = new CopyOnWriteArrayList<>();
    final List<String> failures = new CopyOnWriteArrayList<>();

    @Override
    public void piece(Piece piece) {
      pieces.add(piece);
    }

    @Override
    public void failed(String jobId, long chunkId, String message) {
      failures.add(message);
    }
  }

  static final InputFlow NO_FLOW = new InputFlow(on -> { });

  /** A splittable workload whose every compute call waits for a permit: the test decides how far it gets. */
  static final class GatedWorkload implements Workload {
    final Semaphore permits = new Semaphore(0);

    @Override
    public String name() {
      return "gated";
    }

    @Override
    public String summary() {
      return "test";
    }

    @Override
    public UnitRange range(Map<String, String> params, dev.gleaner.common.workload.InputSource input) {
      return new UnitRange(0, 100);
    }

    @Override
    public ChunkComputation open(Map<String, String> params, long start, long end) {
      return new ChunkComputation() {
        long units;

        @Override
        public void compute(long from, long to, ByteBuffer input, Cancellation cancel) throws InterruptedException {
          permits.acquire();
          units += to - from;
        }

        @Override
        public byte[] take() {
          return LongResult.encode(units);
        }
      };
    }

    @Override
    public byte[] empty() {
      return LongResult.encode(0);
    }

    @Override
    public byte[] merge(byte[] left, byte[] right) {
      return LongResult.add(left, right);
    }

    @Override
    public String render(byte[] result) {
      return Long.toString(LongResult.decode(result));
    }
  }

  private static Assign assign(String workload, long start, long end, Long... checkpoints) {
    return Assign.newBuilder().setJobId("j").setChunkId(1).setWorkload(workload).setStart(start).setEnd(end)
        .putParams("to", Long.toString(end)).addAllCheckpoints(List.of(checkpoints)).build();
  }

  @Test
  void piecesEndAtEveryCheckpointAndAddUpToTheChunk() {
    RecordingReporter r = new RecordingReporter();
    try (ChunkRunner runner = new ChunkRunner(Workloads.of(), 2, 1, 0, Map.of("primes", 3_000_000.0))) {
      runner.assign(assign("primes", 0, 3_000_000, 1_000_000L, 2_500_000L), NO_FLOW, r);
      await().atMost(Duration.ofSeconds(30)).until(() -> r.pieces.size() == 3);
    }
    assertEquals(List.of(0L, 1_000_000L, 2_500_000L), r.pieces.stream().map(Piece::getStart).toList());
    assertEquals(List.of(1_000_000L, 2_500_000L, 3_000_000L), r.pieces.stream().map(Piece::getEnd).toList());
    assertEquals(List.of(false, false, true), r.pieces.stream().map(Piece::getFinal).toList());
    long total = r.pieces.stream().mapToLong(p -> LongResult.decode(p.getResult().toByteArray())).sum();
    assertEquals(new PrimeSieve().count(0, 3_000_000, ChunkComputation.Cancellation.NEVER), total);
  }

  @Test
  void drainingReportsTheUnitsComputedSoFarAsOneLastPiece() {
    GatedWorkload gated = new GatedWorkload();
    RecordingReporter r = new RecordingReporter();
    // 40 units/s at 0.25 s a step: steps of 10 units
    try (ChunkRunner runner = new ChunkRunner(Workloads.of(gated), 1, 1, 0, Map.of("gated", 40.0))) {
      runner.assign(assign("gated", 0, 100), NO_FLOW, r);
      gated.permits.release(3);
      await().atMost(Duration.ofSeconds(10)).until(() -> gated.permits.availablePermits() == 0 && gated.permits.hasQueuedThreads());
      runner.drain();
      gated.permits.release(1);
      await().atMost(Duration.ofSeconds(10)).until(() -> runner.pending() == 0);
    }
    assertEquals(1, r.pieces.size());
    Piece p = r.pieces.get(0);
    assertEquals(0, p.getStart());
    assertEquals(40, p.getEnd());
    assertFalse(p.getFinal());
    assertEquals(40, LongResult.decode(p.getResult().toByteArray()));
  }

  @Test
  void aVacateReportsWhatTheChunkHasRunsNothingQueuedAndAResumeTakesWorkAgain() {
    GatedWorkload gated = new GatedWorkload();
    RecordingReporter r = new RecordingReporter();
    try (ChunkRunner runner = new ChunkRunner(Workloads.of(gated), 1, 1, 0, Map.of("gated", 40.0))) {
      runner.assign(assign("gated", 0, 100), NO_FLOW, r);
      runner.assign(assign("gated", 100, 200).toBuilder().setChunkId(2).build(), NO_FLOW, r);
      gated.permits.release(2);
      await().atMost(Duration.ofSeconds(10)).until(() -> gated.permits.availablePermits() == 0 && gated.permits.hasQueuedThreads());
      runner.vacate();
      gated.permits.release(1);
      await().atMost(Duration.ofSeconds(10)).until(() -> runner.pending() == 0);
      assertEquals(1, r.pieces.size(), "one partial piece, and chunk 2 never ran: " + r.pieces);
      assertEquals(30, r.pieces.get(0).getEnd());
      assertFalse(r.pieces.get(0).getFinal());
      // assigned while away (on its way before the master heard): not computed
      runner.assign(assign("gated", 200, 300).toBuilder().setChunkId(3).build(), NO_FLOW, r);
      await().atMost(Duration.ofSeconds(10)).until(() -> runner.pending() == 0);
      assertEquals(1, r.pieces.size());
      runner.resume();
      runner.assign(assign("gated", 300, 310).toBuilder().setChunkId(4).build(), NO_FLOW, r);
      gated.permits.release(1);
      await().atMost(Duration.ofSeconds(10)).until(() -> r.pieces.size() == 2);
      assertEquals(4, r.pieces.get(1).getChunkId());
      assertTrue(r.pieces.get(1).getFinal());
    }
  }

  @Test
  void aSuspendedChunkWaitsBetweenStepsAndAVacateDuringTheVisitReportsWhatItHas() {
    GatedWorkload gated = new GatedWorkload();
    RecordingReporter r = new RecordingReporter();
    try (ChunkRunner runner = new ChunkRunner(Workloads.of(gated), 1, 1, 0, Map.of("gated", 40.0))) {
      runner.assign(assign("gated", 0, 100), NO_FLOW, r);
      gated.permits.release(1);
      await().atMost(Duration.ofSeconds(10)).until(() -> gated.permits.availablePermits() == 0 && gated.permits.hasQueuedThreads());
      runner.suspend();
      // the step under way ends; the next waits for the visit to end, with a permit ready for it
      gated.permits.release(2);
      await().atMost(Duration.ofSeconds(10)).until(() -> gated.permits.availablePermits() == 1);
      runner.resume();
      await().atMost(Duration.ofSeconds(10)).until(() -> gated.permits.availablePermits() == 0 && gated.permits.hasQueuedThreads());
      runner.suspend();
      gated.permits.release(1);
      await().atMost(Duration.ofSeconds(10)).until(() -> !gated.permits.hasQueuedThreads());
      runner.vacate();
      await().atMost(Duration.ofSeconds(10)).until(() -> runner.pending() == 0);
    }
    assertEquals(1, r.pieces.size(), r.pieces.toString());
    assertEquals(40, r.pieces.get(0).getEnd(), "four steps of ten units, the last two after the visit");
    assertFalse(r.pieces.get(0).getFinal());
  }

  @Test
  void aWorkloadWithNoMeasuredSpeedIsComputedInOneStepPerPiece() {
    GatedWorkload gated = new GatedWorkload();
    RecordingReporter r = new RecordingReporter();
    try (ChunkRunner runner = new ChunkRunner(Workloads.of(gated), 1, 1, 0, Map.of())) {
      gated.permits.release(2);
      runner.assign(assign("gated", 1_000, 1_000_000_000_000L, 500_000_000_000L), NO_FLOW, r);
      await().atMost(Duration.ofSeconds(10)).until(() -> r.pieces.size() == 2);
    }
    assertEquals(List.of(500_000_000_000L, 1_000_000_000_000L), r.pieces.stream().map(Piece::getEnd).toList());
  }

  @Test
  void inputIsCutAtTheCheckpointsWhateverTheSlices() {
    byte[] text = "a\nbb\nccc\ndddd\n".getBytes(StandardCharsets.UTF_8);
    RecordingReporter r = new RecordingReporter();
    try (ChunkRunner runner = new ChunkRunner(Workloads.of(), 1, 1, 0, Map.of())) {
      Assign a = Assign.newBuilder().setJobId("j").setChunkId(1).setWorkload("wc").putParams("file", "x")
          .setStart(0).setEnd(text.length).addCheckpoints(5).setDataBytes(text.length).build();
      runner.assign(a, NO_FLOW, r);
      runner.data("j", 1, io.netty.buffer.Unpooled.wrappedBuffer(text, 0, 3), System.nanoTime());
      runner.data("j", 1, io.netty.buffer.Unpooled.wrappedBuffer(text, 3, text.length - 3), System.nanoTime());
      await().atMost(Duration.ofSeconds(10)).until(() -> r.pieces.size() == 2);
    }
    assertEquals(5, r.pieces.get(0).getEnd());
    ByteBuffer first = ByteBuffer.wrap(r.pieces.get(0).getResult().toByteArray());
    assertEquals(2, first.getLong());
    assertEquals(5, first.getLong());
    ByteBuffer second = ByteBuffer.wrap(r.pieces.get(1).getResult().toByteArray());
    assertEquals(2, second.getLong());
    assertEquals(text.length - 5, second.getLong());
  }

  @Test
  void aComputationThatThrowsIsReportedAsAFailedChunk() {
    RecordingReporter r = new RecordingReporter();
    try (ChunkRunner runner = new ChunkRunner(Workers.workloads(getClass().getClassLoader(), Set.of("true")), 1, 1, 0, Map.of())) {
      runner.assign(Assign.newBuilder().setJobId("j").setChunkId(1).setWorkload("exec").putParams("command", "rm -rf /")
          .putParams("to", "1").setStart(0).setEnd(1).build(), NO_FLOW, r);
      await().atMost(Duration.ofSeconds(10)).until(() -> !r.failures.isEmpty());
    }
    assertTrue(r.failures.get(0).contains("'rm' is not allowed on this worker"), r.failures.get(0));
    assertTrue(r.pieces.isEmpty());
  }

  /** A user's program that fails is one WARN line on the worker, with no stack trace: not a bug of Gleaner's. */
  @Test
  void aFailingProgramIsOneWarningWithoutAStackTrace() {
    ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(
        ChunkRunner.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
        new ch.qos.logback.core.read.ListAppender<>();
    lines.start();
    logger.addAppender(lines);
    RecordingReporter r = new RecordingReporter();
    try (ChunkRunner runner = new ChunkRunner(Workers.workloads(getClass().getClassLoader(), Set.of("false")), 1, 1, 0,
        Map.of())) {
      runner.assign(Assign.newBuilder().setJobId("j").setChunkId(1).setWorkload("exec").putParams("command", "false")
          .putParams("to", "1").setStart(0).setEnd(1).build(), NO_FLOW, r);
      await().atMost(Duration.ofSeconds(10)).until(() -> !r.failures.isEmpty());
    } finally {
      logger.detachAppender(lines);
    }
    assertTrue(r.failures.get(0).matches("exec: \\S*false exited with status 1"), r.failures.get(0));
    List<ch.qos.logback.classic.spi.ILoggingEvent> failed = lines.list.stream()
        .filter(e -> e.getFormattedMessage().startsWith("chunk j#1 failed")).toList();
    assertEquals(1, failed.size(), lines.list.toString());
    assertEquals(ch.qos.logback.classic.Level.WARN, failed.get(0).getLevel());
    assertEquals(null, failed.get(0).getThrowableProxy(), "no stack trace");
  }

  @Test
  void aResultOverTheMastersResultLimitFailsItsChunkInsteadOfVanishing() {
    RecordingReporter r = new RecordingReporter();
    try (ChunkRunner runner = new ChunkRunner(Workers.workloads(getClass().getClassLoader(), Set.of("head")), 1, 1, 0,
        Map.of(), 4096)) {
      runner.assign(Assign.newBuilder().setJobId("j").setChunkId(1).setWorkload("exec")
          .putParams("command", "head -c 5000 /dev/zero").putParams("to", "1").setStart(0).setEnd(1).build(), NO_FLOW, r);
      await().atMost(Duration.ofSeconds(10)).until(() -> !r.failures.isEmpty());
    }
    // the program's stdout is buffered up to the master's limit only, and the chunk fails naming it
    assertTrue(r.failures.get(0).contains("exec: ") && r.failures.get(0).contains("wrote more than 4096 bytes to stdout,"
        + " over the master's limit for one piece (gleaner master --max-result-mib)"), r.failures.get(0));
    assertTrue(r.pieces.isEmpty());
  }

  /** The exec output a piece may have is the master's limit, whatever it is: 66 MiB under a 70 MiB limit arrives whole. */
  @Test
  void anExecResultUpToTheMastersLimitIsKeptWholeAboveTheOld64MibCap() {
    RecordingReporter r = new RecordingReporter();
    long bytes = 66L * 1024 * 1024;
    try (ChunkRunner runner = new ChunkRunner(Workers.workloads(getClass().getClassLoader(), Set.of("head")), 1, 1, 0,
        Map.of(), 70L * 1024 * 1024)) {
      runner.assign(Assign.newBuilder().setJobId("j").setChunkId(1).setWorkload("exec")
          .putParams("command", "head -c " + bytes + " /dev/zero").putParams("to", "1").setStart(0).setEnd(1).build(),
          NO_FLOW, r);
      await().atMost(Duration.ofSeconds(60)).until(() -> !r.failures.isEmpty() || r.pieces.stream().anyMatch(Piece::getFinal));
    }
    assertEquals(List.of(), r.failures);
    assertEquals(bytes, r.pieces.stream().mapToLong(p -> p.getResult().size()).sum());
  }

  @Test
  void execIsOfferedOnlyWhenSomeProgramIsAllowed() {
    assertFalse(Workers.workloads(getClass().getClassLoader(), Set.of()).has("exec"));
    assertTrue(Workers.workloads(getClass().getClassLoader(), Set.of("sh")).has("exec"));
    assertThrows(IllegalArgumentException.class, () -> new WorkerConfig("h", 1, dev.gleaner.protocol.PeerCredential.sharedSecret(new byte[16]), "w", 0, Workloads.of(), 1,
        Duration.ofMillis(1), Duration.ofMillis(2), 1024, Duration.ofSeconds(1), null, null, 0, 0, 0, null, null, null,
        null, null));
  }
}
