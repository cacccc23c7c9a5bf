package dev.gleaner.deploy.bench.driver;

import dev.gleaner.deploy.bench.Samples;
import dev.gleaner.protocol.JobSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One-chunk latency: {@code jobs} one-chunk {@code primes} jobs, one after the other, timed two
 * ways: (1) a new connection each: connect, log in, submit, DONE seen; (2) over one connection
 * logged in beforehand: submit, DONE seen. Medians and 90th percentiles in milliseconds. "DONE
 * seen" is the master's answer to a status request that waits for the job's end (see
 * {@link JobWaits}).
 */
public final class LatencyDriver {
  private static final long JOB_UNITS = 1_000;
  /** Untimed jobs first (fewer for a small --jobs, as in the tests). */
  static final int WARMUP_JOBS = 2_000;

  private final DriverConnection.Connector connector;
  private final int jobs;

  public LatencyDriver(DriverConnection.Connector connector, int jobs) {
    if (jobs < 1 || jobs > 100_000) {
      throw new IllegalArgumentException("--jobs must be 1..100000, got " + jobs);
    }
    this.connector = connector;
    this.jobs = jobs;
  }

  public Map<String, Object> run() throws Exception {
    JobSpec spec = JobSpec.newBuilder().setName("bench-latency").setWorkload("primes").putParams("from", "0")
        .putParams("to", Long.toString(JOB_UNITS)).setStrategy("self").setChunkUnits(JOB_UNITS).build();
    String expected = LocalCounts.primes(0, JOB_UNITS) + " primes";
    List<Double> connected = new ArrayList<>();
    List<Double> fresh = new ArrayList<>();
    try (DriverConnection link = connector.connect()) {
      JobWaits waits = new JobWaits(link);
      // warm-up, untimed: the same jobs over this connection, enough for the JVMs to compile the path a
      // job takes (the figure is the steady state of a master that runs for days)
      for (int i = 0; i < Math.min(jobs * 5, WARMUP_JOBS); i++) {
        check(waits, link.submit(spec), expected);
      }
      for (int i = 0; i < jobs; i++) {
        long t0 = System.nanoTime();
        String id = link.submit(spec);
        check(waits, id, expected);
        connected.add((System.nanoTime() - t0) / 1e6);
      }
    }
    for (int i = 0; i < jobs; i++) {
      long t0 = System.nanoTime();
      try (DriverConnection link = connector.connect()) {
        String id = link.submit(spec);
        check(new JobWaits(link), id, expected);
        fresh.add((System.nanoTime() - t0) / 1e6);
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("workload", "latency");
    out.put("jobs", jobs);
    out.put("connectedMedianMillis", Samples.median(connected));
    out.put("connectedP90Millis", Samples.percentile(connected, 90));
    out.put("newConnectionMedianMillis", Samples.median(fresh));
    out.put("newConnectionP90Millis", Samples.percentile(fresh, 90));
    out.put("result", expected);
    out.put("exact", true);
    out.put("connectedMillis", connected);
    out.put("newConnectionMillis", fresh);
    return out;
  }

  private static void check(JobWaits waits, String id, String expected) throws Exception {
    String got = JobWaits.requireDone(waits.awaitEnd(id, Duration.ofMinutes(1))).getResult();
    if (!got.equals(expected)) {
      throw new IllegalStateException("job " + id + " answered '" + got + "', expected '" + expected + "'");
    }
  }
}
