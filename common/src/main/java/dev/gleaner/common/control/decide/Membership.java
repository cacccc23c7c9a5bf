package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.Held;
import dev.gleaner.common.control.WorkerInfo;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.Member;
import java.util.List;
import java.util.Map;

/**
 * Workers that join: a new worker, one coming back, or one whose new session replaces one that
 * still looked alive. A worker's session brings what it says of itself (its workloads, its
 * calibrated speeds, its history, when it will surely be gone) and the chunks it kept computing
 * while it was away from this master; its jobs are re-planned, unless the master refused its last
 * session and no piece of it has counted since.
 */
public final class Membership {
  private final ControlState s;
  private final Losses losses;
  private final Restarts restarts;
  private final PlanTriggers triggers;

  Membership(ControlState s, Losses losses, Restarts restarts, PlanTriggers triggers) {
    this.s = s;
    this.losses = losses;
    this.restarts = restarts;
    this.triggers = triggers;
  }

  /**
   * A worker's session started, the worker holding {@code claims}: chunks it kept computing while
   * it was away from this master (a restart, a cut). A claim of a chunk the controller still keeps
   * for this worker is taken up where its acknowledged pieces end (its later pieces follow); any
   * other claim is cancelled, and the worker's reserved chunks it did not claim go to others.
   */
  public void joined(WorkerInfo info, List<Held> claims, double now) {
    Member m = s.members.get(info.id());
    if (m != null && !m.state.down()) {
      // a new session while the old one looked alive: what it claims of its chunks stays with it
      restarts.keepClaimed(m, claims, now);
      losses.lost(info.id(), "replaced by a new session", false, false, false, true, now);
    }
    if (m == null || m.unseen) {
      if (m == null) {
        m = new Member(info, now);
        s.members.put(m.id, m);
      } else {
        m.update(info, now);
        m.unseen = false;
      }
      s.estimator.history(m.id, info.pastInterruptions(), info.pastExposureSeconds());
      s.estimator.pastOutages(m.id, info.pastReturns(), info.pastDowntimeSeconds());
    } else {
      m.update(info, now);
    }
    s.counted(m, 1);
    triggers.joined(now);
    restarts.takeUp(m, claims, now);
    s.estimator.up(m.id, now, info.availableUntil());
    for (Map.Entry<String, Double> e : info.calibrated().entrySet()) {
      s.estimator.calibrated(m.id, e.getKey(), e.getValue());
    }
    s.touch(m);
    s.waiting.wake(m);
    if (!m.refused) {
      triggers.replanFor(m, "worker " + m.id + (m.sessions > 1 ? " returned" : " joined"));
    }
  }
}
