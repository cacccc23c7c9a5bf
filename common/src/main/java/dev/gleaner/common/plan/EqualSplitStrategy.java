package dev.gleaner.common.plan;

import dev.gleaner.common.model.Worker;
import java.util.List;

/** Baseline: every worker gets the same number of units, in one chunk, in platform order. */
final class EqualSplitStrategy implements PlanStrategy {
  static final int DEFAULT_CHECKPOINTS = 9;

  @Override
  public String name() {
    return "equal";
  }

  @Override
  public Plan plan(PlanRequest request) {
    List<Worker> workers = request.platform().workers();
    long[] sizes = Cutter.even(request.units(), workers.size());
    return Strategies.perWorker(name(), "equal shares, whatever the speeds", request, workers, sizes,
        request.checkpoints() > 0 ? request.checkpoints() : DEFAULT_CHECKPOINTS);
  }
}
