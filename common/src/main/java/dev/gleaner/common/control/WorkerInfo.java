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
 * @param savesOnVacate its owner policy saves the piece under way when its owner comes back: an
 *     owner's return loses nothing of it, only a crash does
 * @param pastReturns returns after an interruption in its history before this controller started
 *     (a prior's: what the outages' mean rests on before the worker's own are seen)
 * @param pastDowntimeSeconds seconds those outages lasted
 * @param relay the relay its connection came through nearest the master ("" straight to the master):
 *     its site; the workers of one site are lost together when that relay is
 */
public record WorkerInfo(String id, Set<String> workloads, int cores, Map<String, Double> calibrated,
    double availableUntil, long pastInterruptions, double pastExposureSeconds, boolean savesOnVacate,
    long pastReturns, double pastDowntimeSeconds, String relay) {
  public WorkerInfo {
    relay = relay == null ? "" : relay;
    workloads = Set.copyOf(workloads);
    calibrated = Map.copyOf(calibrated);
    if (pastReturns < 0 || !(pastDowntimeSeconds >= 0) || pastReturns > 0 && !(pastDowntimeSeconds > 0)) {
      throw new IllegalArgumentException("a history of outages needs returns >= 0 over a positive downtime, got "
          + pastReturns + " over " + pastDowntimeSeconds + " s");
    }
  }

  /** A worker straight on the master. */
  public WorkerInfo(String id, Set<String> workloads, int cores, Map<String, Double> calibrated,
      double availableUntil, long pastInterruptions, double pastExposureSeconds, boolean savesOnVacate,
      long pastReturns, double pastDowntimeSeconds) {
    this(id, workloads, cores, calibrated, availableUntil, pastInterruptions, pastExposureSeconds, savesOnVacate,
        pastReturns, pastDowntimeSeconds, "");
  }

  /** The same worker, come through {@code relayId} ("" straight to the master). */
  public WorkerInfo withRelay(String relayId) {
    return new WorkerInfo(id, workloads, cores, calibrated, availableUntil, pastInterruptions, pastExposureSeconds,
        savesOnVacate, pastReturns, pastDowntimeSeconds, relayId);
  }

  /** A worker with no history of outages. */
  public WorkerInfo(String id, Set<String> workloads, int cores, Map<String, Double> calibrated,
      double availableUntil, long pastInterruptions, double pastExposureSeconds, boolean savesOnVacate) {
    this(id, workloads, cores, calibrated, availableUntil, pastInterruptions, pastExposureSeconds, savesOnVacate,
        0, 0);
  }

  /** A worker whose interruptions are crashes. */
  public WorkerInfo(String id, Set<String> workloads, int cores, Map<String, Double> calibrated,
      double availableUntil, long pastInterruptions, double pastExposureSeconds) {
    this(id, workloads, cores, calibrated, availableUntil, pastInterruptions, pastExposureSeconds, false);
  }

  /** A worker with a calibrated speed for one workload and no history. */
  public static WorkerInfo of(String id, String workload, double speed) {
    return new WorkerInfo(id, Set.of(workload), 1, Map.of(workload, speed), Double.POSITIVE_INFINITY, 0, 0);
  }

  public WorkerInfo withAvailableUntil(double at) {
    return new WorkerInfo(id, workloads, cores, calibrated, at, pastInterruptions, pastExposureSeconds, savesOnVacate,
        pastReturns, pastDowntimeSeconds, relay);
  }

  public WorkerInfo withHistory(long interruptions, double exposureSeconds) {
    return new WorkerInfo(id, workloads, cores, calibrated, availableUntil, interruptions, exposureSeconds,
        savesOnVacate, pastReturns, pastDowntimeSeconds, relay);
  }

  public WorkerInfo withSavesOnVacate(boolean saves) {
    return new WorkerInfo(id, workloads, cores, calibrated, availableUntil, pastInterruptions, pastExposureSeconds,
        saves, pastReturns, pastDowntimeSeconds, relay);
  }

  /** The worker with {@code returns} past outages lasting {@code downtimeSeconds} in all. */
  public WorkerInfo withOutages(long returns, double downtimeSeconds) {
    return new WorkerInfo(id, workloads, cores, calibrated, availableUntil, pastInterruptions, pastExposureSeconds,
        savesOnVacate, returns, downtimeSeconds, relay);
  }
}
