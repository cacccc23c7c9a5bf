package dev.gleaner.common.plan;

import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.distrib.DistribSolver;
import dev.gleaner.common.port.PortClock;
import dev.gleaner.common.port.PortRule;
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
 * never interrupted in the model, so they take all the work: every split then saves it all, and
 * DISTRIB takes the one that ends soonest, in proportion to speed when no input crosses the network,
 * else in sizes that end together under the master's port ({@link #endTogether}).
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
      String who = safe.size() == p ? "no worker has a known risk"
          : safe.size() + " of " + p + " workers have no known risk and take all the work";
      if (safe.stream().allMatch(w -> Double.isInfinite(w.bandwidth()))) {
        double total = safe.stream().mapToDouble(Worker::speed).sum();
        double[] amounts = safe.stream().mapToDouble(w -> request.units() * w.speed() / total).toArray();
        return build(request, safe, round(amounts, request.units()), checkpoints, maxChunks,
            safe.size() == p ? who + ": shares in proportion to speed" : who + ", in proportion to speed");
      }
      // nothing is lost whatever the split: the one that ends soonest, under the port the input crosses
      List<Worker> byBandwidth = new ArrayList<>(safe);
      byBandwidth.sort((a, b) -> Double.compare(b.bandwidth(), a.bandwidth()));
      int pieces = checkpoints + 1;
      List<Worker> ordered = bestOrder(byBandwidth, request.port(), pieces);
      double[] amounts = endTogether(ordered, request.port(), pieces);
      return build(request, ordered, round(amounts, request.units()), checkpoints, maxChunks,
          who + ": sizes that end together, served " + (ordered.equals(byBandwidth) ? "by non-increasing bandwidth"
              : "in the order that packs the links best into the egress") + ", under "
              + request.port().regime(byBandwidth.stream().mapToDouble(Worker::bandwidth).toArray(), "units/s"));
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
   * Shares (summing to 1 time unit's worth, to be scaled) with which workers served in this order all
   * end at the same moment when nothing interrupts them: each receives its share at its link's rate
   * from when the port's {@code rule} lets its stream start, and computes it in {@code pieces} equal
   * pieces, each once its input is there (one piece: all the input, then the computing, the papers'
   * store-and-forward worker). A share x then ends max(x/b + x/(m s), x/(m b) + x/s) after its
   * stream starts (m pieces, link b, speed s: the last piece waits for its input, or the first piece's
   * input starts a computing that never waits). Under one port and one piece this is the classic
   * single-round optimum; the schedule scales with the work, so one time unit gives the proportions.
   */
  static double[] endTogether(List<Worker> ordered, PortRule rule, int pieces) {
    PortClock port = new PortClock(rule);
    double[] amounts = new double[ordered.size()];
    for (int i = 0; i < amounts.length; i++) {
      Worker w = ordered.get(i);
      double start = port.start(w.bandwidth());
      double perUnit = Math.max(1 / w.bandwidth() + 1 / (pieces * w.speed()), 1 / (pieces * w.bandwidth()) + 1 / w.speed());
      amounts[i] = Math.max(0, 1 - start) / perUnit;
      port.occupy(w.bandwidth(), amounts[i] / w.bandwidth());
    }
    return amounts;
  }

  /** The most workers whose service order is searched beyond non-increasing bandwidth. */
  static final int ORDER_SEARCH = 24;

  /**
   * The service order whose end-together sizes do the most work per unit of time: non-increasing
   * bandwidth (optimal under one port and when every link goes at once), improved while moving one
   * worker elsewhere in the order helps, when some links but not all fit together in the egress
   * (a thin link may then go beside a fast one before a middle one that would have to wait).
   */
  static List<Worker> bestOrder(List<Worker> byBandwidth, PortRule rule, int pieces) {
    int n = byBandwidth.size();
    if (n < 3 || n > ORDER_SEARCH || rule.maxStreams() == 1 || Double.isInfinite(rule.budget())) {
      return byBandwidth;
    }
    List<Worker> best = new ArrayList<>(byBandwidth);
    double bestRate = java.util.Arrays.stream(endTogether(best, rule, pieces)).sum();
    // each round moves one worker and gains at least a hair; at most n rounds (a plan is made on the
    // control thread)
    for (int round = 0; round < n; round++) {
      List<Worker> found = null;
      for (int from = 0; from < n; from++) {
        for (int to = 0; to < n; to++) {
          if (to == from) {
            continue;
          }
          List<Worker> o = new ArrayList<>(best);
          o.add(to, o.remove(from));
          double rate = java.util.Arrays.stream(endTogether(o, rule, pieces)).sum();
          if (rate > bestRate * (1 + 1e-9)) {
            bestRate = rate;
            found = o;
          }
        }
      }
      if (found == null) {
        break;
      }
      best = found;
    }
    return best;
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
    return Plan.of("distrib", reason, order, pool, Timelines.singleRound(request.platform(), order, request.eps(), request.port()),
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
