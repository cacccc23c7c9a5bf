package dev.gleaner.common.plan;

import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.distrib.DistribSolver;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * DISTRIB (paper 001): one chunk per worker, sized and ordered to maximise the expected work done
 * when each worker may be interrupted with linear risk while the master serves them one at a time.
 *
 * <p>It hands out all units (the paper's problem) while every worker can still finish its share;
 * past that point it gives each worker what maximises the true expectation and leaves the rest in
 * the shared pool, where whichever worker is still up takes it. Workers with no known risk (0) are
 * never interrupted in the model, so they take all the work, shared in proportion to speed.
 */
final class DistribStrategy implements PlanStrategy {
  /** The most pieces a plan cuts its chunks into when eps decides their number (the checkpoints per chunk). */
  static final int PIECES = 100_000;

  @Override
  public String name() {
    return "distrib";
  }

  @Override
  public Plan plan(PlanRequest request) {
    List<Worker> workers = request.platform().workers();
    int p = workers.size();
    int checkpoints = request.checkpoints() > 0 ? request.checkpoints() : EqualSplitStrategy.DEFAULT_CHECKPOINTS;
    // as many pieces as paper 000 says pay, but no more than PIECES in all: each piece is a message
    // and a durable write, and 10,000 workers of low risk would each get thousands
    int maxChunks = request.checkpoints() > 0 || request.eps() == 0 ? checkpoints + 1
        : Math.max(checkpoints + 1, Math.min(Checkpointing.MAX_CHUNKS, PIECES / p));
    List<Worker> safe = workers.stream().filter(w -> w.risk() == 0).toList();
    if (!safe.isEmpty()) {
      double total = safe.stream().mapToDouble(Worker::speed).sum();
      double[] amounts = safe.stream().mapToDouble(w -> request.units() * w.speed() / total).toArray();
      return build(request, safe, round(amounts, request.units()), checkpoints, maxChunks,
          safe.size() == p
              ? "no worker has a known risk: shares in proportion to speed"
              : safe.size() + " of " + p + " workers have no known risk and take all the work, in proportion to speed");
    }
    double[] s = new double[p];
    double[] bw = new double[p];
    double[] k = new double[p];
    for (int i = 0; i < p; i++) {
      s[i] = workers.get(i).speed();
      bw[i] = workers.get(i).bandwidth();
      k[i] = workers.get(i).risk();
    }
    double work = request.units();
    DistribSolver.Result all = DistribSolver.solve(s, bw, k, work, DistribSolver.Deploy.ALL);
    Plan whole = fromResult(request, workers, all, checkpoints, maxChunks, String.format(Locale.ROOT,
        "DISTRIB: all %d units in one round, order and sizes maximising the expected work", request.units()));
    if (all.valid()) {
      return whole;
    }
    // some worker is sure to be interrupted before it finishes: the paper's problem no longer
    // applies; keep back what cannot pay, unless checkpoints make handing out everything better
    DistribSolver.Result best = DistribSolver.solve(s, bw, k, work, DistribSolver.Deploy.BEST);
    Plan kept = fromResult(request, workers, best, checkpoints, maxChunks, String.format(Locale.ROOT,
        "DISTRIB beyond its validity bound: %d of %d units deployed, the rest left to the pool",
        Math.min(request.units(), Math.round(best.deployed())), request.units()));
    if (whole.expectedWork() > kept.expectedWork()) {
      return new Plan(whole.strategy(), "DISTRIB beyond its validity bound: all units handed out, since the"
          + " checkpoints save more of them than keeping some back would", whole.order(), whole.pool(), whole.timeline(),
          whole.expectedWork());
    }
    return kept;
  }

  private static Plan fromResult(PlanRequest request, List<Worker> workers, DistribSolver.Result r, int checkpoints,
      int maxChunks, String reason) {
    List<Worker> ordered = new ArrayList<>();
    for (int i : r.order()) {
      ordered.add(workers.get(i));
    }
    long deployed = Math.min(request.units(), Math.round(r.deployed()));
    return build(request, ordered, round(r.amounts(), deployed), checkpoints, maxChunks,
        reason + (r.exact() ? "" : " (order by Conjecture 1, not proven optimal)"));
  }

  /**
   * Worker i gets the next sizes[i] units in one chunk, with checkpoints where paper 000's
   * Theorems 2-3 put them for the time it starts; what is left goes to the pool in one chunk per
   * worker. Risk-free workers checkpoint evenly.
   */
  private static Plan build(PlanRequest request, List<Worker> workers, long[] sizes, int checkpoints, int maxChunks,
      String reason) {
    List<Assignment> order = new ArrayList<>();
    long at = request.start();
    double sent = 0;
    for (int i = 0; i < workers.size(); i++) {
      Worker w = workers.get(i);
      List<ChunkPlan> chunks = List.of();
      if (sizes[i] > 0 && at < request.end()) {
        long cut = Math.min(request.end(), at + sizes[i]);
        if (cut < request.end()) {
          cut = Math.min(request.end(), request.align().applyAsLong(cut));
        }
        sent += (cut - at) / w.bandwidth();
        if (w.risk() > 0) {
          Checkpointing.Chunks c = Checkpointing.forAllocation((cut - at) / w.speed(), 1 / w.risk() - sent,
              request.eps(), (int) Math.min(maxChunks, cut - at));
          double[] units = c.sizes().clone();
          for (int k = 0; k < units.length; k++) {
            units[k] *= w.speed();
          }
          chunks = List.of(Checkpointing.chunk(at, cut, units, request.align()));
        } else {
          chunks = List.of(Cutter.chunk(at, cut, checkpoints, request.align()));
        }
        at = cut;
      }
      order.add(new Assignment(w.id(), chunks));
    }
    List<ChunkPlan> pool = new ArrayList<>();
    if (at < request.end()) {
      long[] rest = Cutter.even(request.end() - at, (int) Math.min(request.end() - at, workers.size()));
      for (long[] range : Cutter.cut(at, request.end(), rest, request.align())) {
        pool.add(Cutter.chunk(range[0], range[1], checkpoints, request.align()));
      }
    }
    return Plan.of("distrib", reason, order, pool, Timelines.singleRound(request.platform(), order, request.eps()),
        request);
  }

  /** Whole units summing to {@code total}, each within one of its share (largest remainders first). */
  static long[] round(double[] amounts, long total) {
    double sum = 0;
    for (double a : amounts) {
      sum += a;
    }
    long[] out = new long[amounts.length];
    double[] frac = new double[amounts.length];
    long given = 0;
    for (int i = 0; i < amounts.length; i++) {
      double share = sum > 0 ? amounts[i] * total / sum : 0;
      out[i] = (long) Math.floor(share);
      frac[i] = share - out[i];
      given += out[i];
    }
    // the units left over go one each to the largest remainders, ties to the earlier worker (a sort,
    // not a scan per unit: a platform of 10,000 workers may leave 9,999 of them)
    if (given < total) {
      Integer[] byRemainder = new Integer[amounts.length];
      for (int i = 0; i < byRemainder.length; i++) {
        byRemainder[i] = i;
      }
      java.util.Arrays.sort(byRemainder, (a, b) -> frac[a] != frac[b] ? Double.compare(frac[b], frac[a])
          : Integer.compare(a, b));
      for (int k = 0; given < total; k++, given++) {
        // past every worker once (rounding can leave as many units as workers), the first takes the rest
        out[k < byRemainder.length ? byRemainder[k] : 0]++;
      }
    }
    return out;
  }
}
