package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.Member;
import dev.gleaner.common.control.state.WorkQueue;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.ChunkPlan;
import java.util.List;

/**
 * What a worker with nothing in hand takes from others, so that no worker idles while work
 * remains: the back of the queue that would take longest to run; failing that, the tail of the
 * running chunk that would finish last (paper 000's B1: the holder is told to stop where the tail
 * starts), or a replica of it from the holder's next piece when the holder is likely to be
 * interrupted first; failing that, a chunk not started by the worker holding most beyond its window.
 * Each is a look-up in the job's {@link dev.gleaner.common.control.state.Queues},
 * {@link dev.gleaner.common.control.state.Finishes} and {@link dev.gleaner.common.control.state.Surplus}.
 */
final class Stealing {
  private final ControlState s;
  private final Handout handout;

  Stealing(ControlState s, Handout handout) {
    this.s = s;
    this.handout = handout;
  }

  /** Gives the idle worker something taken from another; false if nobody has anything to take. */
  boolean take(Member m, double now) {
    return take(m, s.live(), false, now);
  }

  /**
   * As {@link #take(Member, double)}, looking at these jobs in this order; {@code queuedOnly}: only
   * pieces planned for others and not handed out yet (what a worker that still holds chunks may
   * take when its share sends it to a job planned over more workers than serve it).
   */
  boolean take(Member m, List<JobLedger> jobs, boolean queuedOnly, double now) {
    for (JobLedger j : jobs) {
      if (j.active() && j.takes(m) && steal(j, m, now)) {
        return true;
      }
    }
    if (queuedOnly) {
      return false;
    }
    for (JobLedger j : jobs) {
      if (j.active() && j.takes(m) && split(j, m, now)) {
        return true;
      }
    }
    for (JobLedger j : jobs) {
      if (j.active() && j.takes(m) && unload(j, m, now)) {
        return true;
      }
    }
    return false;
  }

  /** Whether an idle worker could split a chunk of the job now. */
  boolean hasSplit(JobLedger j, double now) {
    return splitCandidate(j, now) != null;
  }

  /** Whether an idle worker could take a chunk not started from a worker holding more than the window. */
  boolean hasSurplus(JobLedger j) {
    s.refile();
    return j.surplus.most(null) != null;
  }

  /**
   * Whether the thief's input would cost the owner's more than it saves: the job streams input, the
   * owner's link is what bounds it (its input takes longer per unit than its computing), the thief's
   * link is thinner, and the master's port cannot send to both at once (one port, or an egress their
   * two links do not fit in). Every unit the thief took would then hold the port 1/b(thief) seconds
   * where the owner needed 1/b(owner): the owner ends later, not sooner (paper 001's reason to serve
   * by non-increasing bandwidth). When so, notes it on the thief ({@link Member#heldBack}).
   */
  private boolean wouldHoldThePort(JobLedger j, Member thief, Member owner) {
    if (!j.def.hasInput() || owner == null) {
      return false;
    }
    double bt = s.estimator.plannedBandwidth(thief.id);
    double bo = s.estimator.plannedBandwidth(owner.id);
    double so = s.speed(owner, j);
    if (!(bt < bo) || !(so > 0) || !Double.isFinite(bo) || j.def.bytesPerUnit() / bo < 1 / so) {
      return false;
    }
    if (s.port.mayStart(List.of(bo), bt)) {
      return false;
    }
    // what the views tell of the thief while it idles
    thief.heldBack = new Member.HeldBack(owner.id, bt, bo);
    return true;
  }

  /** The running chunk of the job that would finish last, if later than {@code splitSeconds} from now; else null. */
  Chunk splitCandidate(JobLedger j, double now) {
    s.refile();
    return j.finishes.latest(now, s.config.splitSeconds());
  }

  /** Takes (part of) the back of the queue that would take longest to run; false if all are empty. */
  private boolean steal(JobLedger j, Member m, double now) {
    // each failed attempt drops an item that was already saved, so this ends
    for (int attempts = 0; attempts < 1_000_000; attempts++) {
      Boolean taken = stealOnce(j, m, now);
      if (taken != null) {
        return taken;
      }
    }
    return false;
  }

  /** True if it took something, false if there is nothing to take, null to try again. */
  private Boolean stealOnce(JobLedger j, Member m, double now) {
    WorkQueue longest = j.queues.longest(m.id);
    if (longest == null) {
      return Boolean.FALSE;
    }
    Member victim = s.members.get(longest.owner);
    if (wouldHoldThePort(j, m, victim)) {
      return Boolean.FALSE;
    }
    ChunkPlan last = longest.pollLast();
    ChunkPlan taken = last;
    double rv = s.throughput(victim, j);
    double rm = s.throughput(m, j);
    // what the victim has left (what it holds, what waits for it): the thief takes from its back what
    // makes both end together, so that a thin link or a slow worker does not take a whole piece it
    // would end long after its owner would have; at least a unit, so that nobody idles while work
    // waits (a thief of unknown speed: half the last piece)
    long fair = last.units();
    if (rv > 0 && rm > 0) {
      double left = longest.units() + last.units() + handout.busySeconds(victim, now) * rv;
      fair = Math.max(1, Math.min(last.units(), Math.round(left * rm / (rv + rm))));
    } else if (longest.isEmpty()) {
      fair = last.units() - last.units() / 2;
    }
    if (fair < last.units() && last.units() > 1) {
      long cut = last.end() - fair;
      if (!(rm > 0)) {
        cut = Math.max(cut, last.end() - Handout.probeUnits(j, s.accepting(j)));
      }
      if (cut > last.start() && cut < last.end()) {
        cut = Math.min(last.end(), j.def.align().applyAsLong(cut));
      }
      if (cut > last.start() && cut < last.end()) {
        longest.addLast(JobLedger.part(last.start(), cut, last.checkpoints()));
        taken = JobLedger.part(cut, last.end(), last.checkpoints());
      } else if (rv > 0 && rm > 0) {
        // the alignment left no cut: the whole piece would be more than the thief's share
        longest.addLast(last);
        return Boolean.FALSE;
      }
    }
    WorkQueue mine = j.queue(m.id);
    mine.addFirst(taken);
    ChunkPlan c = handout.fromQueue(j, mine, m, now, handout.poolCap(j, m, now));
    if (c == null) {
      // all of it was saved already, or nothing of it fits this worker
      return mine.isEmpty() ? null : Boolean.FALSE;
    }
    handout.assign(j, m, c, now, false);
    return true;
  }

  /**
   * Splits off the tail of the running chunk that would finish last and gives it to this idle
   * worker (B1); replicates it instead when the holder is likely to be lost before finishing.
   */
  private boolean split(JobLedger j, Member m, double now) {
    Chunk c = splitCandidate(j, now);
    if (c == null || c.worker == m) {
      // (a worker with nothing in hand holds no chunk: the second cannot happen)
      return false;
    }
    if (wouldHoldThePort(j, m, c.worker)) {
      return false;
    }
    double latest = handout.finishSeconds(c, now);
    // the holder's pace, its input's time over its link included: a holder whose link was cut gets
    // through its chunk no faster than its link brings it
    double sh = s.throughput(c.worker, j);
    double sm = s.speed(m, j);
    // the thief's input must still cross its link; the holder's part has mostly crossed already
    double thief = sm > 0 ? s.throughput(m, j) : sh;
    boolean waiting = !c.computing();
    // the holder does [from, x) after `ahead` seconds, the thief [x, end): both finish together
    double from = waiting ? c.cursor : c.position(now, sh);
    double ahead = waiting ? handout.finishSeconds(c, now) - (c.end - c.cursor) / sh : 0;
    double keep = Math.max(0, ((c.end - from) / thief - ahead) / (1 / sh + 1 / thief));
    long x = (long) Math.ceil(from + keep);
    if (!waiting) {
      x = Math.max(x, Math.max(c.cursor + 1, (long) Math.ceil(from + sh * s.config.splitMargin())));
    }
    if (!(sm > 0)) {
      // a worker of unknown speed gets a probe's worth, not a share
      x = Math.max(x, c.end - Handout.probeUnits(j, s.accepting(j)));
    }
    x = Math.max(x, c.cursor);
    if (x > c.cursor && x < c.end) {
      x = Math.min(c.end, j.def.align().applyAsLong(x));
    }
    if (x >= c.end) {
      return false;
    }
    Worker holder = s.estimator.worker(c.worker.id, j.def.workload(), j.def.hasInput(), j.def.bytesPerUnit(),
        j.def.risk(), now);
    double lostFirst = holder == null ? 0 : j.def.risk().interrupted(holder, latest);
    if (!waiting && lostFirst >= s.config.replicateAbove()) {
      // the same units from where the holder's next piece starts, cut at the same checkpoints: the
      // two chunks report identical pieces, and the first commit of each wins
      c.replica = true;
      s.touch(c.worker);
      j.replicated = true;
      handout.assign(j, m, JobLedger.part(c.cursor, c.end, c.checkpoints), now, true);
      return true;
    }
    long oldEnd = c.end;
    if (x == c.cursor && waiting) {
      s.emit(new Action.Cancel(c.worker.id, j.def.id(), c.id, "moved to idle worker " + m.id));
      s.removeChunk(c, now);
    } else {
      c.end = x;
      s.touch(c.worker);
      s.emit(new Action.Truncate(c.worker.id, j.def.id(), c.id, x, true, "its tail goes to idle worker " + m.id));
    }
    handout.assign(j, m, JobLedger.part(x, oldEnd, c.checkpoints), now, false);
    return true;
  }

  /**
   * Takes the chunk the worker holding most beyond the window would start last: a worker that came
   * after the pool ran dry gets work that would otherwise wait behind another worker's window. The
   * holder is told to drop it (it has not started it; if it has, what it reports is discarded).
   */
  private boolean unload(JobLedger j, Member m, double now) {
    s.refile();
    Chunk c = j.surplus.most(m);
    if (c == null || wouldHoldThePort(j, m, c.worker)) {
      return false;
    }
    s.emit(new Action.Cancel(c.worker.id, j.def.id(), c.id, "moved to idle worker " + m.id));
    s.removeChunk(c, now);
    handout.assign(j, m, JobLedger.part(c.cursor, c.end, c.checkpoints), now, false);
    return true;
  }
}
