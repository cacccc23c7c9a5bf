package dev.gleaner.common.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.distrib.DistribSolver;
import dev.gleaner.common.port.PortRule;
import java.util.List;
import org.junit.jupiter.api.Test;

class DistribStrategyTest {
  private static final Platform LAB = new Platform(List.of(
      new Worker("fast-risky", 40, 500, 0.004),
      new Worker("slow-link", 25, 60, 0.001),
      new Worker("steady", 10, 800, 0.0005),
      new Worker("old", 5, 300, 0.002)));

  private static Plan plan(long units) {
    return Strategies.byName("distrib").plan(new PlanRequest(0, units, LAB, 0, 0, x -> x));
  }

  @Test
  void insideTheValidityBoundHandsOutEverythingAsTheSolverSays() {
    long units = 2_000;
    Plan plan = plan(units);
    plan.requireCovers(0, units);
    assertTrue(plan.pool().isEmpty());
    double[] s = {40, 25, 10, 5};
    double[] bw = {500, 60, 800, 300};
    double[] k = {0.004, 0.001, 0.0005, 0.002};
    DistribSolver.Result r = DistribSolver.solve(s, bw, k, units, DistribSolver.Deploy.ALL);
    for (int i = 0; i < r.order().length; i++) {
      Assignment a = plan.order().get(i);
      assertEquals(LAB.workers().get(r.order()[i]).id(), a.workerId(), "service order");
      assertEquals(r.amounts()[i], a.units(), 1.0, a.workerId());
    }
    assertTrue(plan.reason().startsWith("DISTRIB: all 2000 units"), plan.reason());
  }

  @Test
  void beyondTheBoundKeepsBackWhatCannotPayAndPoolsIt() {
    long units = 200_000; // the risky workers would be certain to be interrupted
    Plan plan = plan(units);
    plan.requireCovers(0, units);
    assertFalse(plan.pool().isEmpty());
    long assigned = plan.order().stream().mapToLong(Assignment::units).sum();
    assertTrue(assigned < units / 2, "assigned " + assigned);
    assertTrue(plan.reason().contains("beyond its validity bound"), plan.reason());
  }

  @Test
  void riskFreeWorkersWithoutInputTakeEverythingInProportionToSpeed() {
    double none = Double.POSITIVE_INFINITY;
    Platform p = new Platform(List.of(new Worker("owned", 30, none, 0), new Worker("borrowed", 10, none, 0.01),
        new Worker("server", 10, none, 0)));
    Plan plan = Strategies.byName("distrib").plan(new PlanRequest(0, 400, p, 0, 0, x -> x));
    plan.requireCovers(0, 400);
    assertEquals(List.of("owned", "server"), plan.order().stream().map(Assignment::workerId).toList());
    assertEquals(300, plan.order().get(0).units());
    assertEquals(100, plan.order().get(1).units());
  }

  private static final Platform LINKS = new Platform(List.of(new Worker("thin", 40, 12.5, 0),
      new Worker("fast", 40, 100, 0), new Worker("mid", 20, 50, 0)));

  /**
   * The least makespan of any split on a grid of {@code 1/steps} of the units, in any service order,
   * each chunk in {@code checkpoints + 1} pieces as the plan cuts it.
   */
  private static double bruteForce(Platform p, long units, PortRule rule, int steps, int checkpoints) {
    List<Worker> w = p.workers();
    int[][] orders = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    double best = Double.POSITIVE_INFINITY;
    for (int[] o : orders) {
      for (int i = 0; i <= steps; i++) {
        for (int j = 0; i + j <= steps; j++) {
          long a = units * i / steps;
          long b = units * j / steps;
          long[] sizes = {a, b, units - a - b};
          List<Assignment> order = new java.util.ArrayList<>();
          long at = 0;
          for (int k = 0; k < 3; k++) {
            order.add(new Assignment(w.get(o[k]).id(), sizes[k] == 0 ? List.of()
                : List.of(Cutter.chunk(at, at + sizes[k], checkpoints, x -> x))));
            at += sizes[k];
          }
          best = Math.min(best, Timelines.singleRound(p, order, 0, rule).makespan());
        }
      }
    }
    return best;
  }

  private static Plan planUnder(PortRule rule, long units) {
    return planUnder("distrib", rule, units, 0);
  }

  private static Plan planUnder(String strategy, PortRule rule, long units, int checkpoints) {
    Plan plan = Strategies.byName(strategy).plan(new PlanRequest(0, units, LINKS, 0, checkpoints, x -> x, 0,
        dev.gleaner.common.model.RiskModel.LINEAR, Double.NaN, false, rule));
    plan.requireCovers(0, units);
    return plan;
  }

  /**
   * Risk-free workers behind links that differ: every split saves all the units, so DISTRIB takes the
   * one that ends soonest under the port. Checked against every split on a 1% grid in every order, for
   * one port, a bounded egress and an egress that takes every link at once.
   */
  @Test
  void riskFreeWorkersBehindLinksEndTogetherAsSoonAsAnySplitCould() {
    long units = 6_000;
    for (int checkpoints : new int[] {1, 9}) {
      for (PortRule rule : List.of(PortRule.ONE_PORT, new PortRule(Integer.MAX_VALUE, 120),
          new PortRule(Integer.MAX_VALUE, 200))) {
        endsAsSoonAsAnySplitCould(rule, units, checkpoints);
      }
    }
  }

  private static void endsAsSoonAsAnySplitCould(PortRule rule, long units, int checkpoints) {
    {
      Plan plan = planUnder("distrib", rule, units, checkpoints);
      double best = bruteForce(LINKS, units, rule, 100, checkpoints);
      double makespan = plan.timeline().makespan();
      assertTrue(makespan <= best * 1.001, rule + ": " + makespan + " s against " + best + " s on the grid");
      // one port, or every link at once: by non-increasing bandwidth; an egress of 120 takes the thin
      // link beside the fast one (112.5) but not the middle one (150), so the thin one goes second
      assertEquals(rule.budget() == 120 ? List.of("fast", "thin", "mid") : List.of("fast", "mid", "thin"),
          plan.order().stream().map(Assignment::workerId).toList(), rule + ": the service order");
      double first = Double.POSITIVE_INFINITY;
      double last = 0;
      for (Timeline.Lane l : plan.timeline().lanes()) {
        first = Math.min(first, l.end());
        last = Math.max(last, l.end());
      }
      assertEquals(last, first, last * 0.002, rule + ": every worker ends at once");
    }
  }

  /**
   * A worker computes each piece once its input is there: with the link binding, its chunk ends a
   * piece's computing after the last byte; with the computing binding, a piece's input after its
   * first byte, ten pieces of computing later. All the input and then all the computing (the papers'
   * worker) is the one-piece case.
   */
  @Test
  void aPieceStartsOnceItsOwnInputIsThere() {
    for (double[] c : new double[][] {{1e6, 2e6, 10 + 0.5}, {4e6, 1e6, 0.25 + 10}}) {
      Platform one = new Platform(List.of(new Worker("w", c[1], c[0], 0)));
      long units = 10_000_000;
      double pieces = Timelines.singleRound(one, List.of(new Assignment("w",
          List.of(Cutter.chunk(0, units, 9, x -> x)))), 0).makespan();
      assertEquals(c[2], pieces, 1e-9, "ten pieces, link " + c[0] + ", speed " + c[1]);
      double whole = Timelines.singleRound(one, List.of(new Assignment("w",
          List.of(new ChunkPlan(0, units, new long[0])))), 0).makespan();
      assertEquals(units / c[0] + units / c[1], whole, 1e-9, "one piece");
    }
  }

  /**
   * DISTRIB's order turned around, the thinnest link first: its own sizes still end together, and
   * under one port it ends later than DISTRIB's order by what the theory says the order is worth.
   */
  @Test
  void theReverseOrderServesTheThinnestLinkFirstAndEndsLaterUnderOnePort() {
    Plan reverse = planUnder("distrib-reverse", PortRule.ONE_PORT, 6_000, 0);
    assertEquals(List.of("thin", "mid", "fast"), reverse.order().stream().map(Assignment::workerId).toList());
    double first = Double.POSITIVE_INFINITY;
    double last = 0;
    for (Timeline.Lane l : reverse.timeline().lanes()) {
      first = Math.min(first, l.end());
      last = Math.max(last, l.end());
    }
    assertEquals(last, first, last * 0.002, "every worker ends at once");
    double distrib = planUnder(PortRule.ONE_PORT, 6_000).timeline().makespan();
    assertTrue(reverse.timeline().makespan() > distrib * 1.2, reverse.timeline().makespan() + " s against " + distrib);
    assertTrue(reverse.reason().contains("non-decreasing bandwidth"), reverse.reason());
  }

  @Test
  void thePlanSaysWhichPortItAssumedAndWhy() {
    assertTrue(planUnder(PortRule.ONE_PORT, 6_000).reason().endsWith("under one port (one stream at a time)"),
        planUnder(PortRule.ONE_PORT, 6_000).reason());
    assertTrue(planUnder(new PortRule(8, 200), 6_000).reason().contains("every link at once (the master's egress, 200"
        + " units/s, takes the links' sum, 162.5)"), planUnder(new PortRule(8, 200), 6_000).reason());
    String bounded = planUnder(new PortRule(8, 120), 6_000).reason();
    assertTrue(bounded.contains("in the order that packs the links best into the egress, under bounded multi-port"),
        bounded);
    assertTrue(planUnder(new PortRule(8, 55), 6_000).reason().contains("one port (no two links fit together"),
        planUnder(new PortRule(8, 55), 6_000).reason());
  }

  /** The old way to share out the units rounding left over: one at a time to the largest remainder left. */
  private static long[] roundOneByOne(double[] amounts, long total) {
    double sum = java.util.Arrays.stream(amounts).sum();
    long[] out = new long[amounts.length];
    double[] frac = new double[amounts.length];
    long given = 0;
    for (int i = 0; i < amounts.length; i++) {
      double share = sum > 0 ? amounts[i] * total / sum : 0;
      out[i] = (long) Math.floor(share);
      frac[i] = share - out[i];
      given += out[i];
    }
    while (given < total) {
      int best = 0;
      for (int i = 1; i < frac.length; i++) {
        if (frac[i] > frac[best]) {
          best = i;
        }
      }
      out[best]++;
      frac[best] = -1;
      given++;
    }
    return out;
  }

  @Test
  void roundingGivesTheUnitsLeftOverAsOneAtATimeToTheLargestRemainderWould() {
    java.util.Random rnd = new java.util.Random(3);
    for (int i = 0; i < 200; i++) {
      int n = 1 + rnd.nextInt(i < 190 ? 40 : 5000);
      double[] amounts = new double[n];
      for (int k = 0; k < n; k++) {
        // some equal remainders, to check ties go to the earlier worker
        amounts[k] = rnd.nextInt(4) == 0 ? 2.5 : 1000 * rnd.nextDouble();
      }
      long total = (long) (java.util.Arrays.stream(amounts).sum() * (0.5 + rnd.nextDouble()));
      assertEquals(java.util.Arrays.toString(roundOneByOne(amounts, total)),
          java.util.Arrays.toString(DistribStrategy.round(amounts, total)), "instance " + i);
    }
  }
}
