package dev.gleaner.master.loop;

import dev.gleaner.common.control.Verdict;
import dev.gleaner.common.port.PortRule;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.master.store.DissentTable;
import dev.gleaner.master.store.PieceTable;
import dev.gleaner.master.store.StoreErrors;
import dev.gleaner.protocol.ChunkFailed;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Piece;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pieces coming in at the loop: the controller says whether a piece counts; new units are made
 * durable, and only then acknowledged and reported committed; duplicates and pieces that do not
 * count are acknowledged as such; a check's result is compared with the committed one in the
 * store; a piece that is not the next of a chunk its worker holds ends the session. A worker's
 * failures and its result that could not be read count against the piece. Confined to the
 * control thread, but for {@link #malformed}, which the connections' threads call first.
 */
final class PieceIntake {
  // one logger for the whole loop: what an operator reads and filters is the control loop's
  private static final Logger log = LoggerFactory.getLogger(ControlLoop.class);

  private final Books b;
  private final ControlThread thread;

  PieceIntake(Books b, ControlThread thread) {
    this.b = b;
    this.thread = thread;
  }

  /**
   * Why a piece's result cannot be merged into its job's, or null when it can: checked on the
   * connection's thread, not the loop's (reading a large result is not the loop's work).
   */
  static String malformed(Workload workload, Piece p, byte[] result, String worker) {
    try {
      workload.merge(workload.empty(), result);
      return null;
    } catch (RuntimeException e) {
      log.warn("job {}: piece [{}, {}) of chunk {} from worker {} has a result {} cannot read", p.getJobId(),
          p.getStart(), p.getEnd(), p.getChunkId(), worker, workload.name(), e);
      return "piece [" + p.getStart() + ", " + p.getEnd() + ") of chunk " + p.getChunkId() + " of job '"
          + p.getJobId() + "' has a malformed " + workload.name() + " result (" + result.length + " bytes): "
          + e.getMessage();
    }
  }

  /** A piece arrived whose result is readable ({@code result}: its bytes, copied once off the wire). */
  void piece(WorkerLink link, Piece p, byte[] result) {
    String id = link.workerId();
    if (b.links.get(id) != link) {
      return;
    }
    double now = b.clock.now();
    Verdict v = b.controller.piece(id, p.getJobId(), p.getChunkId(), p.getStart(), p.getEnd(), p.getFinal(), now);
    switch (v) {
      case COMMIT -> commit(link, p, result);
      case DUPLICATE -> {
        b.metrics.piecesDuplicate.increment();
        link.ack(p.getJobId(), p.getChunkId(), p.getEnd(), true);
      }
      case DISCARD -> {
        b.metrics.piecesDiscarded.increment();
        log.info("job {}: piece [{}, {}) of chunk {} from worker {} does not count (its chunk was cancelled,"
            + " the job ended, or another chunk saved part of it first)", p.getJobId(), p.getStart(), p.getEnd(),
            p.getChunkId(), id);
        link.ack(p.getJobId(), p.getChunkId(), p.getEnd(), false);
      }
      case CHECK, TIE_BREAK -> compare(link, p, result, v == Verdict.TIE_BREAK);
      case REFUSE -> link.refuse(Error.Code.UNKNOWN_CHUNK, "piece [" + p.getStart() + ", " + p.getEnd()
          + ") of chunk " + p.getChunkId() + " of job '" + p.getJobId() + "' is not the next piece of a chunk"
          + " assigned to worker " + id);
    }
  }

  /**
   * A part of the worker's next piece of a chunk arrived, or waits at the master for memory: its
   * lease runs from now.
   */
  void reporting(WorkerLink link, String jobId, long chunkId) {
    if (b.links.get(link.workerId()) == link) {
      b.controller.reporting(link.workerId(), jobId, chunkId, b.clock.now());
    }
  }

  /**
   * A result of this worker refused before it counted (malformed, or its parts over the limit or out
   * of order): a failure of that piece, so that a piece refused on every try fails the job instead of
   * being handed out for ever.
   */
  void badResult(WorkerLink link, String jobId, long chunkId, String why) {
    if (b.links.get(link.workerId()) == link) {
      b.controller.badResult(link.workerId(), jobId, chunkId, why, b.clock.now());
    }
  }

  /**
   * A chunk's input arrived whole: a measure of the worker's link when the stream did not share a
   * bound egress ({@code clean}); a share of the egress is a measure only while nothing better is known.
   */
  void inputArrived(WorkerLink link, String jobId, long chunkId, long bytes, double seconds, boolean clean,
      boolean own, PortRule port) {
    b.controller.port(port);
    String id = link.workerId();
    if (b.links.get(id) == link && bytes > 0 && seconds > 0
        && (clean || !b.controller.estimates().bandwidth(id).known())) {
      b.controller.streamed(id, jobId, chunkId, bytes, seconds, clean && own, b.clock.now());
    }
  }

  /** The worker's link was seen cut while a transfer crossed it: its estimate restarts from the new rate. */
  void linkCut(WorkerLink link, double bytesPerSecond, double seconds) {
    if (b.links.get(link.workerId()) == link) {
      b.controller.linkCut(link.workerId(), bytesPerSecond, seconds, b.clock.now());
    }
  }

  /** The worker cannot compute a chunk: tried elsewhere, and a piece failing everywhere fails the job. */
  void chunkFailed(WorkerLink link, ChunkFailed f) {
    if (b.links.get(link.workerId()) == link) {
      log.warn("job {}: worker {} could not compute chunk {}: {}", f.getJobId(), link.workerId(), f.getChunkId(),
          f.getMessage());
      b.controller.chunkFailed(link.workerId(), f.getJobId(), f.getChunkId(), f.getMessage(), b.clock.now());
    }
  }

  /** New units: made durable in this pass, then acknowledged and reported committed. */
  private void commit(WorkerLink link, Piece p, byte[] result) {
    long t0 = b.clock.nanos();
    String id = link.workerId();
    MasterJob job = b.jobs.get(p.getJobId());
    if (job != null) {
      b.committing.add(job);
    }
    b.store.submit(PieceTable.commitPiece(p.getJobId(), p.getChunkId(), p.getStart(), p.getEnd(), p.getFinal(), id,
        result, b.clock.epochMillis())).whenComplete((isNew, err) -> thread.then(() -> {
          if (err != null) {
            // not acknowledged, not counted: its units are queued again and the job goes on
            Throwable cause = StoreErrors.cause(err);
            String why = StoreErrors.reason(cause);
            b.storeProblems.error("piece", "job " + p.getJobId() + ": cannot save piece [" + p.getStart() + ", "
                + p.getEnd() + ") from worker " + id + "; its units are queued again: " + why, cause);
            b.metrics.storeFailures.increment();
            b.controller.commitFailed(id, p.getJobId(), p.getChunkId(), p.getStart(), p.getEnd(), why,
                b.clock.now());
            return;
          }
          long nanos = b.clock.nanos() - t0;
          if (job != null) {
            job.piecesCommitted++;
          }
          b.metrics.pieceCommit.record(nanos, TimeUnit.NANOSECONDS);
          b.controller.committed(id, p.getJobId(), p.getChunkId(), p.getStart(), p.getEnd(),
              p.getComputeNanos() / 1e9, nanos / 1e9, b.clock.now());
          b.metrics.unitsCommitted.increment(p.getEnd() - p.getStart());
          if (p.getFinal()) {
            b.metrics.chunksCompleted.increment();
          }
          link.ack(p.getJobId(), p.getChunkId(), p.getEnd(), true);
        }));
  }

  /** A check's result is compared with the committed one (and a tie-break's with the dissent) in the store. */
  private void compare(WorkerLink link, Piece p, byte[] result, boolean tieBreak) {
    String id = link.workerId();
    b.store.submit(DissentTable.compareCheck(p.getJobId(), p.getStart(), p.getEnd(), id, result, tieBreak))
        .whenComplete((r, err) -> thread.then(() -> {
          if (err != null) {
            log.error("job {}: cannot compare a check of [{}, {}): {}", p.getJobId(), p.getStart(), p.getEnd(),
                err.getMessage(), err);
            b.controller.fail(p.getJobId(), "the store failed: " + err.getMessage(), b.clock.now());
            return;
          }
          b.metrics.piecesChecked.increment();
          if (!r[0]) {
            b.metrics.checkMismatches.increment();
            log.warn("job {}: {} of units [{}, {}) from worker {} differs from the committed result{}", p.getJobId(),
                tieBreak ? "the tie-break" : "the check", p.getStart(), p.getEnd(), id,
                !tieBreak ? "; a third worker decides" : r[1] ? "; it agrees with the dissent, which replaces it"
                    : " and from the dissent");
          }
          b.controller.checked(id, p.getJobId(), p.getChunkId(), r[0], r[1], b.clock.now());
          link.ack(p.getJobId(), p.getChunkId(), p.getEnd(), true);
        }));
  }
}
