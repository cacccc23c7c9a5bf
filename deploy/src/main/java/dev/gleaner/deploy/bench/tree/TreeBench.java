package dev.gleaner.deploy.bench.tree;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.common.plan.bandwidth.SteadyState;
import dev.gleaner.deploy.bench.TextFile;
import dev.gleaner.deploy.launch.EntryPoint;
import dev.gleaner.deploy.launch.MasterProcess;
import dev.gleaner.deploy.launch.Signals;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.testbed.LinkMeter;
import dev.gleaner.deploy.testbed.Rate;
import dev.gleaner.deploy.testbed.Testbed;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Relays on the namespace testbed: the master, R relays and W workers each in a namespace of its
 * own, each behind its shaped link; a {@code wc} job over a file the master serves, self-scheduled
 * in chunks of {@code chunkBytes} (paper 002's tasks, handed out on demand), run with the workers
 * through their relays (the tree) and straight to the master (the flat star), in turn. Each run's
 * steady rate is read from the bytes the workers' links carried between 20% and 80% of the job
 * (the testbed's counters), beside two predictions from the same links at their TCP payload:
 * paper 002's one-port steady state ({@link SteadyState}, each link's time on its parent's port),
 * and the bounded multi-port one (each node sends to all its children at once, up to its own
 * egress: the master's uplink, a relay's unshaped), which is how the master's port sends in
 * {@code fit} mode. Every process is ended by its pid and every namespace removed.
 */
public final class TreeBench {
  private static final Duration RUN_LIMIT = Duration.ofMinutes(20);
  private static final int RELAY_PORT = 7071;
  private static final Duration LOGIN_LIMIT = Duration.ofSeconds(60);

  /**
   * What to build and run.
   *
   * @param uplink the master's uplink
   * @param relays each relay's link (everything sent to it)
   * @param workers each worker's link
   * @param under each worker's relay (1..R), 0 for the master
   * @param relayBuffer each relay's {@code --buffer}
   * @param inputAtRelays each relay holds a copy of the file ({@code --serve}) and sends it to its workers
   */
  public record Settings(Rate uplink, List<Rate> relays, List<Rate> workers, List<Integer> under, long fileBytes,
      long chunkBytes, int repeat, String concurrentSends, String relayBuffer, boolean inputAtRelays) {
    public Settings {
      relays = List.copyOf(relays);
      workers = List.copyOf(workers);
      under = List.copyOf(under);
      if (relays.size() + workers.size() > Testbed.MAX_WORKERS) {
        throw new IllegalArgumentException("a testbed holds " + Testbed.MAX_WORKERS + " hosts at most");
      }
    }
  }

  private final Settings settings;
  private final PrintStream progress;

  public TreeBench(Settings settings, PrintStream progress) {
    this.settings = settings;
    this.progress = progress;
  }

  Settings settings() {
    return settings;
  }

  public Map<String, Object> run() throws Exception {
    String missing = Testbed.missing();
    if (missing != null) {
      throw new IllegalStateException("cannot build the testbed: " + missing);
    }
    Path dir = Files.createTempDirectory("gleaner-tree-bench");
    try {
      return run(dir);
    } finally {
      dev.gleaner.deploy.launch.LocalRuns.deleteTree(dir, "bench");
    }
  }

  private Map<String, Object> run(Path dir) throws Exception {
    int relays = settings.relays().size();
    int workers = settings.workers().size();
    Path serve = Files.createDirectories(dir.resolve("serve"));
    Path file = serve.resolve("tree.txt");
    TextFile.write(file, settings.fileBytes());
    Path secret = dir.resolve("secret");
    Files.writeString(secret, "tree-bench-" + System.nanoTime() + "-0123456789\n");
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("prediction", predict());
    List<Map<String, Object>> runs = new ArrayList<>();
    try (Testbed bed = Testbed.create(relays + workers)) {
      bed.shapeUplink(settings.uplink());
      for (int r = 1; r <= relays; r++) {
        bed.shapeDownlink(r, settings.relays().get(r - 1));
      }
      for (int i = 1; i <= workers; i++) {
        bed.shapeDownlink(relays + i, settings.workers().get(i - 1));
      }
      note("testbed %s: master behind %s, relays behind %s, workers behind %s under %s", bed, settings.uplink(),
          settings.relays(), settings.workers(), settings.under());
      try (MasterProcess master = MasterProcess.start(dir, List.of("ip", "netns", "exec", bed.masterNamespace()),
          bed.masterAddress(), List.of("-Xmx512m", "-XX:+UseSerialGC"),
          List.of("--data", dir.resolve("data").toString(),
              "--secret-file", secret.toString(), "--serve", serve.toString(), "--concurrent-sends",
              settings.concurrentSends()), Duration.ofSeconds(60))) {
        String at = bed.masterAddress() + ":" + master.port();
        List<Process> relayProcesses = new ArrayList<>();
        List<Long> pids = new ArrayList<>(List.of(master.pid()));
        doc.put("pids", pids);
        for (int r = 1; r <= relays; r++) {
          List<String> args = new ArrayList<>(List.of("relay", "--id", "r" + r, "--port",
              Integer.toString(RELAY_PORT), "--bind", "0.0.0.0", "--master", at, "--secret-file", secret.toString(),
              "--buffer", settings.relayBuffer()));
          if (settings.inputAtRelays()) {
            // the relay's own copy of the input, as a site that has the data beside it
            Path copy = Files.createDirectories(dir.resolve("r" + r + "-files"));
            Files.copy(file, copy.resolve("tree.txt"));
            args.addAll(List.of("--serve", copy.toString()));
          }
          relayProcesses.add(bed.start(bed.workerNamespace(r), java(args.toArray(String[]::new)),
              dir.resolve("r" + r + ".log")));
          pids.add(relayProcesses.get(r - 1).pid());
        }
        for (int k = 1; k <= settings.repeat(); k++) {
          for (String shape : List.of("tree", "star")) {
            note("run %d of %d: %s ...", k, settings.repeat(), shape);
            if (shape.equals("tree")) {
              // a worker that dials a relay not logged in upward (not yet, or not since it lost its
              // session) is turned away to the master: the tree would be a star
              long until = System.nanoTime() + LOGIN_LIMIT.toNanos();
              for (int r = 1; r <= relays; r++) {
                awaitLogin(relayProcesses.get(r - 1), dir.resolve("r" + r + ".log"), "r" + r, until);
              }
            }
            try (WorkerProcesses ws = new WorkerProcesses(dir)) {
              for (int i = 1; i <= workers; i++) {
                int r = settings.under().get(i - 1);
                String up = shape.equals("tree") && r > 0 ? bed.workerAddress(r) + ":" + RELAY_PORT + "," + at : at;
                List<String> in = List.of("ip", "netns", "exec", bed.workerNamespace(relays + i));
                pids.add(ws.start("w" + i, in, up, secret, 1, 1, "256m", List.of()).pid());
              }
              long passedBefore = passed(dir, relays, " passing ");
              long fedBefore = passed(dir, relays, " from its copy ");
              Map<String, Object> one = drive(bed, dir, at, secret, file, workers, relays, ws);
              one.put("shape", shape);
              // the connections the relays passed up during the run: the workers' own, in the tree
              one.put("relayed", passed(dir, relays, " passing ") - passedBefore);
              // the workers a relay sent the job's input to from its own copy
              one.put("fedByRelays", passed(dir, relays, " from its copy ") - fedBefore);
              one.put("repetition", k);
              // the master is new for the first run only: it has measured the links for every later one
              one.put("linksKnown", k > 1 || shape.equals("star"));
              runs.add(one);
              note("  %.2f s, steady %.3f MB/s, %s", (Double) one.get("seconds"),
                  (Double) one.get("steadyBytesPerSecond") / 1e6, one.get("result"));
            }
          }
        }
        for (Process p : relayProcesses) {
          Signals.end(p);
        }
        doc.put("masterStopped", master.stop(Duration.ofSeconds(10)) ? "on SIGTERM" : "SIGKILL");
      }
      bed.close();
      doc.put("left", bed.left());
    }
    doc.put("runs", runs);
    return doc;
  }

  /**
   * Waits, until {@code until} ({@link System#nanoTime}), for relay {@code id}'s log to say it is
   * logged in at its upstream: its last word of its session is that it logged in, not that it lost it.
   */
  private static void awaitLogin(Process relay, Path log, String id, long until)
      throws IOException, InterruptedException {
    String in = "relay " + id + " logged in at ";
    String lost = "relay " + id + " lost its session at ";
    while (true) {
      if (Files.exists(log)) {
        String last;
        try (var lines = Files.lines(log)) {
          last = lines.filter(l -> l.contains(in) || l.contains(lost)).reduce((a, b) -> b).orElse("");
        }
        if (last.contains(in)) {
          return;
        }
      }
      if (!relay.isAlive()) {
        throw new IllegalStateException("relay " + id + " ended (exit " + relay.exitValue() + ") before it logged in: "
            + WorkerProcesses.tail(log, 20));
      }
      if (System.nanoTime() > until) {
        throw new IllegalStateException("relay " + id + " was not logged in at the master within "
            + LOGIN_LIMIT.toSeconds() + " s: " + WorkerProcesses.tail(log, 20));
      }
      Thread.sleep(50);
    }
  }

  /** The relays' log lines so far that hold {@code what}: connections passed up, workers sent input. */
  private static long passed(Path dir, int relays, String what) throws IOException {
    long n = 0;
    for (int r = 1; r <= relays; r++) {
      Path log = dir.resolve("r" + r + ".log");
      if (Files.exists(log)) {
        try (var lines = Files.lines(log)) {
          n += lines.filter(l -> l.contains(what)).count();
        }
      }
    }
    return n;
  }

  private static List<String> java(String... args) {
    return EntryPoint.inNewJvm("256m", args);
  }

  /** One run of the links driver (self-scheduled wc) in the master's namespace, its links metered. */
  @SuppressWarnings("unchecked")
  private Map<String, Object> drive(Testbed bed, Path dir, String master, Path secret, Path file, int workers,
      int relays, WorkerProcesses ws) throws Exception {
    List<String> cmd = java("bench", "driver", "links", "--master", master, "--secret-file", secret.toString(),
        "--file", file.toString(), "--strategy", "self", "--workers", Integer.toString(workers), "--chunk-units",
        Long.toString(settings.chunkBytes()), "--json");
    Path out = dir.resolve("driver.json");
    Path err = dir.resolve("driver.log");
    LinkMeter meter = new LinkMeter(bed, Duration.ofMillis(100));
    meter.start();
    List<LinkMeter.Sample> samples;
    Process p = new ProcessBuilder(Testbed.inside(bed.masterNamespace(), cmd))
        .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.appendTo(err.toFile())).start();
    try {
      if (!p.waitFor(RUN_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("the driver did not end within " + RUN_LIMIT.toMinutes() + " minutes: "
            + WorkerProcesses.tail(err, 20) + "\n" + ws.logs());
      }
    } finally {
      p.destroyForcibly();
      samples = meter.stop();
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException("the driver failed (exit " + p.exitValue() + "): " + WorkerProcesses.tail(err, 20)
          + "\n" + ws.logs());
    }
    Map<String, Object> doc = new ObjectMapper().readValue(out.toFile(), LinkedHashMap.class);
    Map<String, Object> one = new LinkedHashMap<>();
    one.put("seconds", doc.get("seconds"));
    one.put("result", doc.get("result"));
    one.put("exact", doc.get("exact"));
    one.put("bytes", doc.get("bytes"));
    one.put("steadyBytesPerSecond", steady(samples, relays, workers));
    return one;
  }

  /** Bytes/s the workers' links carried together between 20% and 80% of what they carried in the run. */
  static double steady(List<LinkMeter.Sample> samples, int relays, int workers) {
    if (samples.size() < 2) {
      return Double.NaN;
    }
    double[] t = new double[samples.size()];
    double[] sum = new double[samples.size()];
    for (int k = 0; k < samples.size(); k++) {
      t[k] = samples.get(k).seconds();
      for (int i = 1; i <= workers; i++) {
        sum[k] += samples.get(k).bytes()[relays + i] - samples.get(0).bytes()[relays + i];
      }
    }
    double total = sum[sum.length - 1];
    double t20 = when(t, sum, 0.2 * total);
    double t80 = when(t, sum, 0.8 * total);
    return t80 > t20 ? 0.6 * total / (t80 - t20) : Double.NaN;
  }

  /** When the cumulative count first reached {@code level}, interpolated between samples. */
  private static double when(double[] t, double[] sum, double level) {
    for (int k = 1; k < t.length; k++) {
      if (sum[k] >= level) {
        double d = sum[k] - sum[k - 1];
        return d > 0 ? t[k - 1] + (t[k] - t[k - 1]) * (level - sum[k - 1]) / d : t[k];
      }
    }
    return t[t.length - 1];
  }

  /**
   * The two shapes' steady rates (bytes/s) under both models, from the links at their TCP payload, and
   * the simulator's time for each, its master knowing the links or learning them (the first run).
   */
  Map<String, Object> predict() {
    Map<String, Object> p = new LinkedHashMap<>();
    for (String shape : List.of("tree", "star")) {
      boolean tree = shape.equals("tree");
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("onePortBytesPerSecond", onePort(tree));
      m.put("multiPortBytesPerSecond", multiPort(tree));
      m.put("simulatedSeconds", TreePrediction.seconds(settings, tree, true));
      m.put("simulatedFirstSeconds", TreePrediction.seconds(settings, tree, false));
      p.put(shape, m);
    }
    return p;
  }

  private static double payload(Rate r) {
    return r.unlimited() ? Double.POSITIVE_INFINITY : r.bytesPerSecond() * Rate.TCP_PAYLOAD;
  }

  /** Paper 002's steady state: a link's time on its parent's port is a task over the slower of the two. */
  double onePort(boolean tree) {
    double task = settings.chunkBytes();
    List<SteadyState.Node> top = new ArrayList<>();
    List<List<SteadyState.Node>> below = new ArrayList<>();
    for (int r = 0; r < settings.relays().size(); r++) {
      below.add(new ArrayList<>());
    }
    for (int i = 0; i < settings.workers().size(); i++) {
      int r = settings.under().get(i);
      // a worker's port time at the master: its link, or the master's uplink if slower
      double rate = Math.min(payload(settings.workers().get(i)), tree && r > 0 ? Double.POSITIVE_INFINITY
          : payload(settings.uplink()));
      SteadyState.Node w = new SteadyState.Node("w" + (i + 1), Double.MIN_NORMAL, task / rate, List.of());
      (tree && r > 0 ? below.get(r - 1) : top).add(w);
    }
    if (tree) {
      for (int r = 0; r < settings.relays().size(); r++) {
        double rate = Math.min(payload(settings.relays().get(r)), payload(settings.uplink()));
        top.add(new SteadyState.Node("r" + (r + 1), Double.POSITIVE_INFINITY, task / rate, below.get(r)));
      }
    }
    return SteadyState.solve(new SteadyState.Node("master", Double.POSITIVE_INFINITY, 0, top)).throughput() * task;
  }

  /** Every node sends to all its children at once, up to its own egress (the master's uplink; a relay's unshaped). */
  double multiPort(boolean tree) {
    double direct = 0;
    double[] perRelay = new double[settings.relays().size()];
    for (int i = 0; i < settings.workers().size(); i++) {
      int r = settings.under().get(i);
      if (tree && r > 0) {
        perRelay[r - 1] += payload(settings.workers().get(i));
      } else {
        direct += payload(settings.workers().get(i));
      }
    }
    for (int r = 0; r < perRelay.length; r++) {
      direct += Math.min(payload(settings.relays().get(r)), perRelay[r]);
    }
    return Math.min(payload(settings.uplink()), direct);
  }

  private void note(String format, Object... args) {
    progress.printf(Locale.ROOT, format + "%n", args);
    progress.flush();
  }

  /** The runs as a table, beside the predictions. */
  @SuppressWarnings("unchecked")
  public static void print(PrintWriter out, Map<String, Object> doc) {
    Map<String, Map<String, Object>> pred = (Map<String, Map<String, Object>>) doc.get("prediction");
    out.printf(Locale.ROOT, "%-6s %4s %9s %16s %14s %16s %18s%n", "shape", "run", "seconds", "simulated s",
        "steady MB/s", "one-port MB/s", "multi-port MB/s");
    for (Map<String, Object> r : (List<Map<String, Object>>) doc.get("runs")) {
      Map<String, Object> p = pred.get((String) r.get("shape"));
      double steady = ((Number) r.get("steadyBytesPerSecond")).doubleValue();
      double one = ((Number) p.get("onePortBytesPerSecond")).doubleValue();
      double multi = ((Number) p.get("multiPortBytesPerSecond")).doubleValue();
      double seconds = ((Number) r.get("seconds")).doubleValue();
      double simulated = ((Number) p.get(Boolean.TRUE.equals(r.get("linksKnown")) ? "simulatedSeconds"
          : "simulatedFirstSeconds")).doubleValue();
      String sim = Double.isNaN(simulated) ? "-" : String.format(Locale.ROOT, "%.2f (%.2f)", simulated,
          seconds / simulated);
      out.printf(Locale.ROOT, "%-6s %4s %9.2f %16s %14.3f %9.3f (%.2f) %11.3f (%.2f)%n", r.get("shape"),
          r.get("repetition"), seconds, sim, steady / 1e6, one / 1e6, steady / one, multi / 1e6, steady / multi);
    }
    out.println("(in brackets: the run's time over the simulator's, its master learning the links in the first run;"
        + " the run's steady rate over each prediction; every answer checked against a plain count)");
    out.println("left after the run: " + doc.get("left"));
  }
}
