package dev.gleaner.deploy.bench.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.testbed.LinkMeter;
import dev.gleaner.deploy.testbed.Rate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The tree bench's figures: its steady rate read from link counters, and its two predictions, worked by hand. */
class TreeBenchTest {
  private static final double P = Rate.TCP_PAYLOAD;

  private static TreeBench bench(String uplink, List<String> relays, List<String> workers, List<Integer> under) {
    return new TreeBench(new TreeBench.Settings(Rate.parse(uplink), relays.stream().map(Rate::parse).toList(),
        workers.stream().map(Rate::parse).toList(), under, 64 << 20, 1 << 20, 1, "fit", "8M", false), System.err);
  }

  @Test
  void twoRelaysOfTwoThinLinksEach() {
    // 10 and 20 mbit under each relay (1.25 and 2.5 MB/s), relays at 80 mbit, the master at 100 mbit
    TreeBench b = bench("100mbit", List.of("80mbit", "80mbit"), List.of("10mbit", "20mbit", "10mbit", "20mbit"),
        List.of(1, 1, 2, 2));
    assertEquals(2 * 3.75e6 * P, b.multiPort(true), 1, "each relay carries its two links' sum");
    assertEquals(2 * 3.75e6 * P, b.multiPort(false), 1);
    // one port: a relay keeps its 20 mbit child busy (all of its port) and gives the 10 mbit one nothing;
    // the master's port, a task per 10 MB/s to a relay, feeds both relays their 2.5 MB/s
    assertEquals(2 * 2.5e6 * P, b.onePort(true), 1);
    // the star: the master's port keeps only the fastest, 20 mbit, link busy
    assertEquals(2.5e6 * P, b.onePort(false), 1);
  }

  @Test
  void aSiteBehindAThinUplinkIsBoundByIt() {
    TreeBench b = bench("40mbit", List.of("40mbit"), List.of("1gbit", "1gbit", "1gbit", "1gbit"), List.of(1, 1, 1, 1));
    assertEquals(5e6 * P, b.multiPort(true), 1);
    assertEquals(5e6 * P, b.multiPort(false), 1);
    assertEquals(5e6 * P, b.onePort(true), 1);
  }

  /**
   * The simulator's time for each shape: at the bounded multi-port steady state, a little over it for
   * the start and the last chunks; a relay thinner than its workers' links together holds them to it.
   */
  @Test
  void theSimulatedRunsGoAtTheSteadyStateOfTheirShape() {
    TreeBench b = bench("100mbit", List.of("80mbit", "80mbit"), List.of("10mbit", "20mbit", "10mbit", "20mbit"),
        List.of(1, 1, 2, 2));
    double bytes = 64 << 20;
    for (boolean tree : List.of(true, false)) {
      double ideal = bytes / b.multiPort(tree);
      double simulated = TreePrediction.seconds(b.settings(), tree, true);
      assertTrue(simulated >= ideal && simulated <= 1.05 * ideal, tree + ": " + simulated + " s against " + ideal);
      assertTrue(TreePrediction.seconds(b.settings(), tree, false) >= simulated, "learning the links costs time");
    }
    TreeBench thin = bench("100mbit", List.of("20mbit"), List.of("20mbit", "20mbit", "20mbit"), List.of(1, 1, 0));
    double tree = TreePrediction.seconds(thin.settings(), true, true);
    double star = TreePrediction.seconds(thin.settings(), false, true);
    // the star: 3 x 2.5 MB/s; the tree: the relay's 2.5 MB/s and the direct worker's 2.5
    assertEquals(bytes / (7.5e6 * P), star, 0.05 * star);
    assertEquals(bytes / (5e6 * P), tree, 0.05 * tree);
  }

  @Test
  void theSteadyRateIsReadBetweenAFifthAndFourFifthsOfWhatTheLinksCarried() {
    // two relays (links 1, 2) and two workers (links 3, 4): the workers get 1 MB/s each for 10 s after a 2 s start
    List<LinkMeter.Sample> samples = new ArrayList<>();
    for (int k = 0; k <= 140; k++) {
      double t = k / 10.0;
      long each = (long) (Math.max(0, Math.min(t, 12) - 2) * 1e6);
      samples.add(new LinkMeter.Sample(t, new long[] {7 * each, 5 * each, 5 * each, each, each}));
    }
    assertEquals(2e6, TreeBench.steady(samples, 2, 2), 1e3);
  }

  @Test
  void aWorkerSpecWithoutItsRelayIsOneLine() {
    TreeOptions o = new TreeOptions();
    o.workers = List.of("10mbit");
    o.uplink = "unlimited";
    o.fileMib = 64;
    o.chunkMib = 1;
    o.repeat = 1;
    o.relayBuffer = "8M";
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, o::settings);
    assertEquals("--tree: '10mbit' is not RATE@R (R: its relay, 1, 2, ...; 0: the master)", e.getMessage());
  }
}
