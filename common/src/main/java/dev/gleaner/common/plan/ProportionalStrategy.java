package dev.gleaner.common.plan;

import dev.gleaner.common.model.Worker;
import java.util.List;

/**
 * Baseline: shares proportional to measured speed, so that on dedicated workers with free
 * communication all finish together. Rounding puts the remainder on the fastest workers first.
 */
final class ProportionalStrategy implements PlanStrategy {
  @Override
  public String name() {
    return "proportional";
  }

  @Override
  public Plan plan(PlanRequest request) {
    List<Worker> workers = request.platform().workers();
    double total = request.platform().totalSpeed();
    long[] sizes = new long[workers.size()];
    long given = 0;
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = (long) Math.floor(request.units() * (workers.get(i).speed() / total));
      given += sizes[i];
    }
    Integer[] bySpeed = new Integer[sizes.length];
    for (int i = 0; i < bySpeed.length; i++) {
      bySpeed[i] = i;
    }
    java.util.Arrays.sort(bySpeed, (a, b) -> Double.compare(workers.get(b).speed(), workers.get(a).speed()));
    for (int k = 0; given < request.units(); k = (k + 1) % sizes.length) {
      sizes[bySpeed[k]]++;
      given++;
    }
    return Strategies.perWorker(name(), "shares proportional to measured speed", request, workers, sizes,
        request.checkpoints() > 0 ? request.checkpoints() : EqualSplitStrategy.DEFAULT_CHECKPOINTS);
  }
}
