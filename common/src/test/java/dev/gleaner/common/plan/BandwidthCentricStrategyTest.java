package dev.gleaner.common.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The bandwidth-centric plan on a platform of sub-masters three levels deep. */
class BandwidthCentricStrategyTest {
  private static final long TASK = 10;

  /**
   * Tasks of 10 units; w = 10 / speed, c = 10 / bandwidth. The master (which does not compute) serves
   * A (w 1, c 1/4), B (w 1, c 1) and C (w 1/10, c 5); A serves A1 (w 2, c 1/2), A2 (w 1, c 2) and
   * A3 (w 1/5, c 4); A1 serves A1a (w 1, c 1/2). Listed out of order, so that the plan must sort.
   */
  private static final Platform TREE = new Platform(List.of(
      new Worker("C", 100, 2, 0), new Worker("A3", 50, 2.5, 0), new Worker("A1a", 10, 20, 0),
      new Worker("B", 10, 10, 0), new Worker("A2", 10, 5, 0), new Worker("A", 10, 40, 0), new Worker("A1", 5, 20, 0)),
      Map.of("A1", "A", "A2", "A", "A3", "A", "A1a", "A1"));

  /**
   * The steady state by hand, bottom up. A1's subtree: A1 computes 1/2 and keeps A1a busy (1 a
   * second, half of A1's port): 3/2. A: computes 1; A1 first (c 1/2, its 3/2 take 3/4 of A's port),
   * then A2 gets the leftover 1/4 of the port, 1/8 a second; A3 (c 4) comes after a full port and
   * gets nothing. A's subtree: 21/8. The master: A first (c 1/4, 21/32 of its port), B the leftover
   * 11/32 at c 1, 11/32 a second; C (c 5) gets nothing. Throughput 95/32.
   */
  private static final Map<String, Double> RATES = new LinkedHashMap<>();

  static {
    RATES.put("A", 1.0);
    RATES.put("A1", 0.5);
    RATES.put("A1a", 1.0);
    RATES.put("A2", 0.125);
    RATES.put("A3", 0.0);
    RATES.put("B", 11.0 / 32);
    RATES.put("C", 0.0);
  }

  private static Plan plan(long units) {
    return Strategies.byName("bandwidth-centric").plan(new PlanRequest(0, units, TREE, TASK, 0, x -> x));
  }

  @Test
  void unitsFollowTheSteadyStateRatesOnANestedPlatform() {
    long units = 9503;
    Plan plan = plan(units);
    plan.requireCovers(0, units);
    double throughput = 95.0 / 32;
    long given = 0;
    for (Assignment a : plan.order()) {
      double share = RATES.get(a.workerId()) / throughput * units;
      assertTrue(Math.abs(a.units() - share) <= TASK, a.workerId() + " has " + a.units() + " units, its rate's share "
          + share);
      given += a.units();
      for (int k = 0; k + 1 < a.chunks().size(); k++) {
        assertEquals(TASK, a.chunks().get(k).units(), "whole tasks");
      }
    }
    assertEquals(units, given, "every task is given to a worker");
  }

  @Test
  void aWorkerPastASaturatedPortGetsNothing() {
    Map<String, Long> units = new LinkedHashMap<>();
    for (Assignment a : plan(9503).order()) {
      units.put(a.workerId(), a.units());
    }
    assertEquals(0, units.get("C"), "past the master's port, filled by A and B");
    assertEquals(0, units.get("A3"), "past A's port, filled by A1 and A2");
    assertTrue(units.get("A2") > 0 && units.get("B") > 0, "the ones given a port's leftover get some: " + units);
  }

  @Test
  void orderIsDepthFirstByIncreasingCommunicationTime() {
    List<String> ids = plan(9503).order().stream().map(Assignment::workerId).toList();
    assertEquals(List.of("A", "A1", "A1a", "A2", "A3", "B", "C"), ids);
  }

  @Test
  void reasonNamesEverySubMastersServingOrder() {
    String reason = plan(9503).reason();
    assertTrue(reason.contains("2.96875 tasks of 10 units per second"), reason);
    assertTrue(reason.contains(BandwidthCentricStrategy.MASTER + " serves A > B > C"), reason);
    assertTrue(reason.contains("A serves A1 > A2 > A3"), reason);
    assertTrue(reason.contains("A1 serves A1a"), reason);
  }

  /**
   * Two relays, each over a link of 10 tasks/s, each forwarding to a worker on a link of 2 tasks/s
   * and one of 1 task/s, both computing 100 tasks/s. Under one port a relay keeps its faster child's
   * link busy all the time (2 tasks/s, all of its port) and gives the slower none; the master's
   * port spends a tenth of a second per task on either relay, so both are fed: 4 tasks/s in all.
   */
  @Test
  void relaysForwardOnlyAndTheirSlowerChildrenWaitBehindTheirPorts() {
    Platform p = new Platform(List.of(new Worker("w1", 1000, 10, 0), new Worker("w2", 1000, 20, 0),
        new Worker("w3", 1000, 10, 0), new Worker("w4", 1000, 20, 0)),
        Map.of("w1", "r1", "w2", "r1", "w3", "r2", "w4", "r2"), Map.of("r1", 100.0, "r2", 100.0));
    Plan plan = Strategies.byName("bandwidth-centric").plan(new PlanRequest(0, 4000, p, TASK, 0, x -> x));
    Map<String, Long> units = new LinkedHashMap<>();
    for (Assignment a : plan.order()) {
      units.put(a.workerId(), a.chunks().stream().mapToLong(c -> c.end() - c.start()).sum());
    }
    assertEquals(List.of("w2", "w1", "w4", "w3"), List.copyOf(units.keySet()), "relays are not served work");
    assertEquals(2000L, units.get("w2"));
    assertEquals(2000L, units.get("w4"));
    assertEquals(0L, units.get("w1"));
    assertEquals(0L, units.get("w3"));
    assertTrue(plan.reason().startsWith("bandwidth-centric steady state: 4.00000 tasks of 10 units per second"), plan.reason());
    assertTrue(plan.reason().contains("r1 serves w2 > w1") && plan.reason().contains("(master) serves r1 > r2"),
        plan.reason());
  }

  /** The same relays under a port that feeds every child at once: all four workers busy, 6 tasks/s. */
  @Test
  void underBoundedMultiPortEveryChildOfARelayIsFed() {
    Platform p = new Platform(List.of(new Worker("w1", 1000, 10, 0), new Worker("w2", 1000, 20, 0),
        new Worker("w3", 1000, 10, 0), new Worker("w4", 1000, 20, 0)),
        Map.of("w1", "r1", "w2", "r1", "w3", "r2", "w4", "r2"), Map.of("r1", 100.0, "r2", 100.0));
    Plan plan = Strategies.byName("bandwidth-centric").plan(new PlanRequest(0, 6000, p, TASK, 0, x -> x, 0,
        dev.gleaner.common.model.RiskModel.LINEAR, Double.NaN, false,
        new dev.gleaner.common.port.PortRule(Integer.MAX_VALUE, 1000)));
    Map<String, Long> units = new LinkedHashMap<>();
    for (Assignment a : plan.order()) {
      units.put(a.workerId(), a.chunks().stream().mapToLong(c -> c.end() - c.start()).sum());
    }
    assertEquals(Map.of("w1", 1000L, "w2", 2000L, "w3", 1000L, "w4", 2000L), units);
    assertTrue(plan.reason().startsWith("bandwidth-centric steady state under bounded multi-port"), plan.reason());
    assertTrue(plan.reason().contains(": 6.00000 tasks of 10 units per second"), plan.reason());
  }
}
