package dev.gleaner.common.control;

import java.util.Map;
import java.util.Set;

/**
 * A worker as it introduces itself when a session starts.
 *
 * @param id stable worker id
 * @param workloads workloads it accepts
 * @param cores its cores
 * @param calibrated its calibrated speed per workload (units/s): a prior for the estimator
 * @param availableUntil when it will surely be gone (controller time), or infinity
 * @param pastInterruptions interruptions in its history before this controller started
 * @param pastExposureSeconds seconds it was up in that history
 */
public record WorkerInfo(String id, Set<String> workloads, int cores, Map<String, Double> calibrated,
    double availableUntil, long pastInterruptions, double pastExposureSeconds) {
  public WorkerInfo {
    workloads = Set.copyOf(workloads);
    calibrated = Map.copyOf(calibrated);
  }

  /** A worker with a calibrated speed for one workload and no history. */
  public static WorkerInfo of(String id, String workload, double speed) {
    return new WorkerInfo(id, Set.of(workload), 1, Map.of(workload, speed), Double.POSITIVE_INFINITY, 0, 0);
  }

  public WorkerInfo withAvailableUntil(double at) {
    return new WorkerInfo(id, workloads, cores, calibrated, at, pastInterruptions, pastExposureSeconds);
  }

  public WorkerInfo withHistory(long interruptions, double exposureSeconds) {
    return new WorkerInfo(id, workloads, cores, calibrated, availableUntil, interruptions, exposureSeconds);
  }
}
