package dev.gleaner.deploy.command.tool;

import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.bench.ClosedLoopBench;
import dev.gleaner.deploy.chaos.HostileBench;
import dev.gleaner.deploy.chaos.HostileReport;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.format.PlatformFile;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.worker.WorkerConfig;
import dev.gleaner.worker.WorkerDaemon;
import dev.gleaner.worker.Workers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gleaner bench}: end-to-end figures on loopback, in one run. (1) chunk round-trips per
 * second with tiny chunks and many in-process workers; (2) streaming MB/s from the master to worker
 * JVMs for a multi-GB file, next to a plain socket copy of the same bytes; (3) the master's peak
 * heap while streaming. Run it as {@code JAVA_OPTS=-Xmx256m deploy/bin/gleaner bench} to hold the
 * master to 256 MB. {@code gleaner bench --closed-loop} runs {@link ClosedLoopBench};
 * {@code gleaner bench --hostile [--json]} runs {@link HostileBench} (about 3.5 minutes);
 * {@code gleaner bench --swarm 1000,10000,4000@1e9 [--json]} runs {@link dev.gleaner.deploy.bench.swarm.SwarmBench}.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, subcommands = BenchDriverCommand.class,
    header = "Measure the runtime end to end on loopback.",
    description = {"Measure the runtime end to end on loopback: chunk round-trips/s, streaming MB/s next to a"
        + " plain socket copy, and the master's peak heap. Run with JAVA_OPTS=-Xmx256m to cap the master's heap.",
        "--closed-loop and --hostile run other benches instead (see their options)."})
public final class BenchCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--workers", split = ",", defaultValue = "16,64", description = "Worker counts for the round-trip test (default: ${DEFAULT-VALUE}).")
  List<Integer> workerCounts;

  @Option(names = "--chunks", defaultValue = "100000", description = "Tiny chunks per round-trip run (default: ${DEFAULT-VALUE}).")
  int chunks;

  @Option(names = "--window", defaultValue = "4", description = "Chunks a worker holds at once in the round-trip test (default: ${DEFAULT-VALUE}).")
  int window;

  @Option(names = "--jvm-chunks", defaultValue = "20000",
      description = "One-unit chunks through worker JVMs, then the cost of losing one of them; 0 skips (default: ${DEFAULT-VALUE}).")
  int jvmChunks;

  @Option(names = "--jvm-workers", defaultValue = "4", description = "Worker JVMs for that test (default: ${DEFAULT-VALUE}).")
  int jvmWorkers;

  @Option(names = "--stream-gib", defaultValue = "4", description = "Size of the streamed file in GiB; 0 skips streaming (default: ${DEFAULT-VALUE}).")
  double streamGib;

  @Option(names = "--stream-workers", defaultValue = "2", description = "Worker JVMs receiving the stream (default: ${DEFAULT-VALUE}).")
  int streamWorkers;

  @Option(names = "--json", description = "Print the figures as one JSON document on stdout.")
  boolean json;

  @Option(names = "--closed-loop", description = "Instead: run a platform file's computers as worker JVMs made as"
      + " slow, thin-linked and fragile as it says, grep to a deadline once per strategy and seed, and compare with"
      + " the simulator.")
  boolean closedLoop;

  @Option(names = "--platform", paramLabel = "P.json", defaultValue = "deploy/examples/lab-bench.json",
      description = "Closed loop: the platform (default: ${DEFAULT-VALUE}; speeds and bandwidths in bytes/s).")
  Path platform;

  @Option(names = "--strategies", split = ",", defaultValue = "auto,self,equal",
      description = "Closed loop: strategies to compare (default: ${DEFAULT-VALUE}).")
  List<String> strategies;

  @Option(names = "--runs", defaultValue = "20", description = "Closed loop: seeds per strategy (default: ${DEFAULT-VALUE}).")
  int runs;

  @Option(names = "--deadline", defaultValue = "60", description = "Closed loop: the job's deadline, seconds (default: ${DEFAULT-VALUE}).")
  double deadline;

  @Option(names = "--downtime", defaultValue = "15",
      description = "Closed loop: mean seconds a worker stays down after an interruption (default: ${DEFAULT-VALUE}).")
  double downtime;

  @Option(names = "--hostile", description = "Instead: a master JVM (-Xmx256m) and two worker JVMs count primes while"
      + " this process opens hostile connections of every kind to the master and a client asks for the status every"
      + " second; once in clear text with a shared secret, once over TLS with tokens. Exits 1 if the master dies, a"
      + " job's answer is wrong, a status request fails or a hostile peer logs in.")
  boolean hostile;

  @Option(names = "--connections", defaultValue = "10000",
      description = "Hostile: connections against the shared-secret master (default: ${DEFAULT-VALUE}).")
  int hostileConnections;

  @Option(names = "--tls-connections", defaultValue = "2000",
      description = "Hostile: connections against the TLS master; 0 skips that run (default: ${DEFAULT-VALUE}).")
  int tlsConnections;

  @Option(names = "--concurrency", defaultValue = "200",
      description = "Hostile: sockets open at once, at most (default: ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(names = "--churn-seconds", defaultValue = "0",
      description = "Hostile: at the end of the clear-text run, connect and close as fast as 4 threads can for this"
          + " long and report the master's live heap; 0 skips (default: ${DEFAULT-VALUE}).")
  int churnSeconds;

  @Option(names = "--seed", defaultValue = "1", description = "Hostile: seed of the attacks' order and bytes (default: ${DEFAULT-VALUE}).")
  long seed;

  @CommandLine.Mixin
  dev.gleaner.deploy.bench.swarm.SwarmOptions swarm;

  @Override
  public Integer call() throws Exception {
    LocalRuns.quietLogs();
    if (swarm.requested()) {
      Map<String, Object> doc = swarm.run(System.err);
      if (json) {
        spec.commandLine().getOut().println(StatusView.json(doc));
      } else {
        dev.gleaner.deploy.bench.swarm.SwarmBench.print(spec.commandLine().getOut(), doc);
      }
      return Boolean.TRUE.equals(doc.get("ok")) ? 0 : 1;
    }
    if (closedLoop) {
      return closedLoop();
    }
    if (hostile) {
      return hostile();
    }
    Path dir = Files.createTempDirectory("gleaner-bench-");
    Map<String, Object> figures = new LinkedHashMap<>();
    figures.put("cores", Runtime.getRuntime().availableProcessors());
    figures.put("masterMaxHeapMiB", Runtime.getRuntime().maxMemory() >> 20);
    try {
      for (int n : workerCounts) {
        figures.put("roundTripsPerSecond_" + n + "workers", roundTrips(dir.resolve("rt" + n), n));
      }
      if (jvmChunks > 0) {
        figures.putAll(jvmRoundTripsAndLoss(dir.resolve("jvm")));
      }
      if (streamGib > 0) {
        Path file = dir.resolve("stream.txt");
        long bytes = (long) (streamGib * (1L << 30));
        note("writing a %.1f GiB file ...", streamGib);
        writeFile(file, bytes);
        double plain = plainCopy(file);
        figures.put("plainSocketCopyMBps", plain);
        Map<String, Double> stream = stream(dir, file);
        figures.putAll(stream);
        figures.put("streamingVsPlainCopy", stream.get("streamingMBps") / plain);
      }
      figures.putAll(dev.gleaner.deploy.bench.PhysicalLimits.measure(dir.resolve("limits"), spec.commandLine().getErr()));
    } finally {
      LocalRuns.deleteTree(dir, "bench");
    }
    if (json) {
      spec.commandLine().getOut().println(StatusView.json(figures));
    } else {
      figures.forEach((k, v) -> spec.commandLine().getOut().printf(Locale.ROOT, "%-36s %-12s %s%n", k,
          v instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : v,
          dev.gleaner.deploy.bench.PhysicalLimits.beside(k, figures)));
    }
    return 0;
  }

  private int closedLoop() throws Exception {
    if (runs < 1 || runs > 10_000 || !(deadline > 0) || !(downtime > 0)) {
      throw new IllegalArgumentException("--runs must be 1..10000, --deadline and --downtime positive");
    }
    for (String s : strategies) {
      dev.gleaner.common.plan.Strategies.byName(s);
    }
    dev.gleaner.common.model.Platform p = PlatformFile.read(platform);
    Path dir = Files.createTempDirectory("gleaner-bench-loop-");
    List<ClosedLoopBench.Run> results;
    try {
      results = new ClosedLoopBench(p, strategies, runs, deadline, downtime, 1.5, System.err).run(dir);
    } finally {
      LocalRuns.deleteTree(dir, "bench");
    }
    Map<String, Object> doc = new LinkedHashMap<>();
    List<Map<String, Object>> rows = new ArrayList<>();
    for (String s : strategies) {
      double[] real = results.stream().filter(r -> r.strategy().equals(s)).mapToDouble(ClosedLoopBench.Run::committed).toArray();
      double[] sim = results.stream().filter(r -> r.strategy().equals(s)).mapToDouble(ClosedLoopBench.Run::predicted).toArray();
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("strategy", s);
      row.put("runs", real.length);
      row.put("meanCommitted", mean(real));
      row.put("stdErr", stdErr(real));
      row.put("meanPredicted", mean(sim));
      row.put("predictedStdErr", stdErr(sim));
      double[] errors = results.stream().filter(r -> r.strategy().equals(s) && !Double.isNaN(r.forecast()))
          .mapToDouble(r -> Math.abs(r.forecastError())).toArray();
      row.put("forecasts", errors.length);
      row.put("meanForecastError", errors.length == 0 ? null : mean(errors));
      rows.add(row);
    }
    doc.put("strategies", rows);
    List<Map<String, Object>> all = new ArrayList<>();
    for (ClosedLoopBench.Run r : results) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("strategy", r.strategy());
      x.put("seed", r.seed());
      x.put("committed", r.committed());
      x.put("predicted", r.predicted());
      x.put("interruptions", r.interruptions());
      x.put("shares", r.shares());
      x.put("forecastAtQuarter", Double.isNaN(r.forecast()) ? null : r.forecast());
      all.add(x);
    }
    doc.put("runs", all);
    if (json) {
      spec.commandLine().getOut().println(StatusView.json(doc));
    } else {
      spec.commandLine().getOut().printf("%-10s %5s %24s %24s %8s %28s%n", "strategy", "runs", "committed (mean +- s.e.)",
          "simulator (same seeds)", "ratio", "forecast at 1/4: mean |error|");
      for (Map<String, Object> row : rows) {
        double m = (Double) row.get("meanCommitted");
        double sm = (Double) row.get("meanPredicted");
        Object fe = row.get("meanForecastError");
        spec.commandLine().getOut().printf(Locale.ROOT, "%-10s %5d %14.0f +- %7.0f %14.0f +- %7.0f %8.3f %28s%n",
            row.get("strategy"), row.get("runs"), m, (Double) row.get("stdErr"), sm, (Double) row.get("predictedStdErr"),
            m / sm, fe == null ? "none" : String.format(Locale.ROOT, "%.2f%% (%d runs)", 100 * (Double) fe,
                (Integer) row.get("forecasts")));
      }
    }
    return 0;
  }

  private int hostile() throws Exception {
    if (hostileConnections < 1 || hostileConnections > 1_000_000 || tlsConnections < 0 || tlsConnections > 1_000_000) {
      throw new IllegalArgumentException("--connections must be 1..1000000 and --tls-connections 0..1000000");
    }
    Path dir = Files.createTempDirectory("gleaner-bench-hostile-");
    List<Map<String, Object>> runs = new ArrayList<>();
    try {
      HostileBench bench = new HostileBench(dir, concurrency, seed, churnSeconds, spec.commandLine().getErr());
      runs.add(bench.run(HostileBench.Mode.SECRET, hostileConnections));
      if (tlsConnections > 0) {
        runs.add(bench.run(HostileBench.Mode.TLS, tlsConnections));
      }
    } finally {
      LocalRuns.deleteTree(dir, "bench");
    }
    boolean ok = runs.stream().allMatch(r -> Boolean.TRUE.equals(r.get("ok")));
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("cores", Runtime.getRuntime().availableProcessors());
    doc.put("runs", runs);
    doc.put("ok", ok);
    if (json) {
      spec.commandLine().getOut().println(StatusView.json(doc));
    } else {
      HostileReport.print(spec.commandLine().getOut(), runs);
    }
    return ok ? 0 : 1;
  }

  private static double mean(double[] v) {
    double s = 0;
    for (double x : v) {
      s += x;
    }
    return v.length == 0 ? Double.NaN : s / v.length;
  }

  private static double stdErr(double[] v) {
    if (v.length < 2) {
      return 0;
    }
    double m = mean(v);
    double ss = 0;
    for (double x : v) {
      ss += (x - m) * (x - m);
    }
    return Math.sqrt(ss / (v.length - 1) / v.length);
  }

  private void note(String format, Object... args) {
    spec.commandLine().getErr().printf(Locale.ROOT, format + "%n", args);
  }

  private static byte[] secret() {
    return "bench-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8);
  }

  /** Chunk round-trips per second: tiny primes chunks through n in-process workers. */
  private double roundTrips(Path data, int n) throws Exception {
    note("round trips: %d tiny chunks over %d workers ...", chunks, n);
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), data, secret(), Workloads.of())
        .withWindow(window);
    List<WorkerDaemon> workers = new ArrayList<>();
    MasterServer master = new MasterServer(config).start();
    // the simulated workers share one event loop: on 2 cores, a loop thread each would measure context switches
    io.netty.channel.EventLoopGroup loop = new io.netty.channel.nio.NioEventLoopGroup(1);
    try {
      for (int i = 0; i < n; i++) {
        workers.add(WorkerDaemon.start(WorkerConfig.defaults("127.0.0.1", master.port(), secret(), "rt-" + i,
            Workers.workloads(getClass().getClassLoader(), Set.of())).withCores(1), loop));
      }
      WorkersJoined.awaitWorkers(() -> master.status(null), n, Duration.ofSeconds(60),
          WorkersJoined.Launched.IN_PROCESS);
      long unitsPerChunk = 10;
      JobSpec spec = JobSpec.newBuilder().setWorkload("primes").putParams("from", "1000000")
          .putParams("to", Long.toString(1_000_000 + unitsPerChunk * chunks)).setStrategy("self")
          .setChunkUnits(unitsPerChunk).setMinWorkers(n).build();
      long t0 = System.nanoTime();
      JobStatus s = runJob(master, spec, Duration.ofMinutes(10));
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (!s.getState().equals("DONE")) {
        throw new IllegalStateException("round-trip job " + s.getState() + ": " + s.getMessage());
      }
      return chunks / seconds;
    } finally {
      for (WorkerDaemon w : workers) {
        w.stop();
      }
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
      master.close();
    }
  }

  /**
   * With worker JVMs: round trips per second for one-unit chunks, then a primes job run twice, the
   * second time with one worker SIGKILLed halfway: the extra time, beside its floor (the killed
   * worker's half of the work redone by the others: T/2 (n/(n-1) - 1)).
   */
  private Map<String, Double> jvmRoundTripsAndLoss(Path dir) throws Exception {
    Files.createDirectories(dir);
    Path secretFile = Files.write(dir.resolve("secret"), secret());
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("data"), secret(),
        Workloads.of()).withHeartbeat(Duration.ofSeconds(1), Duration.ofSeconds(5));
    Map<String, Double> out = new LinkedHashMap<>();
    try (MasterServer master = new MasterServer(config).start(); WorkerProcesses workers = new WorkerProcesses(dir)) {
      for (int i = 0; i < jvmWorkers; i++) {
        workers.start("jvm-" + i, master.port(), secretFile, 1, 1, "128m");
      }
      WorkersJoined.awaitWorkers(() -> master.status(null), jvmWorkers, Duration.ofSeconds(60), workers);
      note("round trips: %d one-unit chunks over %d worker JVMs ...", jvmChunks, jvmWorkers);
      JobSpec warm = JobSpec.newBuilder().setWorkload("primes").putParams("from", "0").putParams("to", "2000")
          .setStrategy("self").setChunkUnits(1).build();
      runJob(master, warm, Duration.ofMinutes(5));
      JobSpec tiny = JobSpec.newBuilder().setWorkload("primes").putParams("from", "0")
          .putParams("to", Integer.toString(jvmChunks)).setStrategy("self").setChunkUnits(1).build();
      long t0 = System.nanoTime();
      JobStatus s = runJob(master, tiny, Duration.ofMinutes(10));
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (!s.getState().equals("DONE")) {
        throw new IllegalStateException("round-trip job " + s.getState() + ": " + s.getMessage());
      }
      out.put("roundTripsPerSecond_" + jvmWorkers + "jvms", jvmChunks / seconds);

      note("losing 1 of %d worker JVMs halfway through a job ...", jvmWorkers);
      JobSpec job = JobSpec.newBuilder().setWorkload("primes").putParams("from", "1000000000")
          .putParams("to", "14000000000").setStrategy("self").build();
      // once to warm the workers' JIT and the master's estimates, then the reference run
      runJob(master, job, Duration.ofMinutes(10));
      t0 = System.nanoTime();
      s = runJob(master, job, Duration.ofMinutes(10));
      double whole = (System.nanoTime() - t0) / 1e9;
      try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", master.port()), secret())) {
        long t1 = System.nanoTime();
        String id = c.submit(job);
        TimeUnit.NANOSECONDS.sleep((long) (whole / 2 * 1e9));
        workers.process("jvm-0").destroyForcibly();
        JobStatus js = master.status(id).getJobs(0);
        while (!StatusView.ended(js.getState()) && System.nanoTime() - t1 < TimeUnit.MINUTES.toNanos(10)) {
          TimeUnit.MILLISECONDS.sleep(10);
          js = master.status(id).getJobs(0);
        }
        double lossy = (System.nanoTime() - t1) / 1e9;
        if (!js.getState().equals("DONE") || !js.getResult().equals(s.getResult())) {
          throw new IllegalStateException("the job that lost a worker ended " + js.getState() + " with " + js.getResult());
        }
        out.put("jobSeconds", whole);
        out.put("lossExtraSeconds", lossy - whole);
        out.put("lossFloorSeconds", whole / 2 * ((double) jvmWorkers / (jvmWorkers - 1) - 1));
      }
    }
    return out;
  }

  private static JobStatus runJob(MasterServer master, JobSpec spec, Duration max) throws Exception {
    try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", master.port()), secret())) {
      String id = c.submit(spec);
      long deadline = System.nanoTime() + max.toNanos();
      while (System.nanoTime() < deadline) {
        JobStatus s = master.status(id).getJobs(0);
        if (StatusView.ended(s.getState())) {
          return s;
        }
        TimeUnit.MILLISECONDS.sleep(10);
      }
      throw new IllegalStateException("job did not end within " + max);
    }
  }

  /** A text file of about {@code bytes} bytes: 100-byte lines. */
  private static void writeFile(Path file, long bytes) throws IOException {
    byte[] line = (("gleaner bench line ").repeat(5) + "\n").getBytes(StandardCharsets.US_ASCII);
    ByteBuffer block = ByteBuffer.allocate(1 << 20);
    while (block.remaining() >= line.length) {
      block.put(line);
    }
    block.flip();
    try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
      for (long written = 0; written < bytes; ) {
        ByteBuffer b = block.duplicate();
        written += out.write(b);
      }
    }
  }

  /** The same bytes through a plain socket on loopback: read the file, write the socket, read and drop. */
  private double plainCopy(Path file) throws Exception {
    note("plain socket copy ...");
    long size = Files.size(file);
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread sink = new Thread(() -> {
        try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
          byte[] buf = new byte[256 * 1024];
          while (in.read(buf) >= 0) {
            // drop
          }
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }, "bench-sink");
      sink.start();
      long t0 = System.nanoTime();
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
           OutputStream out = s.getOutputStream();
           FileChannel in = FileChannel.open(file)) {
        ByteBuffer buf = ByteBuffer.allocate(256 * 1024);
        while (in.read(buf) >= 0) {
          buf.flip();
          out.write(buf.array(), 0, buf.limit());
          buf.clear();
        }
      }
      sink.join(TimeUnit.MINUTES.toMillis(5));
      return size / 1e6 / ((System.nanoTime() - t0) / 1e9);
    }
  }

  /** Streams the file through the master to worker JVMs running {@code wc}; MB/s and peak heap. */
  private Map<String, Double> stream(Path dir, Path file) throws Exception {
    note("streaming through Gleaner to %d worker JVMs ...", streamWorkers);
    Path secretFile = Files.write(dir.resolve("secret"), secret());
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("stream-data"),
        secret(), Workloads.of()).withServe(dir);
    try (MasterServer master = new MasterServer(config).start(); WorkerProcesses workers = new WorkerProcesses(dir)) {
      for (int i = 0; i < streamWorkers; i++) {
        workers.start("stream-" + i, master.port(), secretFile, 1, 1, "256m");
      }
      WorkersJoined.awaitWorkers(() -> master.status(null), streamWorkers, Duration.ofSeconds(60), workers);
      // warm the worker JVMs up (JIT) on a small file, so the figure is the steady state
      Path warm = dir.resolve("warm-up.txt");
      writeFile(warm, 256L << 20);
      runJob(master, JobSpec.newBuilder().setWorkload("wc").putParams("file", warm.toString())
          .setChunkUnits(16L << 20).setMinWorkers(streamWorkers).build(), Duration.ofMinutes(5));
      Files.delete(warm);
      System.gc();
      List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
          .filter(p -> p.getType() == MemoryType.HEAP).toList();
      heap.forEach(MemoryPoolMXBean::resetPeakUsage);
      JobSpec spec = JobSpec.newBuilder().setWorkload("wc").putParams("file", file.toString())
          .setChunkUnits(64L << 20).setMinWorkers(streamWorkers).build();
      long t0 = System.nanoTime();
      JobStatus s = runJob(master, spec, Duration.ofMinutes(20));
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (!s.getState().equals("DONE")) {
        throw new IllegalStateException("streaming job " + s.getState() + ": " + s.getMessage());
      }
      long peak = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
      Map<String, Double> out = new LinkedHashMap<>();
      out.put("streamingMBps", Files.size(file) / 1e6 / seconds);
      out.put("masterPeakHeapMiB", peak / (double) (1 << 20));
      return out;
    }
  }
}
