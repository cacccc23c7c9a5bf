package dev.gleaner.common.plan;

import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.fifo.Fifo;
import dev.gleaner.common.plan.fifo.HiHCoHP;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The FIFO protocol of paper 003 for a dedicated cluster: computers start and finish in the same
 * order, and their allocations come from the protocol's linear system.
 *
 * <p>HiHCoHP from the platform: rho_i = 1/speed_i; the network's tau is the smallest 1/bandwidth
 * (the fastest link), and pi_i = 1/bandwidth_i - tau is what is left of worker i's own cost per
 * unit; lambda = tau, sigma = pi0 = delta = 0 (no per-message cost, results negligible). With a
 * deadline L it solves Cluster-Exploitation (the most work by L); without one, Cluster-Rental (the
 * shortest lifespan for all the work). The startup order does not change the work done; the
 * plan serves the fastest links first.
 */
final class FifoStrategy implements PlanStrategy {
  @Override
  public String name() {
    return "fifo";
  }

  @Override
  public Plan plan(PlanRequest request) {
    List<Worker> workers = new ArrayList<>(request.platform().workers());
    workers.sort((a, b) -> Double.compare(b.bandwidth(), a.bandwidth()));
    HiHCoHP model = model(workers);
    int n = workers.size();
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    double rental = Fifo.lifespan(model, order, request.units());
    double lifespan = rental;
    String reason;
    if (request.hasDeadline() && request.deadline() < rental) {
      lifespan = request.deadline();
      reason = String.format(Locale.ROOT, "FIFO, Cluster-Exploitation: %.6g of %d units by the deadline %.6g s"
          + " (all of them would need %.6g s)", Fifo.work(model, order, lifespan), request.units(), lifespan, rental);
    } else {
      reason = String.format(Locale.ROOT, "FIFO, Cluster-Rental: all %d units in %.6g s", request.units(), rental);
    }
    double[] w = Fifo.allocations(model, order, lifespan);
    double total = 0;
    for (double v : w) {
      total += v;
    }
    long deployed = Math.min(request.units(), Math.round(total));
    long[] sizes = DistribStrategy.round(w, deployed);
    int checkpoints = request.checkpoints() > 0 ? request.checkpoints() : EqualSplitStrategy.DEFAULT_CHECKPOINTS;
    List<Assignment> assignments = new ArrayList<>();
    List<Timeline.Lane> lanes = new ArrayList<>();
    long at = request.start();
    double port = 0;
    for (int k = 0; k < n; k++) {
      Worker wk = workers.get(k);
      if (sizes[k] == 0 || at >= request.end()) {
        assignments.add(new Assignment(wk.id(), List.of()));
        continue;
      }
      long cut = Math.min(request.end(), at + sizes[k]);
      if (cut < request.end()) {
        cut = Math.min(request.end(), request.align().applyAsLong(cut));
      }
      ChunkPlan chunk = Cutter.chunk(at, cut, checkpoints, request.align());
      assignments.add(new Assignment(wk.id(), List.of(chunk)));
      // the master is busy (pi0 + tau) per unit plus F per message; the worker unpacks pi_k per unit
      double sent = port + model.fixed() + (model.pi0() + model.tau()) * (cut - at);
      List<Timeline.Piece> pieces = new ArrayList<>();
      // the FIFO model's worker computes once its whole message is unpacked
      Timelines.compute(wk, chunk, request.eps(), sent + model.pi(k) * (cut - at), Double.NEGATIVE_INFINITY, pieces);
      lanes.add(new Timeline.Lane(wk.id(), List.of(new Timeline.Interval(port, sent)), pieces));
      port = sent;
      at = cut;
    }
    List<ChunkPlan> pool = new ArrayList<>();
    if (at < request.end()) {
      pool.add(new ChunkPlan(at, request.end(), new long[0]));
    }
    return Plan.of(name(), reason, assignments, pool, new Timeline(lanes), request);
  }

  /** HiHCoHP parameters for workers in this order (see the class comment). */
  static HiHCoHP model(List<Worker> workers) {
    int n = workers.size();
    double tau = Double.POSITIVE_INFINITY;
    for (Worker w : workers) {
      tau = Math.min(tau, 1 / w.bandwidth());
    }
    double[] rho = new double[n];
    double[] pi = new double[n];
    for (int i = 0; i < n; i++) {
      rho[i] = 1 / workers.get(i).speed();
      pi[i] = 1 / workers.get(i).bandwidth() - tau;
    }
    return new HiHCoHP(0, tau, tau, 0, 0, rho, pi);
  }
}
