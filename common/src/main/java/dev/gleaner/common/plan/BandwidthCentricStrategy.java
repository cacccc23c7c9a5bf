package dev.gleaner.common.plan;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.bandwidth.SteadyState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Bandwidth-centric scheduling (paper 002) for a long bag of equal tasks: the steady-state rate of
 * each worker on the platform tree (sub-masters from the platform's parents), and the job shared
 * in proportion to those rates, as whole tasks. Workers past the master's saturated port get
 * nothing. The plan's order is the master's serving priority (increasing communication time), the
 * demand-driven policy a dispatcher runs; the reason names each sub-master's priorities too.
 *
 * <p>Under a port that sends several streams at once ({@link PlanRequest#port}: the runtime's fit
 * mode, or its share mode), each node feeds all its children at once, the master up to its egress:
 * {@link SteadyState#solveMultiPort}. Under one port, paper 002's own model: {@link SteadyState#solve}.
 *
 * <p>Its timeline is the steady state: a worker gets its first task after the links on its path,
 * then completes one task every 1/rate seconds (plus eps to save it).
 */
final class BandwidthCentricStrategy implements PlanStrategy {
  static final String MASTER = "(master)";

  @Override
  public String name() {
    return "bandwidth-centric";
  }

  @Override
  public Plan plan(PlanRequest request) {
    Platform platform = request.platform();
    long task = request.chunkUnits() > 0
        ? request.chunkUnits()
        : Math.max(1, request.units() / ((long) SelfSchedulingStrategy.CHUNKS_PER_WORKER * platform.size()));
    SteadyState.Node root = tree(platform, task);
    // the master's port as the runtime sends: one stream at a time (the papers'), or every child at
    // once up to its egress (what the port does where the links are thinner than the egress)
    boolean multiPort = request.port().maxStreams() > 1;
    SteadyState.Result steady = multiPort ? SteadyState.solveMultiPort(root, request.port().budget() / task)
        : SteadyState.solve(root);
    List<Worker> served = new ArrayList<>();
    Map<String, Worker> byId = platform.byId();
    order(MASTER, steady.priorities(), byId, served);
    double[] rates = new double[served.size()];
    for (int i = 0; i < rates.length; i++) {
      rates[i] = steady.rates().getOrDefault(served.get(i).id(), 0.0);
    }
    long tasks = -Math.floorDiv(-request.units(), task);
    long[] perWorker = DistribStrategy.round(rates, tasks);
    Map<String, Double> latency = new HashMap<>();
    List<Assignment> order = new ArrayList<>();
    List<Timeline.Lane> lanes = new ArrayList<>();
    long at = request.start();
    for (int i = 0; i < served.size(); i++) {
      Worker w = served.get(i);
      List<ChunkPlan> chunks = new ArrayList<>();
      for (long k = 0; k < perWorker[i] && at < request.end(); k++) {
        long cut = Math.min(request.end(), at + task);
        if (cut < request.end()) {
          cut = Math.min(request.end(), request.align().applyAsLong(cut));
        }
        chunks.add(new ChunkPlan(at, cut, new long[0]));
        at = cut;
      }
      order.add(new Assignment(w.id(), chunks));
      if (chunks.isEmpty()) {
        continue;
      }
      double first = pathLatency(w.id(), platform, byId, task, latency);
      double period = 1 / rates[i] + request.eps();
      List<Timeline.Piece> pieces = new ArrayList<>();
      for (int k = 0; k < chunks.size(); k++) {
        ChunkPlan c = chunks.get(k);
        pieces.add(new Timeline.Piece(c.start(), c.end(), first + k * period, first + (k + 1) * period));
      }
      lanes.add(new Timeline.Lane(w.id(), List.of(new Timeline.Interval(first - task / w.bandwidth(), first)), pieces));
    }
    List<ChunkPlan> pool = new ArrayList<>();
    if (at < request.end()) {
      pool.add(new ChunkPlan(at, request.end(), new long[0]));
    }
    StringBuilder reason = new StringBuilder(String.format(Locale.ROOT,
        "bandwidth-centric steady state%s: %.6g tasks of %d units per second", multiPort
            ? String.format(Locale.ROOT, " under bounded multi-port (each node sends to all its children at once, the"
                + " master up to %.6g units/s)", request.port().budget()) : "", steady.throughput(), task));
    for (Map.Entry<String, List<String>> e : steady.priorities().entrySet()) {
      reason.append("; ").append(e.getKey()).append(" serves ").append(String.join(" > ", e.getValue()));
    }
    return Plan.of(name(), reason.toString(), order, pool, new Timeline(lanes), request);
  }

  /** The platform as a tree of nodes for tasks of {@code task} units; the master does not compute. */
  static SteadyState.Node tree(Platform platform, long task) {
    return node(MASTER, null, platform, task);
  }

  private static SteadyState.Node node(String id, Worker w, Platform platform, long task) {
    List<SteadyState.Node> children = new ArrayList<>();
    for (Worker k : platform.workers()) {
      String parent = platform.parents().getOrDefault(k.id(), MASTER);
      if (parent.equals(id)) {
        children.add(node(k.id(), k, platform, task));
      }
    }
    for (Map.Entry<String, Double> r : new java.util.TreeMap<>(platform.relays()).entrySet()) {
      if (platform.parents().getOrDefault(r.getKey(), MASTER).equals(id)) {
        // a relay forwards and computes nothing: its subtree's rate, capped by its own link
        SteadyState.Node relay = node(r.getKey(), null, platform, task);
        children.add(new SteadyState.Node(r.getKey(), Double.POSITIVE_INFINITY, task / r.getValue(), relay.children()));
      }
    }
    return w == null
        ? new SteadyState.Node(id, Double.POSITIVE_INFINITY, 0, children)
        : new SteadyState.Node(id, task / w.speed(), task / w.bandwidth(), children);
  }

  /** Workers in serving order, depth first: a sub-master, then what it serves. */
  private static void order(String id, Map<String, List<String>> priorities, Map<String, Worker> byId, List<Worker> out) {
    for (String child : priorities.getOrDefault(id, List.of())) {
      if (byId.containsKey(child)) {
        // a relay is not served work of its own: only what it forwards
        out.add(byId.get(child));
      }
      order(child, priorities, byId, out);
    }
  }

  private static double pathLatency(String id, Platform platform, Map<String, Worker> byId, long task,
      Map<String, Double> memo) {
    Double known = memo.get(id);
    if (known != null) {
      return known;
    }
    String parent = platform.parents().get(id);
    double own = task / (byId.containsKey(id) ? byId.get(id).bandwidth() : platform.relays().get(id));
    double total = own + (parent == null ? 0 : pathLatency(parent, platform, byId, task, memo));
    memo.put(id, total);
    return total;
  }
}
