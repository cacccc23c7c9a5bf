package dev.gleaner.common.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * Baseline: fixed-size chunks in a shared pool; each worker takes the next one when it is free.
 * Adapts to speed differences and failures at the cost of one round-trip per chunk.
 *
 * <p>Default chunk size: the range cut into 16 chunks per worker, so a slow worker's last chunk
 * is small next to the whole job.
 */
final class SelfSchedulingStrategy implements PlanStrategy {
  static final int CHUNKS_PER_WORKER = 16;

  @Override
  public String name() {
    return "self";
  }

  @Override
  public Plan plan(PlanRequest request) {
    long size = request.chunkUnits() > 0
        ? request.chunkUnits()
        : Math.max(1, ceilDiv(request.units(), (long) CHUNKS_PER_WORKER * request.platform().size()));
    int count = (int) Math.min(Integer.MAX_VALUE - 8, ceilDiv(request.units(), size));
    long[] sizes = new long[count];
    java.util.Arrays.fill(sizes, size);
    List<ChunkPlan> pool = new ArrayList<>(count);
    for (long[] r : Cutter.cut(request.start(), request.end(), sizes, request.align())) {
      pool.add(Cutter.chunk(r[0], r[1], request.checkpoints(), request.align()));
    }
    return Plan.of(name(), "fixed chunks of " + size + " units taken by whoever is free", List.of(), pool,
        Timelines.demandDriven(request.platform(), pool, request.eps()), request);
  }

  private static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }
}
