package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;

/**
 * What time passing decides: memories to store, reserved chunks whose grace is over, leases run
 * out, checks nobody may take, set-aside workers taken back when nobody else is left, deadlines,
 * the last pieces of an ending job waited for long enough, and plans whose figures drifted.
 */
public final class Ticks {
  private final ControlState s;
  private final Memories memories;
  private final Restarts restarts;
  private final Losses losses;
  private final Verification verification;
  private final Endings endings;
  private final PlanTriggers triggers;

  Ticks(ControlState s, Memories memories, Restarts restarts, Losses losses, Verification verification,
      Endings endings, PlanTriggers triggers) {
    this.s = s;
    this.memories = memories;
    this.restarts = restarts;
    this.losses = losses;
    this.verification = verification;
    this.endings = endings;
    this.triggers = triggers;
  }

  /** Time passed: see the class comment. */
  public void tick(double now) {
    memories.remember(now, false);
    restarts.expire(now);
    losses.expireLeases(now);
    verification.settleStuck(now);
    for (JobLedger j : s.live()) {
      if (j.active() && !j.setAside.isEmpty() && s.accepting(j) == 0) {
        // only set-aside workers are left: they take the job again rather than let it stall
        j.setAside.clear();
        s.workChanged = true;
      }
    }
    for (JobLedger j : s.live()) {
      if (j.phase.open() && j.def.deadline() <= now) {
        endings.deadline(j, now);
      } else if (j.collecting()) {
        endings.settle(j, now);
      } else {
        triggers.drifted(j, now);
      }
    }
    s.workChanged = true;
  }
}
