package dev.gleaner.bench;

import dev.gleaner.common.plan.distrib.DistribSolver;
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
 * The DISTRIB solver on fully heterogeneous workers (speed 1-100 units/s, bandwidth 10-1000 units/s,
 * risk 1e-4 to 1e-2 per second, fixed seed): choosing the order and the amounts for all of W.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar DistribBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class DistribBenchmark {
  @Param({"7", "100", "1000"})
  public int workers;

  /** Units to share: within the validity bound ("inside") or far beyond it ("beyond"). */
  @Param({"inside", "beyond"})
  public String work;

  private double[] speed;
  private double[] bandwidth;
  private double[] risk;
  private double units;

  @Setup
  public void setUp() {
    Random random = new Random(42);
    speed = new double[workers];
    bandwidth = new double[workers];
    risk = new double[workers];
    for (int i = 0; i < workers; i++) {
      speed[i] = 1 + 99 * random.nextDouble();
      bandwidth[i] = 10 + 990 * random.nextDouble();
      risk[i] = 1e-4 + 1e-2 * random.nextDouble();
    }
    units = work.equals("inside") ? 100 : 1e6;
  }

  @Benchmark
  public DistribSolver.Result solve() {
    return DistribSolver.solve(speed, bandwidth, risk, units, DistribSolver.Deploy.ALL);
  }
}
