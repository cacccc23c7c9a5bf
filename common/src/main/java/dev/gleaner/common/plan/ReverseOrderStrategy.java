package dev.gleaner.common.plan;

import dev.gleaner.common.model.Worker;
import java.util.ArrayList;
import java.util.List;

/**
 * DISTRIB's order turned around, to measure what the order is worth: one chunk per worker in sizes
 * that end together (as {@link DistribStrategy} sizes them when nobody is at risk), served by
 * non-decreasing bandwidth, the thinnest link first: the order the one-port theory (paper 001,
 * Theorem 4) says is the worst. Blind to risk. Without input crossing the network the order changes
 * nothing, and it shares in proportion to speed.
 */
final class ReverseOrderStrategy implements PlanStrategy {
  @Override
  public String name() {
    return "distrib-reverse";
  }

  @Override
  public Plan plan(PlanRequest request) {
    int checkpoints = request.checkpoints() > 0 ? request.checkpoints() : EqualSplitStrategy.DEFAULT_CHECKPOINTS;
    List<Worker> order = new ArrayList<>(request.platform().workers());
    order.sort((a, b) -> Double.compare(a.bandwidth(), b.bandwidth()));
    double[] amounts = DistribStrategy.endTogether(order, request.port(), checkpoints + 1);
    String reason = order.stream().allMatch(w -> Double.isInfinite(w.bandwidth()))
        ? "no input crosses the network, so no order matters: shares in proportion to speed"
        : "sizes that end together, served by non-decreasing bandwidth (DISTRIB's order reversed), under "
            + request.port().regime(order.stream().mapToDouble(Worker::bandwidth).toArray(), "units/s");
    return Strategies.perWorker(name(), reason, request, order, DistribStrategy.round(amounts, request.units()),
        checkpoints);
  }
}
