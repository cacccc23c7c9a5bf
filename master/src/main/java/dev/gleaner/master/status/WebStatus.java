package dev.gleaner.master.status;

import dev.gleaner.common.plan.Timeline;
import dev.gleaner.protocol.StatusReply;
import java.util.Map;

/**
 * What the master's web page shows: the status of all jobs (the running ones with their recovery
 * lists) and each running job's plan as the planner predicted it.
 *
 * @param reply the status, as {@code gleaner status} gets it
 * @param plans job id to its current plan, for jobs that are running and have one
 * @param atMillis when this was taken (wall clock)
 * @param computed the units all workers computed per second over the last hour, a point per 10 s
 */
public record WebStatus(StatusReply reply, Map<String, Plan> plans, long atMillis, java.util.List<RatePoint> computed) {
  public WebStatus {
    plans = Map.copyOf(plans);
    computed = java.util.List.copyOf(computed);
  }

  /** The rate over the step that ended at {@code atMillis} (wall clock). */
  public record RatePoint(long atMillis, double unitsPerSecond) {}

  /**
   * A plan's prediction.
   *
   * @param plannedAtMillis when it was made (wall clock); the timeline's seconds count from there
   * @param timeline when each worker receives its work and saves each piece, on computers not interrupted
   */
  public record Plan(long plannedAtMillis, Timeline timeline) {}
}
