package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.Verdict;
import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.Member;
import dev.gleaner.common.plan.ChunkPlan;
import java.util.List;

/**
 * Pieces that come in: a piece counts once. The first commit of a range wins, a range already
 * saved is a duplicate, and a piece that overlaps saved units only in part is discarded (its
 * unsaved units go back to the queues); a chunk whose rest is all saved by others is cancelled.
 * New units are pending until the body says they are durable; a body that could not make them so,
 * or could not record a chunk, gives them back to the queues.
 */
public final class Commits {
  private final ControlState s;
  private final Rerouting rerouting;
  private final Endings endings;
  private final Verification verification;
  private final PlanTriggers triggers;

  Commits(ControlState s, Rerouting rerouting, Endings endings, Verification verification, PlanTriggers triggers) {
    this.s = s;
    this.rerouting = rerouting;
    this.endings = endings;
    this.verification = verification;
    this.triggers = triggers;
  }

  /**
   * Part of the worker's next piece of the chunk has arrived, or waits at the master for memory to
   * be joined in: the worker is reporting, so the chunk's lease runs from now. (A large result on a
   * slow link, or one waiting its turn, is not a worker that stopped.)
   */
  public void reporting(String worker, String job, long chunkId, double now) {
    JobLedger j = s.jobs.get(job);
    Chunk c = j == null ? null : j.chunks.get(chunkId);
    if (c != null && c.worker.id.equals(worker) && !Double.isNaN(c.progressAt)) {
      c.progressAt = Math.max(c.progressAt, now);
      s.touch(c.worker);
    }
  }

  /**
   * A piece arrived, with whether its worker marked it final (the last of its chunk: where the chunk
   * ends, or where a truncation made it stop). On {@link Verdict#COMMIT} the body makes it durable,
   * acknowledges it, then reports it {@link #committed}; on {@link Verdict#DUPLICATE} and
   * {@link Verdict#DISCARD} it acknowledges it and counts nothing; on {@link Verdict#REFUSE} it
   * refuses the worker's session.
   */
  public Verdict piece(String worker, String job, long chunkId, long start, long end, boolean last, double now) {
    JobLedger j = s.jobs.get(job);
    if (j == null) {
      return Verdict.REFUSE;
    }
    Chunk c = j.chunks.get(chunkId);
    if (c == null) {
      if (!worker.equals(j.ended.get(chunkId))) {
        return Verdict.REFUSE;
      }
      // a duplicate is acknowledged as saved: only units already durable are (pending ones may still fail)
      return end > start && j.committed.containsAll(start, end) ? Verdict.DUPLICATE : Verdict.DISCARD;
    }
    if (!c.worker.id.equals(worker) || end <= start || start < c.start || end > c.assignedEnd) {
      return Verdict.REFUSE;
    }
    if (c.check != null) {
      return verification.piece(j, c, start, end, now);
    }
    if (end <= c.cursor) {
      // sent again (a new session resends what was not acknowledged): a duplicate once durable
      return j.committed.containsAll(start, end) ? Verdict.DUPLICATE : Verdict.DISCARD;
    }
    if (start != c.cursor) {
      return Verdict.REFUSE;
    }
    c.started(now);
    c.cursor = end;
    c.progressAt = now;
    s.touch(c.worker);
    Verdict v;
    if (j.committed.containsAll(start, end)) {
      v = Verdict.DUPLICATE;
    } else if (j.savedAny(start, end)) {
      v = Verdict.DISCARD;
    } else {
      j.pending.add(start, end);
      v = Verdict.COMMIT;
    }
    // a chunk collected at a cancel ends with its final piece: one sent before the truncation arrived
    // may already reach past its new end
    if (c.cursor >= c.end && (!c.collected || last)) {
      s.removeChunk(c, now);
    }
    if (v == Verdict.DISCARD && j.phase != JobPhase.ENDING) {
      rerouting.rerouteOrphans(j, worker, List.of(new ChunkPlan(start, end, new long[0])), null, now);
    }
    endings.settle(j, now);
    return v;
  }

  /**
   * A piece the controller said to commit is durable.
   *
   * @param computeSeconds the seconds the worker spent computing it (0 if unknown)
   */
  public void committed(String worker, String job, long chunkId, long start, long end, double computeSeconds,
      double now) {
    JobLedger j = s.jobs.get(job);
    if (j == null) {
      return;
    }
    j.pending.remove(start, end);
    long added = j.committed.add(start, end);
    if (added > 0) {
      j.unitsByWorker.merge(worker, added, Long::sum);
      Member m = s.members.get(worker);
      if (m != null) {
        m.unitsDone += added;
        if (m.refused && m.up()) {
          // a worker refused before does real work again: its share is planned now
          m.refused = false;
          triggers.replanFor(m, "worker " + m.id + " returned");
        }
      }
    }
    if (computeSeconds > 0) {
      s.estimator.computed(worker, j.def.workload(), end - start, computeSeconds);
    }
    if (j.replicated) {
      cancelCovered(j, now);
    }
    verification.committed(j, worker, start, end, added);
    endings.endIfDone(j, now);
  }

  /**
   * Whether the job ends DONE, with no message, as soon as the pieces it waits to hear are durable
   * are reported {@link #committed}, if nothing else happens first: every unit is committed or
   * pending, none is checked, and it has not ended. A body that writes those pieces may write the
   * job's end in the same transaction.
   */
  public boolean endsWhenPendingCommit(String job) {
    JobLedger j = s.jobs.get(job);
    return j != null && j.phase.open() && j.def.verify() == 0 && !j.pending.isEmpty()
        && j.mismatches.isEmpty() && j.checksSettled() && j.committed.size() + j.pending.size() == j.units();
  }

  /**
   * The body could not make a piece durable (a full disk, a failing store): it is not acknowledged
   * and not counted, its units go back to the queues, and the job goes on (saying why) instead of
   * failing: a store that can write again takes the next pieces.
   */
  public void commitFailed(String worker, String job, long chunkId, long start, long end, String why, double now) {
    JobLedger j = s.jobs.get(job);
    if (j == null) {
      return;
    }
    j.pending.remove(start, end);
    s.storeHoldUntil = now + Math.max(1, s.config.replanInterval());
    if (j.phase.open()) {
      j.message = "the store could not save a piece (" + why + "); its units are queued again";
      rerouting.rerouteOrphans(j, worker, List.of(new ChunkPlan(start, end, new long[0])), null, now);
    }
    endings.endIfDone(j, now);
  }

  /**
   * The body could not record a chunk before sending it: it is not sent, and its units go back to
   * the queues; {@code why} goes in the job's message.
   */
  public void assignFailed(String worker, String job, long chunkId, String why, double now) {
    JobLedger j = s.jobs.get(job);
    Chunk c = j == null ? null : j.chunks.get(chunkId);
    if (c == null || !c.worker.id.equals(worker)) {
      return;
    }
    s.removeChunk(c, now);
    s.storeHoldUntil = now + Math.max(1, s.config.replanInterval());
    if (c.check != null) {
      j.checks.addFirst(c.check);
      s.workChanged = true;
    } else if (j.phase.open()) {
      j.message = "the store could not record a chunk (" + why + "); its units are queued again";
      rerouting.rerouteOrphans(j, worker,
          List.of(JobLedger.part(c.cursor, Math.max(c.cursor, c.end), c.checkpoints)), null, now);
    }
  }

  /** Cancels every live chunk whose units still to come are all saved by another chunk. */
  private void cancelCovered(JobLedger j, double now) {
    for (Chunk c : List.copyOf(j.chunks.values())) {
      if (c.check == null && c.cursor < c.end && j.saved(c.cursor, c.end)) {
        s.emit(new Action.Cancel(c.worker.id, j.def.id(), c.id, "another chunk saved its units first"));
        s.removeChunk(c, now);
      }
    }
  }
}
