package dev.gleaner.bench;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Plan;
import dev.gleaner.common.plan.PlanRequest;
import dev.gleaner.common.plan.Strategies;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Whole plans, as {@code gleaner plan} makes them: 1,000 fully heterogeneous workers (speed 1-100
 * units/s, bandwidth 10-1,000 units/s, risk 1e-4 to 1e-2 per second, fixed seed), 10^6 units,
 * eps = 1 s: the strategy with its checkpoints, timeline and exact expectation.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar PlannerBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PlannerBenchmark {
  @Param({"distrib", "replicate", "fifo", "bandwidth-centric", "self"})
  public String strategy;

  private PlanRequest request;

  @Setup
  public void setUp() {
    Random random = new Random(42);
    List<Worker> workers = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      workers.add(new Worker("w" + i, 1 + 99 * random.nextDouble(), 10 + 990 * random.nextDouble(),
          1e-4 + 1e-2 * random.nextDouble()));
    }
    request = new PlanRequest(0, 1_000_000, new Platform(workers), 0, 0, x -> x, 1, RiskModel.LINEAR, Double.NaN, true);
  }

  @Benchmark
  public Plan plan1000Workers() {
    return Strategies.byName(strategy).plan(request);
  }
}
