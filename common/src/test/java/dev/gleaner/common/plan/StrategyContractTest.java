package dev.gleaner.common.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.model.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongUnaryOperator;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** What every strategy must do, checked on each of them. */
class StrategyContractTest {
  @Property(tries = 400)
  void everyStrategyTilesTheRangeExactly(@ForAll @LongRange(min = 0, max = 1_000_000) long start,
      @ForAll @LongRange(min = 1, max = 5_000_000) long units, @ForAll @IntRange(min = 1, max = 40) int workers,
      @ForAll @LongRange(min = 0, max = 100_000) long chunkUnits, @ForAll @IntRange(min = 0, max = 12) int checkpoints,
      @ForAll @IntRange(min = 1, max = 1000) int alignEvery) {
    List<Worker> ws = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      ws.add(Worker.ofSpeed("w" + i, 1 + (i * 7919 % 13)));
    }
    long end = start + units;
    // legal cuts every alignEvery units (like line starts), the range end always legal
    LongUnaryOperator align = p -> Math.min(end, ((p + alignEvery - 1) / alignEvery) * alignEvery);
    // at most 20,000 chunks: the tiling is the same, and auto plans with every strategy
    long chunk = chunkUnits == 0 ? 0 : Math.max(chunkUnits, units / 20_000);
    check(new PlanRequest(start, end, new Platform(ws), chunk, checkpoints, align));
  }

  /** The same on workers that differ in speed, bandwidth and risk, with a per-chunk cost and replicas allowed. */
  @Property(tries = 25)
  void everyStrategyTilesTheRangeOnRiskyWorkers(@ForAll @LongRange(min = 0, max = 1_000_000) long start,
      @ForAll @LongRange(min = 1, max = 2_000_000) long units, @ForAll @IntRange(min = 1, max = 12) int workers,
      @ForAll @IntRange(min = 0, max = 12) int checkpoints, @ForAll @IntRange(min = 1, max = 1000) int alignEvery,
      @ForAll @IntRange(min = 0, max = 100) int eps) {
    List<Worker> ws = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      ws.add(new Worker("w" + i, 1 + (i * 7919 % 13), 10 + (i * 104729 % 997), 1e-4 * (1 + i * 31 % 17)));
    }
    long end = start + units;
    LongUnaryOperator align = p -> Math.min(end, ((p + alignEvery - 1) / alignEvery) * alignEvery);
    check(new PlanRequest(start, end, new Platform(ws), 0, checkpoints, align, eps, RiskModel.LINEAR, Double.NaN, true));
  }

  private static void check(PlanRequest request) {
    long start = request.start();
    long end = request.end();
    LongUnaryOperator align = request.align();
    for (String name : Strategies.names()) {
      Plan plan = Strategies.byName(name).plan(request);
      plan.requireCovers(start, end);
      for (ChunkPlan c : plan.allChunks()) {
        assertTrue(c.units() > 0);
        if (c.end() != end) {
          assertEquals(c.end(), align.applyAsLong(c.end()), name + ": chunk end " + c.end() + " is not a legal cut");
        }
        for (long cp : c.checkpoints()) {
          assertEquals(cp, align.applyAsLong(cp), name + ": checkpoint " + cp + " is not a legal cut");
        }
      }
      if (name.equals("auto")) {
        assertTrue(Strategies.names().contains(plan.strategy()) && !plan.strategy().equals("auto"), plan.strategy());
      } else {
        assertEquals(name, plan.strategy());
      }
      assertTrue(plan.expectedWork() >= 0 && plan.expectedWork() <= plan.timeline().deployed() + 1e-6 * end, name);
    }
  }

  @Test
  void proportionalSharesFollowSpeed() {
    Platform p = new Platform(List.of(Worker.ofSpeed("fast", 3), Worker.ofSpeed("slow", 1)));
    Plan plan = Strategies.byName("proportional").plan(new PlanRequest(0, 1000, p, 0, 0, LongUnaryOperator.identity()));
    assertEquals(750, plan.order().get(0).units());
    assertEquals(250, plan.order().get(1).units());
  }

  @Test
  void selfSchedulingUsesTheRequestedChunkSize() {
    Platform p = new Platform(List.of(Worker.ofSpeed("a", 1)));
    Plan plan = Strategies.byName("self").plan(new PlanRequest(0, 1000, p, 300, 0, LongUnaryOperator.identity()));
    assertEquals(List.of(300L, 300L, 300L, 100L), plan.pool().stream().map(ChunkPlan::units).toList());
  }

  @Test
  void unknownStrategyNamesTheKnownOnes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Strategies.byName("fastest"));
    assertTrue(e.getMessage().contains("equal") && e.getMessage().contains("self"), e.getMessage());
  }

  @Test
  void platformsRefuseDuplicateIdsAndBadSpeeds() {
    assertThrows(IllegalArgumentException.class, () -> new Platform(List.of(Worker.ofSpeed("a", 1), Worker.ofSpeed("a", 2))));
    assertThrows(IllegalArgumentException.class, () -> Worker.ofSpeed("a", 0));
    assertThrows(IllegalArgumentException.class, () -> Worker.ofSpeed("a", Double.NaN));
    assertThrows(IllegalArgumentException.class, () -> new Platform(List.of()));
  }
}
