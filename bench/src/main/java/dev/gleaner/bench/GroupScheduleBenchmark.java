package dev.gleaner.bench;

import dev.gleaner.common.plan.replicate.GroupSchedule;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The greedy group schedule of paper 000 for g = 100 computers and n = 1,000 chunks (exact
 * products), and its K.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar GroupScheduleBenchmark}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class GroupScheduleBenchmark {
  @Benchmark
  public int[][] greedyG100N1000() {
    return GroupSchedule.chart(GroupSchedule.Kind.GREEDY, 100, 1000);
  }

  @Benchmark
  public java.math.BigInteger greedyKG100N1000() {
    return GroupSchedule.k(GroupSchedule.chart(GroupSchedule.Kind.GREEDY, 100, 1000));
  }
}
