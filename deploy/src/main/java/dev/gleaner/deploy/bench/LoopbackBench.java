package dev.gleaner.deploy.bench;

import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.worker.WorkerConfig;
import dev.gleaner.worker.WorkerDaemon;
import dev.gleaner.worker.Workers;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * {@code gleaner bench} as it runs by default, in one JVM, which is the master: (1) chunk round trips
 * per second with tiny chunks and many in-process workers; (2) round trips through worker JVMs and
 * the cost of losing one of them ({@link WorkerJvmBench}); (3) streaming MB/s from the master to
 * worker JVMs for a multi-GB file, next to a plain socket copy of the same bytes, and the master's
 * peak heap while streaming ({@link StreamBench}); then the physical limits of this machine
 * ({@link PhysicalLimits}). Everything runs in a temporary folder, deleted after.
 */
public final class LoopbackBench {
  /**
   * What the run is made of.
   *
   * @param workerCounts in-process workers of each round-trip run
   * @param chunks tiny chunks per round-trip run
   * @param window chunks a worker holds at once in the round-trip runs
   * @param jvmChunks one-unit chunks through worker JVMs, then the loss; 0 skips them
   * @param jvmWorkers worker JVMs for that
   * @param streamGib the streamed file's size in GiB; 0 skips streaming
   * @param streamWorkers worker JVMs receiving the stream
   */
  public record Settings(List<Integer> workerCounts, int chunks, int window, int jvmChunks, int jvmWorkers,
      double streamGib, int streamWorkers) {}

  private final Settings settings;
  private final PrintWriter progress;

  /** A run of {@code settings}, its progress lines to {@code progress}. */
  public LoopbackBench(Settings settings, PrintWriter progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /** Runs every part; the figures, in the order they are printed. */
  public Map<String, Object> run() throws Exception {
    Path dir = Files.createTempDirectory("gleaner-bench-");
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("cores", Runtime.getRuntime().availableProcessors());
    figures.put("masterMaxHeapMiB", Runtime.getRuntime().maxMemory() >> 20);
    try {
      for (int n : settings.workerCounts()) {
        figures.put("roundTripsPerSecond_" + n + "workers", roundTrips(dir.resolve("rt" + n), n));
      }
      if (settings.jvmChunks() > 0) {
        WorkerJvmBench jvms = new WorkerJvmBench(settings.jvmChunks(), settings.jvmWorkers(), progress);
        figures.putAll(jvms.run(dir.resolve("jvm")));
      }
      if (settings.streamGib() > 0) {
        figures.putAll(new StreamBench(settings.streamGib(), settings.streamWorkers(), progress).run(dir));
      }
      figures.putAll(PhysicalLimits.measure(dir.resolve("limits"), progress));
    } finally {
      LocalRuns.deleteTree(dir, "bench");
    }
    return figures;
  }

  /** The figures as a table: name, value, and the limit it stands beside. */
  public static void print(PrintWriter out, Map<String, Object> figures) {
    figures.forEach((k, v) -> out.printf(Locale.ROOT, "%-36s %-12s %s%n", k,
        v instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : v, PhysicalLimits.beside(k, figures)));
  }

  /** Chunk round trips per second: tiny primes chunks through n in-process workers. */
  private double roundTrips(Path data, int n) throws Exception {
    progress.printf(Locale.ROOT, "round trips: %d tiny chunks over %d workers ...%n", settings.chunks(), n);
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), data, BenchJobs.secret(),
        Workloads.of()).withWindow(settings.window());
    List<WorkerDaemon> workers = new ArrayList<>();
    MasterServer master = new MasterServer(config).start();
    // the simulated workers share one event loop: on 2 cores, a loop thread each would measure context switches
    EventLoopGroup loop = new NioEventLoopGroup(1);
    try {
      for (int i = 0; i < n; i++) {
        workers.add(WorkerDaemon.start(WorkerConfig.defaults("127.0.0.1", master.port(), BenchJobs.secret(), "rt-" + i,
            Workers.workloads(getClass().getClassLoader(), Set.of())).withCores(1), loop));
      }
      WorkersJoined.awaitWorkers(() -> master.status(null), n, Duration.ofSeconds(60),
          WorkersJoined.Launched.IN_PROCESS);
      long unitsPerChunk = 10;
      JobSpec spec = JobSpec.newBuilder().setWorkload("primes").putParams("from", "1000000")
          .putParams("to", Long.toString(1_000_000 + unitsPerChunk * settings.chunks())).setStrategy("self")
          .setChunkUnits(unitsPerChunk).setMinWorkers(n).build();
      long t0 = System.nanoTime();
      JobStatus s = BenchJobs.run(master, spec, Duration.ofMinutes(10));
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (!s.getState().equals("DONE")) {
        throw new IllegalStateException("round-trip job " + s.getState() + ": " + s.getMessage());
      }
      return settings.chunks() / seconds;
    } finally {
      for (WorkerDaemon w : workers) {
        w.stop();
      }
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
      master.close();
    }
  }
}
