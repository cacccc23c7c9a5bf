package dev.gleaner.bench;

import dev.gleaner.common.recovery.LoadProfile;
import dev.gleaner.common.recovery.OptimalScheme;
import dev.gleaner.common.recovery.Schemes;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Recovery schemes, cold: each fork makes one call in a fresh JVM, as the master does once per worker
 * count and {@code gleaner recovery} once per run (the modulo search memoises per n, so a warm second
 * call would measure a cache).
 *
 * <ul>
 *   <li>{@code best-N}: {@code Schemes.bestProfile(N)}, building every generator's scheme for N and
 *       its exact worst-case vector (n > 32: up to the first k above MV, at most 60 crashes).
 *   <li>{@code optimal-N}: the exhaustive branch and bound of Paper VI for N computers.
 * </ul>
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar RecoveryBenchmark}; the n = 20 search (about
 * 40 s) with {@code -p scheme=optimal-20}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(3)
public class RecoveryBenchmark {
  @Param({"best-21", "best-100", "best-1000", "optimal-21", "optimal-24"})
  public String scheme;

  @Benchmark
  public Object build() {
    int dash = scheme.indexOf('-');
    int n = Integer.parseInt(scheme.substring(dash + 1));
    return switch (scheme.substring(0, dash)) {
      case "best" -> bestWithProfile(n);
      case "optimal" -> exhaustive(n);
      default -> throw new IllegalArgumentException("unknown case " + scheme);
    };
  }

  private static LoadProfile bestWithProfile(int n) {
    return Schemes.bestProfile(n);
  }

  private static OptimalScheme.Result exhaustive(int n) {
    OptimalScheme.Result r = new OptimalScheme().search(n);
    if (!r.exhaustive()) {
      throw new IllegalStateException("the search for n = " + n + " did not finish within its budget");
    }
    return r;
  }
}
