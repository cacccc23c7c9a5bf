package dev.gleaner.common.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.bandwidth.SteadyState;
import dev.gleaner.common.port.Sends;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The simulator on trees (workers behind relays, paper 002): a data-heavy job self-scheduled across a
 * tree, every worker kept fed, runs at the bounded multi-port steady state of the same tree
 * ({@link SteadyState#solveMultiPort}), since max-min fair sharing of nested links saturates what the
 * tree can carry; and a relay's thin link slows its workers and no one else.
 */
class SimTreeTest {
  private static final double SPEED = 1e12;
  private static final long CHUNK = 250_000;

  /** A relay and the links of the workers under it, bytes/s (one byte per unit). */
  private record Relay(String id, double link, double[] workers) {}

  private static Platform platform(List<Relay> relays, double[] direct) {
    List<Worker> workers = new ArrayList<>();
    Map<String, String> parents = new HashMap<>();
    Map<String, Double> inner = new HashMap<>();
    for (Relay r : relays) {
      inner.put(r.id(), r.link());
      for (int i = 0; i < r.workers().length; i++) {
        String id = r.id() + "w" + i;
        workers.add(new Worker(id, SPEED, r.workers()[i], 0));
        parents.put(id, r.id());
      }
    }
    for (int i = 0; i < direct.length; i++) {
      workers.add(new Worker("d" + i, SPEED, direct[i], 0));
    }
    return new Platform(workers, parents, inner);
  }

  /** The bounded multi-port steady state of the same tree, units/s. */
  private static double steadyState(List<Relay> relays, double[] direct, double egress) {
    List<SteadyState.Node> top = new ArrayList<>();
    for (Relay r : relays) {
      List<SteadyState.Node> under = new ArrayList<>();
      for (int i = 0; i < r.workers().length; i++) {
        under.add(new SteadyState.Node(r.id() + "w" + i, 1 / SPEED, 1 / r.workers()[i], List.of()));
      }
      top.add(new SteadyState.Node(r.id(), Double.POSITIVE_INFINITY, 1 / r.link(), under));
    }
    for (int i = 0; i < direct.length; i++) {
      top.add(new SteadyState.Node("d" + i, 1 / SPEED, 1 / direct[i], List.of()));
    }
    return SteadyState.solveMultiPort(new SteadyState.Node("m", Double.POSITIVE_INFINITY, 0, top), egress)
        .throughput();
  }

  private static ClosedLoop.Result run(Platform platform, long units, SimNetwork network) {
    JobDef job = JobDef.of("j", "wc", 0, units, "self").withMinWorkers(platform.size()).withChunking(CHUNK, 1)
        .withInput(1, x -> x);
    List<ClosedLoop.Host> hosts = new ArrayList<>();
    for (Worker w : platform.workers()) {
      hosts.add(new ClosedLoop.Host(w.id(), w.speed(), w.bandwidth(), w.speed(), 0, List.of(),
          Double.POSITIVE_INFINITY));
    }
    ClosedLoop.Result r = ClosedLoop.run(job, hosts, ClosedLoop.Setup.defaults(36_000)
        .with(network.withLinksKnown().through(platform)));
    assertEquals(JobPhase.DONE, r.phase());
    assertEquals(units, r.committed());
    return r;
  }

  @Test
  void randomTreesRunAtTheirMultiPortSteadyState() {
    Random random = new Random(37);
    Map<String, Double> worst = new LinkedHashMap<>();
    for (int trial = 0; trial < 24; trial++) {
      List<Relay> relays = new ArrayList<>();
      int nRelays = 1 + random.nextInt(3);
      for (int r = 0; r < nRelays; r++) {
        double[] links = new double[1 + random.nextInt(3)];
        for (int i = 0; i < links.length; i++) {
          links[i] = 1e6 + 9e6 * random.nextDouble();
        }
        relays.add(new Relay("r" + r, 1e6 + 19e6 * random.nextDouble(), links));
      }
      double[] direct = new double[random.nextInt(3)];
      for (int i = 0; i < direct.length; i++) {
        direct[i] = 1e6 + 9e6 * random.nextDouble();
      }
      double egress = random.nextBoolean() ? Double.POSITIVE_INFINITY : 3e6 + 27e6 * random.nextDouble();
      double rate = steadyState(relays, direct, egress);
      // about 40 s of input at the steady rate, in whole chunks
      long units = Math.max(40, (long) (40 * rate / CHUNK)) * CHUNK;
      ClosedLoop.Result r = run(platform(relays, direct), units, new SimNetwork(egress, Sends.SHARE));
      double ran = units / r.end();
      String label = "trial " + trial + ": " + relays.size() + " relays, " + direct.length + " direct, egress "
          + egress + ": steady " + rate + " units/s, ran " + ran;
      // never faster than the tree can carry; slower only by the start and the last chunks' tail
      assertTrue(ran <= rate * (1 + 1e-6), label);
      assertTrue(ran >= 0.95 * rate, label);
      worst.merge("ratio", ran / rate, Math::min);
    }
    assertTrue(worst.get("ratio") >= 0.95, worst.toString());
  }

  /**
   * Two workers behind a relay whose link is thinner than theirs share it; a worker straight on the
   * master beside them keeps its own link: the relay's workers take twice as long as on their own
   * links, and the tree ends when they do.
   */
  @Test
  void aThinRelayLinkIsSharedByTheWorkersBehindIt() {
    List<Relay> thin = List.of(new Relay("r", 4e6, new double[] {4e6, 4e6}));
    List<Relay> fat = List.of(new Relay("r", 100e6, new double[] {4e6, 4e6}));
    double[] direct = {4e6};
    long units = 120_000_000;
    double throughThin = run(platform(thin, direct), units, new SimNetwork(Double.POSITIVE_INFINITY, Sends.SHARE))
        .end();
    double throughFat = run(platform(fat, direct), units, new SimNetwork(Double.POSITIVE_INFINITY, Sends.SHARE))
        .end();
    // 12 MB/s against 8 MB/s: self-scheduling gives the direct worker more chunks behind the thin relay
    assertEquals(units / 12e6, throughFat, 0.03 * units / 12e6);
    assertEquals(units / 8e6, throughThin, 0.03 * units / 8e6);
    // one at a time (the papers' one port), the relay's link only caps each stream, which is no thinner here
    double onePort = run(platform(thin, direct), units, new SimNetwork(Double.POSITIVE_INFINITY, 1)).end();
    assertEquals(units / 4e6, onePort, 0.03 * units / 4e6);
  }

  /**
   * A worker that forwards (a sub-master) takes its own input over its link too: it and the worker under
   * it share that link, 4 MB/s for both, not 4 each.
   */
  @Test
  void aSubMastersOwnInputSharesItsLinkWithItsChildren() {
    Platform tree = new Platform(List.of(new Worker("gate", SPEED, 4e6, 0), new Worker("leaf", SPEED, 4e6, 0)),
        Map.of("leaf", "gate"));
    long units = 80_000_000;
    double end = run(tree, units, new SimNetwork(Double.POSITIVE_INFINITY, Sends.SHARE)).end();
    assertEquals(units / 4e6, end, 0.03 * units / 4e6);
  }
}
