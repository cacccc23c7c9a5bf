package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.estimate.Estimate;
import dev.gleaner.common.plan.Timeline;
import dev.gleaner.common.util.RangeSet;
import java.util.List;
import java.util.Locale;

/**
 * How a job ends: DONE when every unit is committed and every check settled; FAILED; and, at its
 * deadline or when it is cancelled, ENDING first: each chunk being computed is stopped where its
 * worker has reported up to and its worker reports what it computed since as a last piece, the
 * other chunks are cancelled, and once those last pieces are in (or their grace has passed) and
 * nothing is pending any more, DONE_PARTIAL or CANCELLED with the units not done listed.
 */
public final class Endings {
  private final ControlState s;

  Endings(ControlState s) {
    this.s = s;
  }

  /**
   * Ends a running job, keeping what is saved. With a grace, what its workers computed since their
   * last piece is kept too: each chunk being computed is truncated where its worker has reported up
   * to, so the worker stops at the end of its current step and reports what it has as a final
   * piece (as it does when its owner comes back), and the job ends once every such chunk has sent
   * it, or its worker is lost, or the grace has passed, whichever comes first. Chunks not started,
   * checks and chunks of absent workers are cancelled at once; nothing new is handed out. Without
   * a grace, every chunk is cancelled at once; a second cancel without a grace ends the wait.
   *
   * @return false if the job is unknown or has ended
   */
  public boolean cancel(String job, String reason, double graceSeconds, double now) {
    JobLedger j = s.jobs.get(job);
    if (j == null || j.phase.ended()) {
      return false;
    }
    j.cancelled = reason;
    String why = "the job was cancelled: " + reason;
    if (j.phase != JobPhase.ENDING) {
      if (graceSeconds > 0 && j.phase == JobPhase.RUNNING) {
        collect(j, why, now);
        // the job's deadline still holds: what comes after it is not waited for
        j.collectUntil = Math.min(now + graceSeconds, j.def.deadline());
        j.message = String.format(Locale.ROOT, "being cancelled (%s): waiting up to %.0f s for the last pieces of %d"
            + " chunk(s)", reason, j.collectUntil - now, j.chunks.size());
      } else {
        cancelAll(j, why, now);
      }
      j.phase = JobPhase.ENDING;
    } else if (!(graceSeconds > 0) && j.collecting()) {
      j.collectUntil = now;
    }
    settle(j, now);
    return true;
  }

  /** The job fails for a reason outside the controller (the store, the merge). */
  public void fail(String job, String message, double now) {
    JobLedger j = s.jobs.get(job);
    if (j != null && !j.phase.ended()) {
      finish(j, JobPhase.FAILED, message, now);
    }
  }

  /**
   * The job's deadline: as at a cancel with a grace, each chunk being computed is truncated where its
   * worker has reported up to, so that the worker stops at its current step and reports what it
   * computed (a long piece is not lost for being under way at the deadline); the rest is cancelled,
   * and the job ends once those last pieces are in or {@link ControlConfig#DEADLINE_GRACE} (at least
   * three checkpoint round trips) has passed.
   */
  void deadline(JobLedger j, double now) {
    collect(j, "the job's deadline passed", now);
    Estimate eps = s.estimator.eps();
    j.collectUntil = now + Math.max(ControlConfig.DEADLINE_GRACE, eps.known() ? 3 * eps.value() : 0);
    j.phase = JobPhase.ENDING;
    settle(j, now);
  }

  /** Every unit committed and every check settled: DONE; at the deadline, once nothing is pending: DONE_PARTIAL. */
  void endIfDone(JobLedger j, double now) {
    if (j.committed.size() == j.units() && j.checksSettled() && !j.phase.ended()) {
      finish(j, JobPhase.DONE, j.mismatches.isEmpty() ? "" : j.mismatches.size() + " check(s) to note: "
          + String.join("; ", j.mismatches.subList(0, Math.min(3, j.mismatches.size())))
          + (j.mismatches.size() > 3 ? "; ..." : ""), now);
    } else if (j.phase == JobPhase.ENDING && j.pending.isEmpty() && !j.collecting()) {
      endPartial(j, now);
    }
  }

  /**
   * An ending job: once the last pieces of a cancel are in (or their grace has passed), the chunks
   * left are cancelled, and once nothing is pending it ends.
   */
  void settle(JobLedger j, double now) {
    if (j.phase != JobPhase.ENDING) {
      return;
    }
    if (j.collecting()) {
      if (!j.chunks.isEmpty() && now < j.collectUntil) {
        return;
      }
      j.collectUntil = Double.NaN;
      cancelAll(j, (j.cancelled != null ? "the job was cancelled: " + j.cancelled : "the job's deadline passed")
          + " (its last pieces did not come in time)", now);
    }
    if (j.pending.isEmpty()) {
      endPartial(j, now);
    }
  }

  /** The job ends now: its chunks are cancelled and nothing of it is handed out any more. */
  void finish(JobLedger j, JobPhase phase, String message, double now) {
    cancelAll(j, phase == JobPhase.DONE ? "the job is done" : "the job failed", now);
    j.phase = phase;
    j.message = message;
    s.ended(j);
    s.emit(new Action.Finished(j.def.id(), phase, new RangeSet(), message));
  }

  /** Truncates the chunks being computed where their workers have reported up to; cancels the rest. */
  private void collect(JobLedger j, String why, double now) {
    for (Chunk c : List.copyOf(j.chunks.values())) {
      boolean computing = c.check == null && !c.reserved() && !c.worker.state.down()
          && !Double.isNaN(c.startedAt) && c.cursor < c.end;
      if (computing) {
        c.collected = true;
        c.end = c.cursor;
        s.touch(c.worker);
        s.emit(new Action.Truncate(c.worker.id, j.def.id(), c.id, c.cursor, false,
            why + "; its worker reports what it computed up to its current step"));
      } else {
        s.emit(new Action.Cancel(c.worker.id, j.def.id(), c.id, why));
        s.removeChunk(c, now);
      }
    }
    dropPlans(j);
  }

  private void endPartial(JobLedger j, double now) {
    RangeSet notDone = RangeSet.of(j.def.start(), j.def.end());
    notDone.removeAll(j.committed);
    JobPhase phase = j.cancelled != null ? JobPhase.CANCELLED : JobPhase.DONE_PARTIAL;
    String message = String.format(Locale.ROOT, "%s: %d of %d units done, %d not done in %d range(s)",
        j.cancelled != null ? "cancelled (" + j.cancelled + ")" : "deadline reached", j.committed.size(), j.units(),
        notDone.size(), notDone.rangeCount());
    j.phase = phase;
    j.message = message;
    s.ended(j);
    s.emit(new Action.Finished(j.def.id(), phase, notDone, message));
  }

  private void cancelAll(JobLedger j, String why, double now) {
    for (Chunk c : List.copyOf(j.chunks.values())) {
      s.emit(new Action.Cancel(c.worker.id, j.def.id(), c.id, why));
      s.removeChunk(c, now);
    }
    dropPlans(j);
  }

  /** Nothing of the job is left to hand out. */
  private static void dropPlans(JobLedger j) {
    j.queues.clear();
    j.pool.clear();
    j.unplanned.clear();
    j.checks.clear();
    j.finishes.clear();
    j.surplus.clear();
    j.replanDue = false;
    // nothing planned remains to be drawn
    j.timeline = Timeline.EMPTY;
  }
}
