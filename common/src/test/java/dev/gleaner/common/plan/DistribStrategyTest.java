package dev.gleaner.common.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.distrib.DistribSolver;
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
  void riskFreeWorkersTakeEverythingInProportionToSpeed() {
    Platform p = new Platform(List.of(new Worker("owned", 30, 100, 0), new Worker("borrowed", 10, 100, 0.01),
        new Worker("server", 10, 100, 0)));
    Plan plan = Strategies.byName("distrib").plan(new PlanRequest(0, 400, p, 0, 0, x -> x));
    plan.requireCovers(0, 400);
    assertEquals(List.of("owned", "server"), plan.order().stream().map(Assignment::workerId).toList());
    assertEquals(300, plan.order().get(0).units());
    assertEquals(100, plan.order().get(1).units());
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
