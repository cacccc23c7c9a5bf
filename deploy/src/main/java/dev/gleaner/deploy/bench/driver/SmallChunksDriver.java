package dev.gleaner.deploy.bench.driver;

import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Small chunks: one {@code primes} job over [0, units) in one-unit chunks, strategy {@code self},
 * on the workers connected; the figure is chunks per second from submit to DONE seen. The same
 * job runs twice first, untimed, so the JVMs have compiled the hot paths (the second untimed run
 * took a third of the first's time): the figure is a long-running master's.
 */
public final class SmallChunksDriver {
  private final DriverConnection.Connector connector;
  private final long units;
  private final int workers;
  private final boolean warmUp;

  public SmallChunksDriver(DriverConnection.Connector connector, long units, int workers, boolean warmUp) {
    if (units < 1 || units > LocalCounts.MAX_SIEVE) {
      throw new IllegalArgumentException("--units must be 1.." + LocalCounts.MAX_SIEVE + ", got " + units);
    }
    this.connector = connector;
    this.units = units;
    this.workers = Math.max(1, workers);
    this.warmUp = warmUp;
  }

  public Map<String, Object> run() throws Exception {
    try (DriverConnection link = connector.connect()) {
      JobWaits waits = new JobWaits(link);
      if (warmUp) {
        // the same job, untimed, twice: the JVMs compile their hot paths over the first tens of thousands
        // of chunks (the figure is the steady state of a master and workers that run for days)
        for (int i = 0; i < 2; i++) {
          JobWaits.requireDone(waits.awaitEnd(link.submit(job(units)), Duration.ofMinutes(30)));
        }
      }
      long t0 = System.nanoTime();
      String id = link.submit(job(units));
      JobStatus s = JobWaits.requireDone(waits.awaitEnd(id, Duration.ofMinutes(30)));
      double seconds = (System.nanoTime() - t0) / 1e9;
      String expected = LocalCounts.primes(0, units) + " primes";
      if (!s.getResult().equals(expected)) {
        throw new IllegalStateException("job " + id + " answered '" + s.getResult() + "', expected '" + expected + "'");
      }
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("workload", "small-chunks");
      out.put("chunks", units);
      out.put("seconds", seconds);
      out.put("chunksPerSecond", units / seconds);
      out.put("result", s.getResult());
      out.put("exact", true);
      return out;
    }
  }

  private JobSpec job(long n) {
    return JobSpec.newBuilder().setName("bench-small-chunks").setWorkload("primes").putParams("from", "0")
        .putParams("to", Long.toString(n)).setStrategy("self").setChunkUnits(1).setMinWorkers(workers).build();
  }
}
