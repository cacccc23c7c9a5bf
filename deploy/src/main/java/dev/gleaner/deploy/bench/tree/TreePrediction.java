package dev.gleaner.deploy.bench.tree;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.port.Sends;
import dev.gleaner.common.sim.ClosedLoop;
import dev.gleaner.common.sim.SimNetwork;
import dev.gleaner.deploy.testbed.Rate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code gleaner simulate}'s closed loop says of a run of the tree bench: the master's own
 * controller, self-scheduling the same chunks, on a simulated tree (or star) of the same links at their
 * TCP payload, each stream sharing the master's uplink and its relay's link max-min fairly with the
 * others on them, the master's port in the bench's {@code --concurrent-sends} mode. The workers count
 * far faster than their links carry ({@link #SPEED}), so the links decide; with the input at the
 * relays they do not, and there is no figure (NaN).
 */
final class TreePrediction {
  /** A worker's simulated speed, bytes/s: {@code wc} counts hundreds of MB/s, far above any shaped link. */
  static final double SPEED = 1e9;

  private TreePrediction() {}

  /** The platform of one shape: workers under their relays (the tree) or all on the master (the star). */
  static Platform platform(TreeBench.Settings settings, boolean tree) {
    List<Worker> workers = new ArrayList<>();
    Map<String, String> parents = new HashMap<>();
    Map<String, Double> relays = new HashMap<>();
    for (int i = 0; i < settings.workers().size(); i++) {
      String id = "w" + (i + 1);
      workers.add(new Worker(id, SPEED, payload(settings.workers().get(i)), 0));
      int r = settings.under().get(i);
      if (tree && r > 0) {
        parents.put(id, "r" + r);
        relays.put("r" + r, payload(settings.relays().get(r - 1)));
      }
    }
    return new Platform(workers, parents, relays);
  }

  /**
   * Seconds from the job's submission to its end, as the simulated master runs it; NaN for a tree
   * whose relays hold the input.
   *
   * @param linksKnown whether the master has measured the links before (a run before this one)
   */
  static double seconds(TreeBench.Settings settings, boolean tree, boolean linksKnown) {
    Platform platform = platform(settings, tree);
    long bytes = settings.fileBytes();
    if (tree && settings.inputAtRelays()) {
      // no link decides then: the workers' computing does, and their speed is not known here
      return Double.NaN;
    }
    int sends = Sends.parse("--tree-concurrent-sends", settings.concurrentSends());
    SimNetwork network = new SimNetwork(payload(settings.uplink()), sends).through(platform);
    JobDef job = JobDef.of("tree", "wc", 0, bytes, "self").withChunking(settings.chunkBytes(), 0)
        .withMinWorkers(platform.size()).withInput(1, x -> x);
    List<ClosedLoop.Host> hosts = new ArrayList<>();
    for (Worker w : platform.workers()) {
      hosts.add(new ClosedLoop.Host(w.id(), w.speed(), w.bandwidth(), w.speed(), 0, List.of(),
          Double.POSITIVE_INFINITY));
    }
    double slowest = Double.POSITIVE_INFINITY;
    for (Worker w : platform.workers()) {
      slowest = Math.min(slowest, w.bandwidth());
    }
    double horizon = 1000 * (bytes / slowest + 1);
    ClosedLoop.Setup setup = new ClosedLoop.Setup(ControlConfig.defaults(), 0.5, 0.005, horizon)
        .with(linksKnown ? network.withLinksKnown() : network);
    ClosedLoop.Result r = ClosedLoop.run(job, hosts, setup);
    if (r.committed() != bytes) {
      throw new IllegalStateException("the simulated run ended with " + r.committed() + " of " + bytes + " bytes");
    }
    return r.end();
  }

  private static double payload(Rate r) {
    return r.unlimited() ? Double.POSITIVE_INFINITY : r.bytesPerSecond() * Rate.TCP_PAYLOAD;
  }
}
