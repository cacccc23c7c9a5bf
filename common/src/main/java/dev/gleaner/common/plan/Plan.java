package dev.gleaner.common.plan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What a strategy decided: per-worker assignments in service order (the order the master sends
 * in), and a shared pool of chunks that any idle worker takes (self-scheduling, and the home of
 * work given back by failed workers). Every unit of the job is in exactly one chunk.
 *
 * @param strategy name of the strategy that produced it
 * @param reason one sentence on why this plan, for people
 * @param order assignments in service order
 * @param pool chunks for whoever is free, in order
 * @param timeline when each worker receives and saves its work, as the strategy's model predicts
 * @param expectedWork the expected number of units saved under the request's risk model (by the
 *     deadline, if any), computed exactly from the timeline
 */
public record Plan(String strategy, String reason, List<Assignment> order, List<ChunkPlan> pool, Timeline timeline,
    double expectedWork) {
  public Plan {
    order = List.copyOf(order);
    pool = List.copyOf(pool);
  }

  /** A plan whose expected work is that of its timeline under the request's risk model. */
  static Plan of(String strategy, String reason, List<Assignment> order, List<ChunkPlan> pool, Timeline timeline,
      PlanRequest request) {
    return new Plan(strategy, reason, order, pool, timeline, timeline.expectedWork(request.platform(), request.risk(),
        request.hasDeadline() ? request.deadline() : Double.POSITIVE_INFINITY));
  }

  /** Whether some units are handed to more than one worker (replicas). */
  public boolean replicated() {
    List<ChunkPlan> all = allChunks();
    for (int i = 1; i < all.size(); i++) {
      if (all.get(i).start() < all.get(i - 1).end()) {
        return true;
      }
    }
    return false;
  }

  /** All chunks of the plan sorted by start; used to check coverage. */
  public List<ChunkPlan> allChunks() {
    List<ChunkPlan> all = new ArrayList<>(pool);
    for (Assignment a : order) {
      all.addAll(a.chunks());
    }
    all.sort(Comparator.comparingLong(ChunkPlan::start));
    return all;
  }

  /**
   * Checks that the chunks tile {@code [start, end)} exactly: no gap, no overlap (replicas, the
   * same range given to several workers, count once).
   *
   * @throws IllegalStateException naming the first gap or overlap
   */
  public void requireCovers(long start, long end) {
    long at = start;
    ChunkPlan previous = null;
    for (ChunkPlan c : allChunks()) {
      if (previous != null && c.start() == previous.start() && c.end() == previous.end()) {
        continue;
      }
      previous = c;
      if (c.start() != at) {
        throw new IllegalStateException("plan " + strategy + " leaves a " + (c.start() > at ? "gap" : "overlap")
            + " at unit " + at + " (next chunk " + c + ")");
      }
      at = c.end();
    }
    if (at != end) {
      throw new IllegalStateException("plan " + strategy + " stops at unit " + at + " instead of " + end);
    }
  }
}
