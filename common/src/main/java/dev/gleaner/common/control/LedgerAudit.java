package dev.gleaner.common.control;

import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.util.RangeSet;

/** The invariant of a job's ledger, checked by tests and the simulator's harnesses: every unit is somewhere once. */
final class LedgerAudit {
  private LedgerAudit() {}

  /** What is wrong with the job's ledger, or null if it is consistent (see {@link ControllerViews#checkLedger}). */
  static String problem(JobLedger j) {
    for (long[] r : j.pending.ranges()) {
      if (j.committed.intersects(r[0], r[1])) {
        return "units both committed and pending in [" + r[0] + ", " + r[1] + ")";
      }
    }
    if (!j.phase.open()) {
      return null;
    }
    RangeSet saved = j.savedSet();
    RangeSet held = j.held();
    RangeSet queued = j.queued();
    RangeSet missing = RangeSet.of(j.def.start(), j.def.end());
    missing.removeAll(saved);
    missing.removeAll(held);
    missing.removeAll(queued);
    if (!missing.isEmpty()) {
      return "units nobody has: " + missing;
    }
    // queued units may be saved already (a holder that missed a truncation saved them first): they
    // are dropped when taken; but nobody may hold units that are still queued, replicas aside
    if (!j.replicated) {
      for (long[] r : queued.ranges()) {
        if (held.intersects(r[0], r[1])) {
          return "queued units in [" + r[0] + ", " + r[1] + ") are also held";
        }
      }
    }
    return null;
  }
}
