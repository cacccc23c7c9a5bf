package dev.gleaner.bench;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.Verdict;
import dev.gleaner.common.control.WorkerInfo;
import dev.gleaner.common.model.RiskModel;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
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
 *   <li>{@code handOut}: the same cycle on {@code workers} workers that each declare 10^9 units/s,
 *       so the lead lets each hold 32 chunks (the case where 4,000 such workers once stalled the
 *       master): the chunks beyond the window go round, and the pool never runs dry.
 *   <li>{@code handOutWithIdleWorkers}: a piece reported, committed, and a tick, when the pool has
 *       run dry and half the {@code workers} hold nothing: each tick pumps with thousands of
 *       workers waiting, each of which may look for a tail to split, a queue to steal from, a copy
 *       not started.
 *   <li>{@code replan}: a worker of {@code planners} fully heterogeneous ones (speed 1-100
 *       units/s, interruption histories giving risks of 1e-4 to 1e-2 per second) leaves, or comes
 *       back (one re-plan per call); the controller re-plans the 10^9 units not handed out yet with
 *       the strategy {@code auto} picked for these workers (checkpoints and exact expectation
 *       included), the lost worker's units following its recovery list first. With {@code eps}
 *       above 0, the checkpoint round trip is known, as in a running master, and sets how many
 *       pieces each share is cut into.
 * </ul>
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar ControllerBenchmark}; one of them with, for
 * example, {@code java -jar bench/target/benchmarks.jar 'ControllerBenchmark.replan' -p planners=10000}.
 */
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx4g")
public class ControllerBenchmark {
  /** A running job and the chunks its workers hold, each worker reporting its first copy in turn. */
  abstract static class Running {
    /** Copies handed out and not yet reported, per worker. */
    final Map<String, Deque<Action.Assign>> held = new HashMap<>();
    final Deque<String> turn = new ArrayDeque<>();
    Controller controller;
    double now;

    void record(List<Action> actions) {
      for (Action a : actions) {
        if (a instanceof Action.Assign x) {
          held.computeIfAbsent(x.worker(), k -> new ArrayDeque<>()).add(x);
          turn.add(x.worker());
        } else if (a instanceof Action.Cancel x) {
          Deque<Action.Assign> mine = held.get(x.worker());
          if (mine != null) {
            mine.removeIf(h -> h.chunkId() == x.chunkId());
          }
        }
      }
    }

    /** The next worker in turn reports its first copy whole, and it is committed. */
    int cycle() {
      for (int tries = 0; tries < 1_000_000; tries++) {
        String w = turn.poll();
        if (w == null) {
          break;
        }
        Action.Assign a = held.get(w).poll();
        if (a == null) {
          // a copy it was told to drop
          continue;
        }
        now += 1e-4;
        Verdict v = controller.piece(w, a.job(), a.chunkId(), a.start(), a.end(), now);
        controller.committed(w, a.job(), a.chunkId(), a.start(), a.end(), 1e-3, now);
        List<Action> out = controller.ready().actions();
        record(out);
        return v.ordinal() + out.size();
      }
      throw new IllegalStateException("no worker holds a copy");
    }

    void start(int workers, double speed, long units) {
      held.clear();
      turn.clear();
      now = 0;
      controller = new Controller();
      controller.addJob(JobDef.of("j", "w", 0, units, "self").withChunking(1000, 0).withMinWorkers(workers), 0);
      for (int i = 0; i < workers; i++) {
        controller.workerJoined(WorkerInfo.of("w" + i, "w", speed), 0);
      }
      record(controller.ready().actions());
      // the chunks beyond the window go out a budget per event: ticks hand out the rest
      for (int i = 0; i < 100; i++) {
        controller.tick(0);
        record(controller.ready().actions());
      }
    }
  }

  /** 2,000 workers of 10^6 units/s on a self-scheduled job of 10^6 chunks. */
  @State(Scope.Benchmark)
  public static class TwoThousand extends Running {
    /** A fresh running job each iteration, so its 10^6 chunks never run out under measurement. */
    @Setup(Level.Iteration)
    public void setUp() {
      start(2000, 1e6, 1_000_000_000L);
    }
  }

  /** {@code workers} of 10^9 units/s on a million chunks. */
  @State(Scope.Benchmark)
  public static class Fast extends Running {
    @Param({"1000", "10000"})
    public int workers;

    @Setup(Level.Iteration)
    public void setUp() {
      // a million chunks, so that an iteration of a few hundred thousand cycles never runs the pool dry
      start(workers, 1e9, 1000L * Math.max(1_000_000, 100L * workers));
    }
  }

  /**
   * {@code workers} of 10^9 units/s, half of them holding a chunk of 10^6 units, the other half
   * nothing: the pool is dry, nothing is worth splitting (each chunk is a millisecond of work) and
   * nobody holds more than the window. Each cycle a holder reports the next 1,000 units of its
   * chunk, they are committed, and the clock ticks (time moved: every waiting worker may look
   * again).
   */
  @State(Scope.Benchmark)
  public static class HalfIdle {
    @Param({"1000", "10000"})
    public int workers;

    Controller controller;
    final Deque<Action.Assign> turn = new ArrayDeque<>();
    final Map<Long, Long> cursor = new HashMap<>();
    double now;

    @Setup(Level.Iteration)
    public void setUp() {
      turn.clear();
      cursor.clear();
      now = 0;
      controller = new Controller();
      controller.addJob(JobDef.of("j", "w", 0, 1_000_000L * (workers / 2), "self").withChunking(1_000_000, 0)
          .withMinWorkers(workers), 0);
      for (int i = 0; i < workers; i++) {
        controller.workerJoined(WorkerInfo.of("w" + i, "w", 1e9), 0);
      }
      for (Action a : controller.ready().actions()) {
        if (a instanceof Action.Assign x) {
          turn.add(x);
          cursor.put(x.chunkId(), x.start());
        }
      }
    }

    int cycle() {
      Action.Assign a = turn.poll();
      long from = cursor.get(a.chunkId());
      long to = Math.min(a.end(), from + 1000);
      now += 1e-4;
      Verdict v = controller.piece(a.worker(), a.job(), a.chunkId(), from, to, now);
      controller.committed(a.worker(), a.job(), a.chunkId(), from, to, 1e-6, now);
      controller.tick(now);
      if (to < a.end()) {
        cursor.put(a.chunkId(), to);
        turn.add(a);
      }
      return v.ordinal() + controller.ready().actions().size();
    }
  }

  /** A job of 10^9 units planned over {@code planners} heterogeneous, fragile workers. */
  @State(Scope.Benchmark)
  public static class Planning {
    @Param({"1000", "10000"})
    public int planners;

    @Param({"0", "0.005"})
    public double eps;

    Controller controller;
    double now;
    int next;

    @Setup(Level.Trial)
    public void setUp() {
      Random random = new Random(42);
      controller = new Controller();
      for (int i = 0; i < 20 && eps > 0; i++) {
        controller.overhead(eps);
      }
      controller.addJob(JobDef.of("p", "w", 0, 1_000_000_000L, "auto").withMinWorkers(planners)
          .withRisk(RiskModel.LINEAR), 0);
      for (int i = 0; i < planners; i++) {
        // a history whose rate gives this worker a risk of 1e-4 to 1e-2 per second
        double rate = 2 * (1e-4 + 1e-2 * random.nextDouble());
        controller.workerJoined(new WorkerInfo("p" + i, Set.of("w"), 1, Map.of("w", 1 + 99 * random.nextDouble()),
            Double.POSITIVE_INFINITY, 20, 20 / rate), 0);
      }
      controller.ready().actions();
      now = 10;
    }

    /** One re-plan: a worker leaves, and at the next call it comes back. */
    int replan() {
      int k = next++;
      String w = "p" + ((k / 2) % planners);
      now += 2;
      if (k % 2 == 0) {
        controller.workerLost(w, "benchmark", false, now);
      } else {
        controller.workerJoined(WorkerInfo.of(w, "w", 50), now);
      }
      return controller.ready().actions().size();
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public int pieceRoundTrip2000Workers(TwoThousand s) {
    return s.cycle();
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public int handOut(Fast s) {
    return s.cycle();
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public int handOutWithIdleWorkers(HalfIdle s) {
    return s.cycle();
  }

  @Benchmark
  @BenchmarkMode(Mode.AverageTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  public int replan(Planning s) {
    return s.replan();
  }

  /** A quick check outside JMH: {@code java -cp benchmarks.jar dev.gleaner.bench.ControllerBenchmark}. */
  public static void main(String[] args) {
    TwoThousand running = new TwoThousand();
    running.setUp();
    long t0 = System.nanoTime();
    for (int i = 0; i < 200_000; i++) {
      running.cycle();
    }
    System.out.printf("piece round trips: %.0f/s%n", 200_000 / ((System.nanoTime() - t0) / 1e9));
    Planning planning = new Planning();
    planning.planners = 1000;
    planning.setUp();
    for (int i = 0; i < 5; i++) {
      long t1 = System.nanoTime();
      int n = planning.replan();
      System.out.printf("re-plan with %d workers: %.1f ms (%d actions)%n", planning.planners, (System.nanoTime() - t1) / 1e6,
          n);
    }
  }
}
