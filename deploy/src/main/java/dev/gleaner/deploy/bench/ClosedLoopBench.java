package dev.gleaner.deploy.bench;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.sim.ClosedLoop;
import dev.gleaner.common.sim.FailureSchedule;
import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.ExecWorkload;
import dev.gleaner.common.workload.GrepWorkload;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.deploy.launch.WorkerEventsFile;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.WorkerShare;
import java.io.BufferedWriter;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The closed loop on real processes: one worker JVM per computer of a platform file, made as slow,
 * thin-linked and fragile as the file says ({@code --max-speed} at its speed,
 * {@code --recv-rate} at its bandwidth, {@code --interrupt linear:RISK} with the run's seed and a
 * mean downtime), grep over a generated file (units are bytes) until a deadline. Each run is made
 * once per strategy with the same seed, so the strategies meet the same interruptions; beside
 * each run, {@link ClosedLoop} drives the same controller through the same schedule (shifted by
 * when each worker's failure clock started) at the file's speeds, as a prediction.
 */
public final class ClosedLoopBench {
  private static final String PATTERN = "GATTACA";

  /** What one run gave. */
  /**
   * @param forecast the units the master's first forecast made from a quarter of the run on expected
   *     saved by the deadline; NaN when it showed none
   */
  public record Run(String strategy, long seed, long committed, long predicted, int interruptions, Map<String, Long> shares,
      double forecast) {
    /** The forecast's error, a fraction of what was committed (NaN without a forecast). */
    public double forecastError() {
      return committed == 0 ? Double.NaN : (forecast - committed) / committed;
    }
  }

  private final Platform platform;
  private final List<String> strategies;
  private final int runs;
  private final double deadline;
  private final double downtime;
  private final double overcommit;
  private final PrintStream log;

  public ClosedLoopBench(Platform platform, List<String> strategies, int runs, double deadline, double downtime,
      double overcommit, PrintStream log) {
    this.platform = platform;
    this.strategies = strategies;
    this.runs = runs;
    this.deadline = deadline;
    this.downtime = downtime;
    this.overcommit = overcommit;
    this.log = log;
  }

  /** As {@link #run(Path)}, in a temporary folder deleted after. */
  public List<Run> run() throws Exception {
    Path dir = Files.createTempDirectory("gleaner-bench-loop-");
    try {
      return run(dir);
    } finally {
      LocalRuns.deleteTree(dir, "bench");
    }
  }

  /** Runs every strategy for every seed 1..runs, interleaved, in {@code dir}; returns the runs. */
  public List<Run> run(Path dir) throws Exception {
    Path input = dir.resolve("reads.txt");
    long bytes = (long) (overcommit * platform.totalSpeed() * deadline);
    log.printf(Locale.ROOT, "writing %.0f MB of input ...%n", bytes / 1e6);
    writeInput(input, bytes);
    double base = baseSpeed(input);
    log.printf(Locale.ROOT, "grep runs at %.0f MB/s on one core here; workers are held to the platform's speeds%n",
        base / 1e6);
    if (base < 2 * platform.workers().stream().mapToDouble(Worker::speed).max().orElse(0)) {
      throw new IllegalStateException("this machine's grep is too slow to emulate the platform's fastest worker");
    }
    List<Run> out = new ArrayList<>();
    for (long seed = 1; seed <= runs; seed++) {
      for (String strategy : strategies) {
        Run r = once(dir.resolve("run-" + seed + "-" + strategy), input, bytes, base, strategy, seed);
        out.add(r);
        log.printf(Locale.ROOT, "seed %d %-8s committed %,d of %,d bytes (%.1f%%); the simulator predicted %,d;"
            + " %d interruption(s); the master's forecast from a quarter of the run: %s%n", seed, strategy,
            r.committed(), bytes, 100.0 * r.committed() / bytes, r.predicted(), r.interruptions(),
            Double.isNaN(r.forecast()) ? "none" : String.format(Locale.ROOT, "%,.0f (%+.2f%%)", r.forecast(),
                100 * r.forecastError()));
      }
    }
    return out;
  }

  private Run once(Path dir, Path input, long bytes, double base, String strategy, long seed) throws Exception {
    Files.createDirectories(dir);
    Path secretFile = dir.resolve("secret");
    byte[] secret = ("closed-loop-bench-" + seed + "-0123456789").getBytes(StandardCharsets.UTF_8);
    Files.write(secretFile, secret);
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("data"), secret,
        Workloads.of(ExecWorkload.definitionOnly())).withHeartbeat(Duration.ofSeconds(1), Duration.ofSeconds(5))
        .withServe(input.getParent());
    try (MasterServer master = new MasterServer(config).start(); WorkerProcesses workers = new WorkerProcesses(dir)) {
      // Ctrl-C ends the worker JVMs this run started too
      Thread cleanup = new Thread(workers::close, "gleaner-bench-cleanup");
      Runtime.getRuntime().addShutdownHook(cleanup);
      try {
        return runWith(master, workers, secretFile, secret, input, bytes, strategy, seed);
      } finally {
        try {
          Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException shuttingDown) {
          // the hook is running: it ends them
        }
      }
    }
  }

  private Run runWith(MasterServer master, WorkerProcesses workers, Path secretFile, byte[] secret, Path input,
      long bytes, String strategy, long seed) throws Exception {
    for (Worker w : platform.workers()) {
      List<String> options = new ArrayList<>(List.of("--interrupt-seed", Long.toString(seed),
          "--downtime", Double.toString(downtime)));
      if (w.risk() > 0) {
        options.addAll(List.of("--interrupt", "linear:" + w.risk()));
      }
      if (Double.isFinite(w.bandwidth())) {
        options.addAll(List.of("--recv-rate", Long.toString((long) w.bandwidth())));
      }
      options.addAll(List.of("--max-speed", Double.toString(w.speed())));
      workers.start(w.id(), master.port(), secretFile, 1, 1, "160m", options);
    }
    WorkersJoined.awaitWorkers(() -> master.status(null), platform.size(), Duration.ofSeconds(120), workers);
    long t0 = System.currentTimeMillis();
    JobSpec spec = JobSpec.newBuilder().setName("closed-loop-bench").setWorkload("grep")
        .putParams("file", input.toString()).putParams("pattern", PATTERN).putParams("max-lines", "0")
        .setStrategy(strategy).setDeadlineMillis(t0 + (long) (deadline * 1000)).build();
    JobStatus end;
    double forecast = Double.NaN;
    try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", master.port()), secret)) {
      String id = c.submit(spec);
      long stop = System.nanoTime() + TimeUnit.SECONDS.toNanos((long) deadline + 120);
      JobStatus s = master.status(id).getJobs(0);
      long quarter = t0 + (long) (deadline * 1000 / 4);
      while (!StatusView.ended(s.getState()) && System.nanoTime() < stop) {
        TimeUnit.MILLISECONDS.sleep(100);
        s = master.status(id).getJobs(0);
        if (Double.isNaN(forecast) && s.hasForecast() && s.getForecast().getAtMillis() >= quarter) {
          forecast = s.getForecast().getUnits();
        }
      }
      end = s;
    }
    if (!StatusView.ended(end.getState()) || end.getState().equals("FAILED")) {
      throw new IllegalStateException("run " + seed + " with " + strategy + ": " + end.getState() + " "
          + end.getMessage() + "\n" + workers.logs());
    }
    int interruptions = master.status(null).getWorkersList().stream().mapToInt(w -> w.getInterruptions()).sum();
    Map<String, Long> shares = new LinkedHashMap<>();
    for (WorkerShare s : end.getSharesList()) {
      shares.put(s.getWorkerId(), s.getUnits());
    }
    long predicted = predict(workers, t0, bytes, strategy, seed, master.status(null).getEps().getValue());
    return new Run(strategy, seed, end.getUnitsDone(), predicted, interruptions, shares, forecast);
  }

  /** The same job through {@link ClosedLoop}, each worker's outages shifted to the job's clock. */
  private long predict(WorkerProcesses workers, long t0, long bytes, String strategy, long seed, double eps)
      throws Exception {
    List<ClosedLoop.Host> hosts = new ArrayList<>();
    for (Worker w : platform.workers()) {
      // the worker's outages count from when its failure clock started (none without a risk), from its events file
      List<WorkerEventsFile.Event> clock = WorkerEventsFile.read(workers.events(w.id()),
          WorkerEventsFile.FAILURE_CLOCK);
      double offset = clock.isEmpty() ? 0 : (t0 - clock.get(0).atMillis()) / 1000.0;
      FailureSchedule.Seen seen = w.risk() > 0
          ? FailureSchedule.parse("linear:" + w.risk(), downtime).seenFrom(seed, w.id(), offset, 10 * deadline)
          : new FailureSchedule.Seen(0, List.of());
      hosts.add(new ClosedLoop.Host(w.id(), w.speed(), w.bandwidth(), Double.NaN, seen.joinAt(), seen.outages(),
          Double.POSITIVE_INFINITY));
    }
    JobDef def = JobDef.of("bench", "grep", 0, bytes, strategy).withDeadline(deadline).withInput(1, x -> x);
    ClosedLoop.Result r = ClosedLoop.run(def, hosts, new ClosedLoop.Setup(ControlConfig.defaults(), 0.25,
        Double.isFinite(eps) ? eps : 0.005, deadline + 5));
    return r.committed();
  }

  /** Lines of random bases; one in 40 holds the pattern. */
  static void writeInput(Path file, long bytes) throws Exception {
    SplittableRandom random = new SplittableRandom(7);
    char[] bases = {'A', 'C', 'G', 'T'};
    StringBuilder line = new StringBuilder(128);
    long written = 0;
    try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
      while (written < bytes) {
        line.setLength(0);
        int n = 40 + random.nextInt(80);
        for (int i = 0; i < n; i++) {
          line.append(bases[random.nextInt(4)]);
        }
        if (random.nextInt(40) == 0) {
          line.insert(random.nextInt(n), PATTERN);
        }
        line.append('\n');
        out.write(line.toString());
        written += line.length();
      }
    }
  }

  /** Bytes per second grep does on one core here, on the input itself (warmed up first). */
  static double baseSpeed(Path input) throws Exception {
    GrepWorkload grep = new GrepWorkload();
    Map<String, String> params = Map.of("file", input.toString(), "pattern", PATTERN, "max-lines", "0");
    byte[] sample = new byte[(int) Math.min(Files.size(input), 32L << 20)];
    try (var in = Files.newInputStream(input)) {
      in.readNBytes(sample, 0, sample.length);
    }
    double best = 0;
    for (int rep = 0; rep < 5; rep++) {
      long t0 = System.nanoTime();
      try (ChunkComputation c = grep.open(params, 0, sample.length)) {
        c.beginPiece(0, sample.length);
        c.compute(0, sample.length, ByteBuffer.wrap(sample), ChunkComputation.Cancellation.NEVER);
        c.take();
      }
      best = Math.max(best, sample.length / ((System.nanoTime() - t0) / 1e9));
    }
    return best;
  }
}
