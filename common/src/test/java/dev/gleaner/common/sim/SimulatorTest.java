package dev.gleaner.common.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Assignment;
import dev.gleaner.common.plan.ChunkPlan;
import dev.gleaner.common.plan.Plan;
import dev.gleaner.common.plan.PlanRequest;
import dev.gleaner.common.plan.Strategies;
import dev.gleaner.common.plan.Timeline;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class SimulatorTest {
  static Platform platform(Random rnd, int p) {
    List<Worker> ws = new ArrayList<>();
    for (int i = 0; i < p; i++) {
      ws.add(new Worker("w" + i, 1 + 9 * rnd.nextDouble(), 20 + 500 * rnd.nextDouble(), 0.002 + 0.02 * rnd.nextDouble()));
    }
    return new Platform(ws);
  }

  /**
   * For every strategy, on random risky platforms: allocations are whole chunks that tile the job,
   * the expectation never exceeds what is deployed, and the Monte Carlo mean of the plan's timeline
   * is within 4 standard errors of its analytic expectation, for linear and exponential risk, with and
   * without a deadline.
   */
  @Property(tries = 12, seed = "20261123")
  void everyStrategyIsConsistentWithItsSimulation(@ForAll @IntRange(min = 1, max = 6) int p,
      @ForAll @LongRange(min = 50, max = 5000) long work, @ForAll @IntRange(min = 0, max = 1000) int salt) {
    Random rnd = new Random(salt);
    Platform platform = platform(rnd, p);
    RiskModel risk = rnd.nextBoolean() ? RiskModel.LINEAR : RiskModel.EXPONENTIAL;
    double deadline = rnd.nextInt(3) == 0 ? 20 + 200 * rnd.nextDouble() : Double.NaN;
    PlanRequest request = new PlanRequest(0, work, platform, 0, 0, x -> x, rnd.nextDouble(), risk, deadline, true);
    for (String name : Strategies.names()) {
      Plan plan = Strategies.byName(name).plan(request);
      plan.requireCovers(0, work);
      long deployed = plan.timeline().deployed();
      assertTrue(plan.expectedWork() <= deployed + 1e-9, name + ": expected " + plan.expectedWork() + " > deployed " + deployed);
      assertTrue(plan.expectedWork() >= 0, name);
      for (Assignment a : plan.order()) {
        for (ChunkPlan c : a.chunks()) {
          assertTrue(c.units() > 0, name);
        }
      }
      Simulator.Estimate e = Simulator.run(plan.timeline(), platform, risk,
          request.hasDeadline() ? deadline : Double.POSITIVE_INFINITY, 20_000, salt);
      // the sample's standard error is unreliable when losses are rare; the loss L = deployed - done
      // lies in [0, deployed], so Var(L) <= E[L] (deployed - E[L]) (Bhatia-Davis) bounds the true one
      double loss = Math.max(0, deployed - plan.expectedWork());
      double bound = Math.sqrt(loss * (deployed - loss) / e.trials());
      double slack = 4 * Math.max(e.stdErr(), bound) + 1e-9 * work;
      assertEquals(plan.expectedWork(), e.mean(), slack, name + " on " + platform + " W=" + work + " " + risk.name());
    }
  }

  /**
   * H6 knows the interruption times: in every trial it does at least what any static heuristic
   * does, give or take the short last chunk (a static worker may finish it faster than a full one).
   */
  @Test
  void omniscientIsAnUpperLimit() {
    Random rnd = new Random(61);
    for (int round = 0; round < 20; round++) {
      Platform platform = platform(rnd, 2 + rnd.nextInt(6));
      long work = 100 + rnd.nextInt(3000);
      long cs = 1 + rnd.nextInt(40);
      double eps = rnd.nextDouble() * 0.5;
      List<Timeline> statics = new ArrayList<>();
      for (Heuristics.Kind k : List.of(Heuristics.Kind.H1_BRUTE, Heuristics.Kind.H2_NOREP, Heuristics.Kind.H3_CYCLICREP,
          Heuristics.Kind.H4_RANDOMREP)) {
        statics.add(Heuristics.timeline(k, platform, work, cs, eps, round));
      }
      Simulator.run(platform, RiskModel.LINEAR, Double.POSITIVE_INFINITY, 200, round, down -> {
        double best = Heuristics.omniscient(platform, work, cs, eps, down);
        for (Timeline t : statics) {
          assertTrue(t.workDone(down) <= best + cs, "a static heuristic beat H6");
        }
        return best;
      });
    }
  }

  /** With no interruptions every heuristic that covers the job does it all, and H2 covers it without replicas. */
  @Test
  void heuristicsCoverTheJob() {
    Platform platform = new Platform(List.of(Worker.ofSpeed("a", 2), Worker.ofSpeed("b", 3)));
    for (Heuristics.Kind k : List.of(Heuristics.Kind.H1_BRUTE, Heuristics.Kind.H2_NOREP, Heuristics.Kind.H3_CYCLICREP,
        Heuristics.Kind.H4_RANDOMREP)) {
      Timeline t = Heuristics.timeline(k, platform, 1000, 30, 0, 1);
      assertEquals(1000, t.deployed(), k.label());
      assertEquals(1000, t.expectedWork(platform, RiskModel.LINEAR), 1e-9, k.label());
    }
    assertEquals(500, Heuristics.timeline(Heuristics.Kind.H2_NOREP, platform, 1000, 50, 0, 1).lanes().get(0).units());
  }
}
