package dev.gleaner.common.plan;

import java.util.List;

/** The chunks one worker receives, in the order it receives them. */
public record Assignment(String workerId, List<ChunkPlan> chunks) {
  public Assignment {
    chunks = List.copyOf(chunks);
  }

  public long units() {
    long sum = 0;
    for (ChunkPlan c : chunks) {
      sum += c.units();
    }
    return sum;
  }
}
