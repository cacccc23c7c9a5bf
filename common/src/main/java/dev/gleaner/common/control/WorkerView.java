package dev.gleaner.common.control;

import dev.gleaner.common.estimate.Estimate;
import dev.gleaner.common.estimate.Estimator;
import java.util.List;
import java.util.Map;

/**
 * A worker's state and the estimates the planner uses, each with its observation count.
 *
 * @param chunks the chunks it holds, in the order it computes them
 * @param idleBecause with no chunk while work waits: why it took none (a thin link that would hold the
 *     master's port longer than the work's owner); empty otherwise
 */
public record WorkerView(String id, WorkerState state, Map<String, Estimate> speeds, Estimate bandwidth,
    Estimator.Risk risk, List<String> chunks, long unitsDone, int sessions, String idleBecause) {
  /** Its fastest measured speed over the workloads, units/s; 0 before any is known. */
  public double bestSpeed() {
    double best = 0;
    for (Estimate e : speeds.values()) {
      if (e.known()) {
        best = Math.max(best, e.value());
      }
    }
    return best;
  }
}
