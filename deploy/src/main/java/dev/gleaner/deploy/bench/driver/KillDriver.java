package dev.gleaner.deploy.bench.driver;

import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Losing a worker: a {@code primes} job of about {@code targetSeconds} on the connected workers,
 * run once whole (the reference, time T), then again with the worker process {@code killPid} (and
 * its descendants) SIGKILLed at T/3 after the submit. The figure is the extra time of the second
 * run, beside its floor: the remaining two thirds of the work at the speed of the cores still
 * busy, (2T/3)(min(n, c)/min(n-1, c) - 1) for n workers on this machine's c cores (the workers
 * run here, on loopback; with more CPU-bound workers than cores the survivors take the dead one's
 * core and the floor is 0). Both runs must give the same answer, and the exact one where the
 * range is small enough to sieve here.
 *
 * <p>The job's size: given, or found by doubling a job until it takes a quarter of the target,
 * then scaled to the target; that doubling also warms the JVMs up.
 */
public final class KillDriver {
  private final DriverConnection.Connector connector;
  private final long from;
  private final long units;
  private final double targetSeconds;
  private final int workers;
  private final String strategy;
  private final long killPid;

  /**
   * @param units the job's size, or 0 to size it to {@code targetSeconds}
   * @param strategy the job's strategy; empty for the master's default
   */
  public KillDriver(DriverConnection.Connector connector, long from, long units, double targetSeconds, int workers,
      String strategy, long killPid) {
    if (from < 0 || units < 0 || (units == 0 && !(targetSeconds > 0 && targetSeconds <= 3600))) {
      throw new IllegalArgumentException("--from and --units must not be negative and --target-seconds within (0, 3600]");
    }
    if (workers < 2) {
      throw new IllegalArgumentException("losing one worker needs at least 2, got --workers " + workers);
    }
    this.connector = connector;
    this.from = from;
    this.units = units;
    this.targetSeconds = targetSeconds;
    this.workers = workers;
    this.strategy = strategy;
    this.killPid = killPid;
  }

  public Map<String, Object> run() throws Exception {
    ProcessHandle victim = ProcessHandle.of(killPid)
        .orElseThrow(() -> new IllegalArgumentException("--kill-pid " + killPid + ": no such process"));
    try (DriverConnection link = connector.connect()) {
      JobWaits waits = new JobWaits(link);
      List<List<Double>> steps = new ArrayList<>();
      long n = units > 0 ? units : size(link, waits, steps);
      JobSpec spec = job(n);
      long t0 = System.nanoTime();
      JobStatus reference = JobWaits.requireDone(waits.awaitEnd(link.submit(spec), Duration.ofMinutes(30)));
      double whole = (System.nanoTime() - t0) / 1e9;

      long t1 = System.nanoTime();
      String id = link.submit(spec);
      TimeUnit.NANOSECONDS.sleep((long) (whole / 3 * 1e9));
      double killedAt = (System.nanoTime() - t1) / 1e9;
      boolean running = !JobWaits.ended(link.status(id).getState());
      kill(victim);
      JobStatus lossy = JobWaits.requireDone(waits.awaitEnd(id, Duration.ofMinutes(30)));
      double withLoss = (System.nanoTime() - t1) / 1e9;

      if (!lossy.getResult().equals(reference.getResult())) {
        throw new IllegalStateException("the job that lost a worker answered '" + lossy.getResult()
            + "', the whole run '" + reference.getResult() + "'");
      }
      boolean exactChecked = from + n <= LocalCounts.MAX_SIEVE;
      if (exactChecked) {
        String expected = LocalCounts.primes(from, from + n) + " primes";
        if (!reference.getResult().equals(expected)) {
          throw new IllegalStateException("the job answered '" + reference.getResult() + "', expected '" + expected + "'");
        }
      }
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("workload", "kill");
      out.put("units", n);
      out.put("strategy", lossy.getStrategy());
      out.put("workers", workers);
      out.put("referenceSeconds", whole);
      out.put("killSeconds", withLoss);
      out.put("extraSeconds", withLoss - whole);
      int cores = Runtime.getRuntime().availableProcessors();
      out.put("floorSeconds", whole * 2 / 3 * ((double) Math.min(workers, cores) / Math.min(workers - 1, cores) - 1));
      out.put("killedAtSeconds", killedAt);
      out.put("killedWhileRunning", running);
      out.put("killedPid", killPid);
      out.put("result", lossy.getResult());
      out.put("exact", exactChecked);
      out.put("sizing", steps);
      return out;
    }
  }

  /**
   * Doubles a job (at most 12 times) until it takes a quarter of the target, then scales it to the
   * target: a job's fixed cost (planning, the first chunks) would fool a shorter probe.
   */
  private long size(DriverConnection link, JobWaits waits, List<List<Double>> steps) throws Exception {
    long n = 1L << 22;
    // once untimed: the first job also pays for compiling and for measuring the workers
    JobWaits.requireDone(waits.awaitEnd(link.submit(job(n)), Duration.ofMinutes(10)));
    double seconds = 0;
    for (int i = 0; i < 12; i++) {
      long t0 = System.nanoTime();
      JobWaits.requireDone(waits.awaitEnd(link.submit(job(n)), Duration.ofMinutes(10)));
      seconds = (System.nanoTime() - t0) / 1e9;
      steps.add(List.of((double) n, seconds));
      if (seconds >= targetSeconds / 4) {
        break;
      }
      n *= 2;
    }
    return Math.max(1_000, (long) (n / seconds * targetSeconds) / 1_000 * 1_000);
  }

  private JobSpec job(long n) {
    JobSpec.Builder b = JobSpec.newBuilder().setName("bench-kill").setWorkload("primes")
        .putParams("from", Long.toString(from)).putParams("to", Long.toString(from + n)).setMinWorkers(workers);
    if (!strategy.isEmpty()) {
      b.setStrategy(strategy);
    }
    return b.build();
  }

  /** SIGKILL to the process and everything it started, as when its computer dies. */
  private static void kill(ProcessHandle victim) {
    victim.descendants().forEach(ProcessHandle::destroyForcibly);
    if (!victim.destroyForcibly() && victim.isAlive()) {
      throw new IllegalStateException("cannot kill process " + victim.pid());
    }
  }
}
