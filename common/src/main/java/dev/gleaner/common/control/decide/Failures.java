package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.plan.ChunkPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Pieces that could not be computed (the program failed, not the computer, or its result could
 * not be read): the piece is tried again on another worker; a piece that failed
 * {@code maxAttempts} times fails the job with the last message, and a worker that failed twice on
 * a job gets none of it any more (as Work Queue and HTCondor set a failing host aside), unless it
 * is the last one that takes the job.
 */
public final class Failures {
  private final ControlState s;
  private final Rerouting rerouting;
  private final Endings endings;
  private final Verification verification;
  private final PlanTriggers triggers;

  Failures(ControlState s, Rerouting rerouting, Endings endings, Verification verification, PlanTriggers triggers) {
    this.s = s;
    this.rerouting = rerouting;
    this.endings = endings;
    this.verification = verification;
    this.triggers = triggers;
  }

  /** The worker could not compute a chunk: its next piece is tried again elsewhere (see the class comment). */
  public void chunkFailed(String worker, String job, long chunkId, String message, double now) {
    Chunk c = failed(worker, job, chunkId, message, now);
    if (c == null) {
      return;
    }
    JobLedger j = c.job;
    s.emit(new Action.Cancel(worker, job, c.id, "its computation failed"));
    s.removeChunk(c, now);
    List<ChunkPlan> rest = new ArrayList<>();
    rest.add(JobLedger.part(c.cursor, Math.max(c.cursor, c.end), c.checkpoints));
    boolean othersLeft = s.accepting(j) - (c.worker.up() && j.takes(c.worker) ? 1 : 0) > 0;
    // the last worker that takes the job is never set aside: its failures count toward maxAttempts
    if (j.failuresOf(worker) >= 2 && othersLeft && j.setAside.add(worker)) {
      // its other chunks and its queue of this job go to others too
      rest.addAll(rerouting.takeBack(c.worker, j, "worker set aside from this job after failures", now));
      j.message = "worker " + worker + " was set aside after " + j.failuresOf(worker) + " failures: " + message;
      triggers.replanLater(j, "worker " + worker + " set aside");
    }
    rerouting.rerouteOrphans(j, worker, rest, worker, now);
  }

  /**
   * The worker sent a result of a chunk that cannot be read; the body ends its session. It counts
   * as a failure of that piece, as {@link #chunkFailed} does, so a piece whose result is malformed
   * everywhere fails its job instead of being tried forever.
   */
  public void badResult(String worker, String job, long chunkId, String message, double now) {
    failed(worker, job, chunkId, message, now);
  }

  /**
   * Counts a failure of the chunk's next piece; when that piece has failed {@code maxAttempts} times
   * the job fails with the last message, and this returns true.
   */
  boolean countFailure(Chunk c, String message, double now) {
    JobLedger j = c.job;
    long cut = c.nextCut();
    j.failures.add(new JobLedger.Failure(c.cursor, cut, c.worker.id, message));
    List<JobLedger.Failure> here = j.failuresWithin(c.cursor, cut);
    if (here.size() < s.config.maxAttempts()) {
      return false;
    }
    String who = here.stream().map(JobLedger.Failure::worker).distinct().collect(Collectors.joining(", "));
    endings.finish(j, JobPhase.FAILED, "units [" + c.cursor + ", " + cut + ") failed " + here.size() + " times (on "
        + who + "); the last error, on " + c.worker.id + ": " + message, now);
    return true;
  }

  /**
   * A chunk of this worker failed (its computation, or its result): a check goes back to the queue
   * for another worker (its units are committed), anything else counts as a failure of its next
   * piece. Returns the chunk when it is still to be dealt with (neither a check nor the job's end);
   * null when there is nothing more to do (no such live chunk, a check, the job failed).
   */
  private Chunk failed(String worker, String job, long chunkId, String message, double now) {
    JobLedger j = s.jobs.get(job);
    Chunk c = j == null || j.phase.ended() ? null : j.chunks.get(chunkId);
    if (c == null || !c.worker.id.equals(worker)) {
      // a chunk that had already ended (cancelled, split, covered): nothing of it is outstanding
      return null;
    }
    if (c.check != null) {
      verification.requeue(j, c, worker, now);
      return null;
    }
    return countFailure(c, message, now) ? null : c;
  }
}
