package dev.gleaner.common.plan;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.port.PortRule;
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
 * @param eps per-chunk overhead, seconds: the cost of starting a chunk or saving a checkpoint
 * @param risk how workers are interrupted, for the expected work
 * @param deadline the lifespan L in seconds when the job has one ({@link Double#NaN} for none)
 * @param replication whether a strategy may give the same units to several workers
 * @param port how the master's port sends chunk input: when the next stream may start beside those
 *     on the wire, its egress in units/s ({@link PortRule#ONE_PORT}: the papers' one port)
 */
public record PlanRequest(long start, long end, Platform platform, long chunkUnits, int checkpoints,
    LongUnaryOperator align, double eps, RiskModel risk, double deadline, boolean replication, PortRule port) {
  /** A request under the papers' one-port model. */
  public PlanRequest(long start, long end, Platform platform, long chunkUnits, int checkpoints,
      LongUnaryOperator align, double eps, RiskModel risk, double deadline, boolean replication) {
    this(start, end, platform, chunkUnits, checkpoints, align, eps, risk, deadline, replication, PortRule.ONE_PORT);
  }

  /** A request for the runtime: no overhead, linear risk, no deadline, no replication. */
  public PlanRequest(long start, long end, Platform platform, long chunkUnits, int checkpoints,
      LongUnaryOperator align) {
    this(start, end, platform, chunkUnits, checkpoints, align, 0, RiskModel.LINEAR, Double.NaN, false);
  }

  public PlanRequest {
    if (!(eps >= 0) || Double.isInfinite(eps)) {
      throw new IllegalArgumentException("the per-chunk overhead eps must be a finite number >= 0, got " + eps);
    }
    if (!Double.isNaN(deadline) && !(deadline > 0)) {
      throw new IllegalArgumentException("the deadline must be a positive number of seconds, got " + deadline);
    }
    if (risk == null) {
      throw new IllegalArgumentException("a risk model is required");
    }
    if (port == null) {
      throw new IllegalArgumentException("a port rule is required");
    }
    if (end <= start) {
      throw new IllegalArgumentException("nothing to plan: range [" + start + ", " + end + ") is empty");
    }
    if (chunkUnits < 0 || checkpoints < 0) {
      throw new IllegalArgumentException("chunk size and checkpoints must not be negative");
    }
  }

  /** Whether the job has a deadline (lifespan L). */
  public boolean hasDeadline() {
    return !Double.isNaN(deadline);
  }

  public long units() {
    return end - start;
  }
}
