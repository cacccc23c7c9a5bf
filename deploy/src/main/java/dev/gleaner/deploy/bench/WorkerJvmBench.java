package dev.gleaner.deploy.bench;

import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * With worker JVMs: round trips per second for one-unit chunks, then a primes job run twice, the
 * second time with one worker SIGKILLed halfway: the extra time, beside its floor (the killed
 * worker's half of the work redone by the others: T/2 (n/(n-1) - 1)).
 */
final class WorkerJvmBench {
  private final int chunks;
  private final int workers;
  private final PrintWriter progress;

  /** {@code chunks} one-unit chunks through {@code workers} worker JVMs; progress lines to {@code progress}. */
  WorkerJvmBench(int chunks, int workers, PrintWriter progress) {
    this.chunks = chunks;
    this.workers = workers;
    this.progress = progress;
  }

  /** Runs both in {@code dir}; the figures. */
  Map<String, Double> run(Path dir) throws Exception {
    Files.createDirectories(dir);
    Path secretFile = Files.write(dir.resolve("secret"), BenchJobs.secret());
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("data"),
        BenchJobs.secret(), Workloads.of()).withHeartbeat(Duration.ofSeconds(1), Duration.ofSeconds(5));
    Map<String, Double> out = new LinkedHashMap<>();
    try (MasterServer master = new MasterServer(config).start(); WorkerProcesses jvms = new WorkerProcesses(dir)) {
      for (int i = 0; i < workers; i++) {
        jvms.start("jvm-" + i, master.port(), secretFile, 1, 1, "128m");
      }
      WorkersJoined.awaitWorkers(() -> master.status(null), workers, Duration.ofSeconds(60), jvms);
      note("round trips: %d one-unit chunks over %d worker JVMs ...", chunks, workers);
      JobSpec warm = JobSpec.newBuilder().setWorkload("primes").putParams("from", "0").putParams("to", "2000")
          .setStrategy("self").setChunkUnits(1).build();
      BenchJobs.run(master, warm, Duration.ofMinutes(5));
      JobSpec tiny = JobSpec.newBuilder().setWorkload("primes").putParams("from", "0")
          .putParams("to", Integer.toString(chunks)).setStrategy("self").setChunkUnits(1).build();
      long t0 = System.nanoTime();
      JobStatus s = BenchJobs.run(master, tiny, Duration.ofMinutes(10));
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (!s.getState().equals("DONE")) {
        throw new IllegalStateException("round-trip job " + s.getState() + ": " + s.getMessage());
      }
      out.put("roundTripsPerSecond_" + workers + "jvms", chunks / seconds);
      out.putAll(loss(master, jvms));
    }
    return out;
  }

  /** The primes job whole, then again with jvm-0 SIGKILLed halfway: its seconds, the extra and its floor. */
  private Map<String, Double> loss(MasterServer master, WorkerProcesses jvms) throws Exception {
    note("losing 1 of %d worker JVMs halfway through a job ...", workers);
    JobSpec job = JobSpec.newBuilder().setWorkload("primes").putParams("from", "1000000000")
        .putParams("to", "14000000000").setStrategy("self").build();
    // once to warm the workers' JIT and the master's estimates, then the reference run
    BenchJobs.run(master, job, Duration.ofMinutes(10));
    long t0 = System.nanoTime();
    JobStatus s = BenchJobs.run(master, job, Duration.ofMinutes(10));
    double whole = (System.nanoTime() - t0) / 1e9;
    Map<String, Double> out = new LinkedHashMap<>();
    try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", master.port()), BenchJobs.secret())) {
      long t1 = System.nanoTime();
      String id = c.submit(job);
      TimeUnit.NANOSECONDS.sleep((long) (whole / 2 * 1e9));
      jvms.process("jvm-0").destroyForcibly();
      JobStatus js = master.status(id).getJobs(0);
      while (!StatusView.ended(js.getState()) && System.nanoTime() - t1 < TimeUnit.MINUTES.toNanos(10)) {
        TimeUnit.MILLISECONDS.sleep(10);
        js = master.status(id).getJobs(0);
      }
      double lossy = (System.nanoTime() - t1) / 1e9;
      if (!js.getState().equals("DONE") || !js.getResult().equals(s.getResult())) {
        throw new IllegalStateException("the job that lost a worker ended " + js.getState() + " with "
            + js.getResult());
      }
      out.put("jobSeconds", whole);
      out.put("lossExtraSeconds", lossy - whole);
      out.put("lossFloorSeconds", whole / 2 * ((double) workers / (workers - 1) - 1));
    }
    return out;
  }

  private void note(String format, Object... args) {
    progress.printf(Locale.ROOT, format + "%n", args);
  }
}
