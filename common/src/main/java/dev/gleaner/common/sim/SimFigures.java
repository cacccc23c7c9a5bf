package dev.gleaner.common.sim;

import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobPhase;

/**
 * What a closed-loop run counts as it goes: the controller's actions carried out, and the workers'
 * time and units (see {@link ClosedLoop.Result} for what each figure means).
 */
final class SimFigures {
  long assigns;
  long truncations;
  long cancels;
  long replans;
  long reroutes;
  double lostUnits;
  double busySeconds;
  double upSeconds;
  double cancelledUnits;
  double savingUnits;
  double longestPieceSeconds;
  /** Units of pieces computed again: the controller had them saved already (a duplicate, or discarded). */
  double duplicateUnits;

  ClosedLoop.Result result(long committed, double end, JobPhase phase, Controller controller, double inProgressUnits) {
    return new ClosedLoop.Result(committed, end, phase, controller, assigns, truncations, cancels, replans, reroutes,
        lostUnits, busySeconds, upSeconds, inProgressUnits, cancelledUnits, savingUnits, longestPieceSeconds);
  }
}
