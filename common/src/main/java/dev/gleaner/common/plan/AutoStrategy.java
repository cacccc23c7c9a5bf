package dev.gleaner.common.plan;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Picks a strategy for the job and the platform and says why. Each candidate's expected work is
 * exact under the same model (risk, deadline, one port), so auto plans with every candidate that
 * fits and keeps the one expecting most; ties go to the earlier candidate.
 *
 * <p>Candidates: DISTRIB (the optimum of one round under risk); FIFO (paper 003's
 * Cluster-Exploitation when there is a deadline); bandwidth-centric only when workers hang off
 * sub-masters (it is the only one that uses the tree; its expectation is that of a steady state
 * without start-up and wind-down, so elsewhere it would win on an optimistic figure);
 * replication when the job allows it and some worker is at risk; and the baselines.
 *
 * <p>For the runtime ({@link Strategies#forRuntime}) the candidates are the one-round plans only
 * (DISTRIB, FIFO, bandwidth-centric on trees, replication when allowed): in the closed loop what a
 * static plan loses is rerouted and re-planned, and the pool is self-scheduled anyway, so the
 * static expectation over-rates the dynamic baselines. On the lab platform with a 4-hour deadline
 * the static comparison picks self-scheduling (1.435M expected against FIFO's 1.348M), which in
 * the closed loop saves 1.42M units where FIFO saves 1.50M and DISTRIB 1.49M.
 */
final class AutoStrategy implements PlanStrategy {
  private final boolean closedLoop;

  AutoStrategy(boolean closedLoop) {
    this.closedLoop = closedLoop;
  }

  @Override
  public String name() {
    return "auto";
  }

  @Override
  public Plan plan(PlanRequest request) {
    List<String> candidates = new ArrayList<>(List.of("distrib"));
    boolean risky = request.platform().workers().stream().anyMatch(w -> w.risk() > 0);
    if (request.hasDeadline()) {
      candidates.add("fifo");
    }
    if (request.platform().isTree()) {
      candidates.add("bandwidth-centric");
    }
    if (request.replication() && risky) {
      candidates.add("replicate");
    }
    if (!closedLoop) {
      candidates.addAll(List.of("proportional", "self", "equal"));
    }
    if (!request.hasDeadline()) {
      candidates.add("fifo");
    }
    Plan best = null;
    StringBuilder others = new StringBuilder();
    for (String name : candidates) {
      Plan p = Strategies.byName(name).plan(request);
      if (best == null || p.expectedWork() > best.expectedWork() * (1 + 1e-9)) {
        best = p;
      }
      others.append(String.format(Locale.ROOT, "%s%s %.0f", others.length() == 0 ? "" : ", ", name, p.expectedWork()));
    }
    String reason = String.format(Locale.ROOT, "auto picked %s, the most expected work among (%s): %s", best.strategy(),
        others, best.reason());
    return new Plan(best.strategy(), reason, best.order(), best.pool(), best.timeline(), best.expectedWork());
  }
}
