package dev.gleaner.common.estimate;

import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.model.Worker;

/**
 * The estimator's figures, read only: what a body shows and tests check. Observations go to the
 * controller as events, which feeds its {@link Estimator}; nobody else changes it.
 */
public interface Estimates {
  /** A worker's speed for a workload, units/s on all its cores, or unknown. */
  Estimate speed(String worker, String workload);

  /** A worker's measured bandwidth from the master, bytes/s, or unknown. */
  Estimate bandwidth(String worker);

  /** A worker's risk at {@code now} (controller time). */
  Estimator.Risk risk(String worker, double now);

  /** A worker's crashes per second up (see {@link Estimator#crashRate}). */
  double crashRate(String worker, double now);

  /** The checkpoint round trip, seconds, or unknown. */
  Estimate eps();

  /** The worker as the planner sees it, or null (see {@link Estimator#worker}). */
  Worker worker(String id, String workload, boolean withInput, double bytesPerUnit, RiskModel model, double now);
}
