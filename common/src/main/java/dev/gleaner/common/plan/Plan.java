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
 */
public record Plan(String strategy, String reason, List<Assignment> order, List<ChunkPlan> pool) {
  public Plan {
    order = List.copyOf(order);
    pool = List.copyOf(pool);
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
   * Checks that the chunks tile {@code [start, end)} exactly: no gap, no overlap.
   *
   * @throws IllegalStateException naming the first gap or overlap
   */
  public void requireCovers(long start, long end) {
    long at = start;
    for (ChunkPlan c : allChunks()) {
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
