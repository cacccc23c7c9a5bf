package dev.gleaner.bench;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.Verdict;
import dev.gleaner.common.control.WorkerInfo;
import dev.gleaner.common.model.RiskModel;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The controller's own cost, without network or disk.
 *
 * <ul>
 *   <li>{@code pieceRoundTrip2000Workers}: one decision cycle of a running job on 2,000 workers: a
 *       worker reports a piece, it is committed, and the controller hands out the next one (a
 *       self-scheduled job of 10^6 chunks, so the queue never runs dry).
 *   <li>{@code replan}: a worker of {@code planners} fully heterogeneous ones (speed 1-100
 *       units/s, interruption histories giving risks of 1e-4 to 1e-2 per second) leaves, or comes
 *       back (one re-plan per call); the controller re-plans the 10^9 units not handed out yet with the strategy
 *       {@code auto} picked for these workers (checkpoints and exact expectation included), the
 *       lost worker's units following its recovery list first.
 * </ul>
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar ControllerBenchmark}
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ControllerBenchmark {
  /** Copies handed out and not yet reported, per worker. */
  private final Map<String, Deque<Action.Assign>> held = new java.util.HashMap<>();
  private final Deque<String> turn = new ArrayDeque<>();
  private Controller running;
  private double now;

  @Param({"100", "1000"})
  public int planners;

  private Controller planning;
  private double planNow;
  private int next;

  /** A fresh running job each iteration, so its 10^6 chunks never run out under measurement. */
  @Setup(Level.Iteration)
  public void setUpRunning() {
    held.clear();
    turn.clear();
    now = 0;
    running = new Controller();
    running.addJob(JobDef.of("j", "w", 0, 1_000_000_000L, "self").withChunking(1000, 0).withMinWorkers(2000), 0);
    for (int i = 0; i < 2000; i++) {
      running.workerJoined(WorkerInfo.of("w" + i, "w", 1e6), 0);
    }
    record(running.drain());
  }

  @Setup(Level.Trial)
  public void setUpPlanning() {
    if (planners == 0) {
      planners = 1000;
    }
    Random random = new Random(42);
    planning = new Controller();
    planning.addJob(JobDef.of("p", "w", 0, 1_000_000_000L, "auto").withMinWorkers(planners)
        .withRisk(RiskModel.LINEAR), 0);
    for (int i = 0; i < planners; i++) {
      // a history whose rate gives this worker a risk of 1e-4 to 1e-2 per second
      double rate = 2 * (1e-4 + 1e-2 * random.nextDouble());
      planning.workerJoined(new WorkerInfo("p" + i, Set.of("w"), 1, Map.of("w", 1 + 99 * random.nextDouble()),
          Double.POSITIVE_INFINITY, 20, 20 / rate), 0);
    }
    planning.drain();
    planNow = 10;
  }

  private void record(List<Action> actions) {
    for (Action a : actions) {
      if (a instanceof Action.Assign x) {
        held.computeIfAbsent(x.worker(), k -> new ArrayDeque<>()).add(x);
        turn.add(x.worker());
      }
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public int pieceRoundTrip2000Workers() {
    String w = turn.poll();
    Action.Assign a = held.get(w).poll();
    now += 1e-4;
    Verdict v = running.piece(w, a.job(), a.copyId(), a.start(), a.end(), now);
    running.committed(w, a.job(), a.copyId(), a.start(), a.end(), 1e-3, now);
    List<Action> out = running.drain();
    record(out);
    return v.ordinal() + out.size();
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public int replan() {
    // one re-plan per call: a worker leaves, and at the next call it comes back
    int k = next++;
    String w = "p" + ((k / 2) % planners);
    planNow += 2;
    if (k % 2 == 0) {
      planning.workerLost(w, "benchmark", false, planNow);
    } else {
      planning.workerJoined(WorkerInfo.of(w, "w", 50), planNow);
    }
    return planning.drain().size();
  }

  /** A quick check outside JMH: {@code java -cp benchmarks.jar dev.gleaner.bench.ControllerBenchmark}. */
  public static void main(String[] args) {
    ControllerBenchmark b = new ControllerBenchmark();
    b.setUpRunning();
    b.setUpPlanning();
    long t0 = System.nanoTime();
    for (int i = 0; i < 200_000; i++) {
      b.pieceRoundTrip2000Workers();
    }
    System.out.printf("piece round trips: %.0f/s%n", 200_000 / ((System.nanoTime() - t0) / 1e9));
    for (int i = 0; i < 5; i++) {
      long t1 = System.nanoTime();
      int n = b.replan();
      System.out.printf("re-plan with %d workers: %.1f ms (%d actions)%n", b.planners, (System.nanoTime() - t1) / 1e6, n);
    }
  }
}
