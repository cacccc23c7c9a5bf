package dev.gleaner.common.plan;

import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.replicate.GroupSchedule;
import dev.gleaner.common.plan.replicate.Replication;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Replication on coteries (paper 000, Section 5), for workers that may differ.
 *
 * <p>Each worker is worth at most {@code cap_i} units (Theorem 3's deployed amount for its risk, in
 * units at its speed). Workers, strongest first, are dealt into q coteries (snake order, so capacities
 * balance); q is the fewest coteries whose weakest members together can hold the work, at most p
 * (then nothing is replicated). Each coterie gets a slice in proportion to its weakest member's
 * capacity; the slice is cut into n chunks (a multiple of the coterie size g, chosen by Theorem 6's
 * binary search) and run by the greedy group schedule, every member computing every chunk. Work
 * beyond what the coteries can hold stays in the pool. Each member receives its slice whole, one
 * worker at a time.
 */
final class ReplicateStrategy implements PlanStrategy {
  @Override
  public String name() {
    return "replicate";
  }

  @Override
  public Plan plan(PlanRequest request) {
    List<Worker> workers = new ArrayList<>(request.platform().workers());
    if (workers.stream().anyMatch(w -> w.risk() == 0)) {
      Plan p = Strategies.byName("distrib").plan(request);
      return new Plan(name(), "some workers have no known risk, so nothing needs a replica: " + p.reason(),
          p.order(), p.pool(), p.timeline(), p.expectedWork());
    }
    int maxGroups = request.checkpoints() > 0 ? request.checkpoints() + 1 : EqualSplitStrategy.DEFAULT_CHECKPOINTS + 1;
    ToDoubleFunction<Worker> capacity = w -> capacity(w, maxGroups, request.eps());
    if (workers.stream().anyMatch(w -> !(capacity.applyAsDouble(w) >= 1))) {
      Plan d = Strategies.byName("distrib").plan(request);
      return new Plan(name(), "the per-chunk cost leaves some worker no time for a chunk, so nothing is replicated: "
          + d.reason(), d.order(), d.pool(), d.timeline(), d.expectedWork());
    }
    workers.sort(Comparator.comparingDouble((Worker w) -> -capacity.applyAsDouble(w)));
    int p = workers.size();
    double work = request.units();
    int q = p;
    List<List<Worker>> coteries = null;
    for (int tryQ = 1; tryQ <= p; tryQ++) {
      List<List<Worker>> c = deal(workers, tryQ);
      if (weakest(c, capacity) >= work || tryQ == p) {
        q = tryQ;
        coteries = c;
        break;
      }
    }
    double hold = weakest(coteries, capacity);
    double deployed = Math.min(work, hold);
    List<Assignment> order = new ArrayList<>();
    long at = request.start();
    int[] counts = new int[q];
    for (int r = 0; r < q; r++) {
      List<Worker> coterie = coteries.get(r);
      double share = capacity.applyAsDouble(coterie.get(coterie.size() - 1)) / hold;
      long sliceEnd = r == q - 1 ? request.start() + Math.round(deployed) : at + Math.round(deployed * share);
      sliceEnd = Math.min(request.end(), sliceEnd);
      if (sliceEnd < request.end() && sliceEnd > at) {
        sliceEnd = Math.min(request.end(), request.align().applyAsLong(sliceEnd));
      }
      if (sliceEnd <= at) {
        continue;
      }
      int g = coterie.size();
      // the group count from Theorem 6 for the coterie's weakest member, in its own time scale
      Worker weak = coterie.get(g - 1);
      double sl = (sliceEnd - at) / weak.speed();
      int n = Replication.chunkCount(GroupSchedule.Kind.GREEDY, g, sl, weak.risk(),
          request.eps(), (int) Math.max(1, Math.min(maxGroups, (sliceEnd - at) / g)));
      n = (int) Math.max(g, Math.min(n, (sliceEnd - at) / g * g));
      counts[r] = n;
      order.addAll(schedule(coterie, GroupSchedule.chart(GroupSchedule.Kind.GREEDY, g, n), at, sliceEnd, request));
      at = sliceEnd;
    }
    List<ChunkPlan> pool = new ArrayList<>();
    if (at < request.end()) {
      for (long[] range : Cutter.cut(at, request.end(), Cutter.even(request.end() - at,
          (int) Math.min(request.end() - at, p)), request.align())) {
        pool.add(new ChunkPlan(range[0], range[1], new long[0]));
      }
    }
    String reason = String.format(Locale.ROOT, "%d %s of %s, greedy group schedules of %s chunks; %d units deployed%s",
        q, q == 1 ? "coterie" : "coteries", sizes(coteries), Arrays.toString(counts), Math.round(deployed),
        deployed < work ? ", the rest past what the coteries can hold left to the pool" : "");
    return Plan.of(name(), reason, order, pool, Timelines.singleRound(request.platform(), order, request.eps(), request.port()), request);
  }

  /**
   * The most units worth giving w in m chunks: its speed times Theorem 3's deployed time
   * Z = m X/(m + 1) - m eps/2 (X = 1/kappa); past it, more work only adds risk.
   */
  static double capacity(Worker w, int m, double eps) {
    double x = 1 / w.risk();
    return w.speed() * (m * x / (m + 1) - m * eps / 2);
  }

  /** Workers (sorted strongest first) into q coteries, snake order. */
  private static List<List<Worker>> deal(List<Worker> sorted, int q) {
    List<List<Worker>> c = new ArrayList<>();
    for (int r = 0; r < q; r++) {
      c.add(new ArrayList<>());
    }
    for (int i = 0; i < sorted.size(); i++) {
      int round = i / q;
      int r = round % 2 == 0 ? i % q : q - 1 - i % q;
      c.get(r).add(sorted.get(i));
    }
    return c;
  }

  /** What the coteries can hold: the sum of their weakest members' capacities. */
  private static double weakest(List<List<Worker>> coteries, ToDoubleFunction<Worker> capacity) {
    double sum = 0;
    for (List<Worker> c : coteries) {
      sum += capacity.applyAsDouble(c.get(c.size() - 1));
    }
    return sum;
  }

  private static String sizes(List<List<Worker>> coteries) {
    int min = Integer.MAX_VALUE;
    int max = 0;
    for (List<Worker> c : coteries) {
      min = Math.min(min, c.size());
      max = Math.max(max, c.size());
    }
    return (min == max ? Integer.toString(min) : min + "-" + max) + (max == 1 ? " worker" : " workers");
  }

  /**
   * The coterie's assignments: the slice [from, to) in n equal chunks, groups of g; member k
   * processes, at step chart[i][j], chunk (k + i) mod g of group j. Each member's chunks are listed
   * in the order of its steps.
   */
  private static List<Assignment> schedule(List<Worker> coterie, int[][] chart, long from, long to, PlanRequest request) {
    int g = coterie.size();
    int groups = chart[0].length;
    int n = g * groups;
    long[] cuts = new long[n + 1];
    cuts[0] = from;
    cuts[n] = to;
    for (int c = 1; c < n; c++) {
      long cut = from + Math.round((double) (to - from) * c / n);
      cuts[c] = Math.max(cuts[c - 1], Math.min(to, request.align().applyAsLong(Math.max(cut, from + 1))));
    }
    List<Assignment> out = new ArrayList<>();
    for (int k = 0; k < g; k++) {
      ChunkPlan[] byStep = new ChunkPlan[n + 1];
      for (int i = 0; i < g; i++) {
        for (int j = 0; j < groups; j++) {
          int chunk = j * g + (k + i) % g;
          if (cuts[chunk + 1] > cuts[chunk]) {
            byStep[chart[i][j]] = new ChunkPlan(cuts[chunk], cuts[chunk + 1], new long[0]);
          }
        }
      }
      List<ChunkPlan> chunks = new ArrayList<>();
      for (int s = 1; s <= n; s++) {
        if (byStep[s] != null) {
          chunks.add(byStep[s]);
        }
      }
      out.add(new Assignment(coterie.get(k).id(), chunks));
    }
    return out;
  }
}
