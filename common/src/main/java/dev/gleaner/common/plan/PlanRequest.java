package dev.gleaner.common.plan;

import dev.gleaner.common.model.Platform;
import java.util.function.LongUnaryOperator;

/**
 * What a strategy plans from.
 *
 * @param start first unit of the range to plan
 * @param end one past the last unit
 * @param platform the workers
 * @param chunkUnits requested chunk size for strategies that use one; 0 lets the strategy choose
 * @param checkpoints requested checkpoints per chunk; 0 lets the strategy choose
 * @param align moves a proposed cut to the nearest legal cut at or after it (identity for index
 *     ranges; the next line start for line-oriented files); must return a value in (cut, end] for
 *     cut in (start, end) and be monotone
 */
public record PlanRequest(long start, long end, Platform platform, long chunkUnits, int checkpoints,
    LongUnaryOperator align) {
  public PlanRequest {
    if (end <= start) {
      throw new IllegalArgumentException("nothing to plan: range [" + start + ", " + end + ") is empty");
    }
    if (chunkUnits < 0 || checkpoints < 0) {
      throw new IllegalArgumentException("chunk size and checkpoints must not be negative");
    }
  }

  public long units() {
    return end - start;
  }
}
