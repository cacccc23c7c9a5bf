package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.WorkerState;
import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.Member;
import dev.gleaner.common.control.state.WorkQueue;
import dev.gleaner.common.plan.ChunkPlan;
import java.util.List;
import java.util.Locale;

/**
 * Workers that stop taking work: one draining (its queue goes to others, it finishes what it
 * holds), one lost, gone away or refused (what it held and had queued that nobody else has
 * follows the recovery lists, then its jobs are re-planned), and one whose lease ran out
 * (heartbeats prove a process, not progress: a worker computing a chunk without a piece for longer
 * than its lease loses its session and its work, as if it had been interrupted).
 */
public final class Losses {
  private final ControlState s;
  private final Rerouting rerouting;
  private final Endings endings;
  private final Failures failures;
  private final PlanTriggers triggers;

  Losses(ControlState s, Rerouting rerouting, Endings endings, Failures failures, PlanTriggers triggers) {
    this.s = s;
    this.rerouting = rerouting;
    this.endings = endings;
    this.failures = failures;
    this.triggers = triggers;
  }

  /** The worker finishes what it holds and takes nothing new; its queued work goes to others. */
  public void draining(String id, double now) {
    Member m = s.members.get(id);
    if (m == null || !m.up()) {
      return;
    }
    s.counted(m, -1);
    m.state = WorkerState.DRAINING;
    s.waiting.forget(m);
    for (JobLedger j : s.live()) {
      WorkQueue q = j.queues.remove(id);
      if (q != null && !j.phase.ended()) {
        rerouting.rerouteOrphans(j, id, q.toList(), id, now);
        triggers.replanLater(j, "worker " + id + " is draining");
      }
    }
  }

  /**
   * The worker is gone: what it held and had queued that nobody else has follows the recovery
   * lists, then its jobs are re-planned.
   *
   * @param interrupted whether it counts as an interruption in its history (a drain does not)
   * @param crash whether what it computed since its last piece is lost with it (an owner's return it
   *     vacated at is an interruption, not a crash)
   * @param away whether it stays connected, taking nothing (it vacated): AWAY, else GONE
   * @param replan whether its jobs are re-planned (not for a worker the master refused)
   */
  public void lost(String id, String why, boolean interrupted, boolean crash, boolean away, boolean replan,
      double now) {
    Member m = s.members.get(id);
    if (m == null || m.state == WorkerState.GONE) {
      return;
    }
    if (m.state == WorkerState.AWAY) {
      // it held nothing since it vacated, and its history counted the interruption then
      m.state = away ? WorkerState.AWAY : WorkerState.GONE;
      return;
    }
    if (m.up()) {
      s.counted(m, -1);
    }
    m.state = away ? WorkerState.AWAY : WorkerState.GONE;
    s.waiting.forget(m);
    s.estimator.down(id, now, interrupted, crash);
    for (JobLedger j : s.live()) {
      List<ChunkPlan> lost = rerouting.takeBack(m, j, null, now);
      if (!lost.isEmpty() && j.phase.open()) {
        rerouting.rerouteOrphans(j, id, lost, id, now);
      }
      if (j.collecting()) {
        endings.settle(j, now);
      }
    }
    for (JobLedger j : s.live()) {
      if (j.active() && replan) {
        triggers.replanLater(j, "worker " + id + " lost: " + why);
      }
    }
  }

  /**
   * The master ended the worker's session for a request it may not make: as a loss, but not an
   * interruption, and re-planning nothing, now or at its next joins, until a piece of it counts.
   */
  public void refused(String id, String why, double now) {
    Member m = s.members.get(id);
    if (m != null) {
      m.refused = true;
    }
    lost(id, why, false, false, false, false, now);
  }

  /**
   * A worker computing a chunk without a piece for longer than its lease loses its session and its
   * work, as if it had been interrupted; the piece it hung on counts as a failure of that piece.
   */
  void expireLeases(double now) {
    // losing a worker changes a member's state, never the map
    for (Member m : s.members.values()) {
      if (m.state.down() || m.chunks.isEmpty()) {
        continue;
      }
      Chunk c = m.chunks.get(0);
      double silent = now - c.progressAt;
      // no lease is shorter than the floor: most workers are not looked up at all
      if (!(silent > s.config.leaseFloor()) || !c.job.phase.open()) {
        continue;
      }
      double lease = s.lease(m, c);
      if (silent > lease) {
        String why = String.format(Locale.ROOT, "no piece of chunk %s for %.0f s (its lease: %.0f s)", c, silent,
            lease);
        s.emit(new Action.Drop(m.id, why));
        // a piece that hangs everywhere (a program that never ends) must not be tried forever
        if (c.check == null) {
          failures.countFailure(c, why, now);
        }
        lost(m.id, why, true, true, false, true, now);
      }
    }
  }
}
