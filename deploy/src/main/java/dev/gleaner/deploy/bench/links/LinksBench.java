package dev.gleaner.deploy.bench.links;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.common.sim.FailureSchedule;
import dev.gleaner.deploy.bench.TextFile;
import dev.gleaner.deploy.launch.EntryPoint;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.deploy.launch.MasterProcess;
import dev.gleaner.deploy.launch.WorkerEventsFile;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.deploy.testbed.LinkMeter;
import dev.gleaner.deploy.testbed.Rate;
import dev.gleaner.deploy.testbed.Testbed;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * {@code gleaner bench --links}: a master and one worker JVM per link, each in a network namespace of
 * a {@link Testbed} with its link shaped, a {@code wc} job over a file the master serves run with
 * each strategy in turn by a driver ({@code gleaner bench driver links}) inside the master's
 * namespace, since nothing outside the testbed can reach it. The figures: each run's seconds and
 * answer, and each link's bandwidth as the master measured it beside its shaped rate. Everything is
 * removed at the end, on failure too.
 */
public final class LinksBench {
  /** The longest one run may take. */
  private static final Duration RUN_LIMIT = Duration.ofMinutes(30);
  /** How often the wire's counters are read. */
  private static final Duration METER_PERIOD = Duration.ofMillis(100);
  /** Bytes in one period below which a link counts as idle (heartbeats, acks). */
  private static final long IDLE_BYTES = 4096;

  /**
   * Seeded interruptions of the workers ({@code worker --interrupt linear:KAPPA}).
   *
   * @param risks each worker's linear risk per second, 0 for none
   * @param downtime the mean seconds an interrupted worker stays down
   */
  public record Interruptions(List<Double> risks, double downtime) {
    public Interruptions {
      risks = List.copyOf(risks);
    }

    /** The schedule of worker {@code i} (from 1), or null when it runs no risk. */
    public FailureSchedule of(int i) {
      double k = risks.get(i - 1);
      return k > 0 ? FailureSchedule.parse("linear:" + k, downtime) : null;
    }
  }

  /**
   * What to build and run.
   *
   * @param speeds each worker's compute speed in bytes/s, 0 for as fast as it counts
   * @param concurrentSends the master's --concurrent-sends: share, fit or a count
   * @param keep the folder to run in and keep; null: a temporary one, removed at the end
   * @param change a link that changes during each run; null: none
   * @param interruptions the workers' seeded interruptions, the seed each run's repetition; null: none
   * @param warmup whether a job with self-scheduling runs first, not counted (with interruptions, seeded 0)
   */
  public record Settings(Rate uplink, List<Rate> downlinks, List<Double> speeds, long fileBytes,
      List<String> strategies, int repeat, long chunkUnits, String concurrentSends, Path keep, LinkChange change,
      Interruptions interruptions, boolean warmup) {
    public Settings {
      downlinks = List.copyOf(downlinks);
      speeds = List.copyOf(speeds);
      strategies = List.copyOf(strategies);
      if (downlinks.isEmpty() || downlinks.size() != speeds.size()) {
        throw new IllegalArgumentException("one speed per link, and at least one link");
      }
      if (change != null && change.worker() > downlinks.size()) {
        throw new IllegalArgumentException("--link-change names w" + change.worker() + " but there are "
            + downlinks.size() + " links");
      }
      if (interruptions != null && interruptions.risks().size() != downlinks.size()) {
        throw new IllegalArgumentException("one risk per link");
      }
    }

    /** No link changes during the runs, no interruptions. */
    public Settings(Rate uplink, List<Rate> downlinks, List<Double> speeds, long fileBytes, List<String> strategies,
        int repeat, long chunkUnits, String concurrentSends, Path keep) {
      this(uplink, downlinks, speeds, fileBytes, strategies, repeat, chunkUnits, concurrentSends, keep, null, null,
          false);
    }
  }

  private final Settings settings;
  private final PrintStream progress;

  public LinksBench(Settings settings, PrintStream progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /** The testbed being run on, for the shutdown hook that removes the temporary folder. */
  private volatile Testbed bed;

  /** Builds the testbed, runs every strategy {@code repeat} times (interleaved), removes it all; the figures. */
  public Map<String, Object> run() throws Exception {
    String missing = Testbed.missing();
    if (missing != null) {
      throw new IllegalStateException("gleaner bench --links builds a network of namespaces, which cannot be done"
          + " here: " + missing);
    }
    if (settings.keep() != null) {
      return run(Files.createDirectories(settings.keep()));
    }
    Path dir = Files.createTempDirectory("gleaner-links-");
    // on Ctrl-C or SIGTERM too: the testbed's processes ended first (they write in it), then the folder
    Thread hook = new Thread(() -> {
      try {
        Testbed bed = this.bed;
        if (bed != null) {
          bed.close();
        }
        LocalRuns.removeTree(dir);
      } catch (IOException | RuntimeException e) {
        System.err.println("gleaner bench --links: could not remove " + dir + " on the way out: " + e);
      }
    }, "gleaner-links-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return run(dir);
    } finally {
      boolean mine = true;
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down: the hook removes the folder
        mine = false;
      }
      if (mine) {
        LocalRuns.removeTree(dir);
      }
    }
  }

  private Map<String, Object> run(Path dir) throws Exception {
    int n = settings.downlinks().size();
    Path serve = Files.createDirectories(dir.resolve("serve"));
    Path file = serve.resolve("links.txt");
    note("writing a %.1f MiB file ...", settings.fileBytes() / (double) (1 << 20));
    TextFile.write(file, settings.fileBytes());
    Path secret = dir.resolve("secret");
    Files.writeString(secret, "links-bench-" + System.nanoTime() + "-0123456789\n");
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("uplink", settings.uplink().toString());
    doc.put("concurrentSends", settings.concurrentSends());
    doc.put("uplinkBytesPerSecond", settings.uplink().bytesPerSecond());
    List<Map<String, Object>> links = new ArrayList<>();
    List<Map<String, Object>> runs = new ArrayList<>();
    try (Testbed bed = Testbed.create(n)) {
      this.bed = bed;
      note("testbed %s: master behind %s, workers behind %s", bed, settings.uplink(), settings.downlinks());
      bed.shapeUplink(settings.uplink());
      for (int i = 1; i <= n; i++) {
        bed.shapeDownlink(i, settings.downlinks().get(i - 1));
        Map<String, Object> l = new LinkedHashMap<>();
        l.put("id", "w" + i);
        l.put("rate", settings.downlinks().get(i - 1).toString());
        l.put("bytesPerSecond", settings.downlinks().get(i - 1).bytesPerSecond());
        l.put("speed", settings.speeds().get(i - 1));
        links.add(l);
      }
      List<String> wrapper = List.of("ip", "netns", "exec", bed.masterNamespace());
      try (MasterProcess master = MasterProcess.start(dir, wrapper, bed.masterAddress(),
          List.of("-Xmx512m", "-XX:+UseSerialGC"), List.of("--data", dir.resolve("data").toString(), "--secret-file",
              secret.toString(), "--serve", serve.toString(), "--concurrent-sends",
              settings.concurrentSends()),
          Duration.ofSeconds(60));
          WorkerProcesses workers = new WorkerProcesses(dir)) {
        String at = bed.masterAddress() + ":" + master.port();
        for (int i = 1; i <= n; i++) {
          startWorker(bed, workers, at, secret, i, 1);
        }
        // every process started: the master, each worker, and each worker started again
        List<Long> pids = new ArrayList<>(List.of(master.pid()));
        for (int i = 1; i <= n; i++) {
          pids.add(workers.process("w" + i).pid());
        }
        doc.put("pids", pids);
        // what runs now: the master and each worker's current process (a dead one's pid may be reused)
        Supplier<List<Long>> running = () -> Stream.concat(Stream.of(master.pid()),
            IntStream.rangeClosed(1, n).mapToObj(i -> workers.process("w" + i).pid())).toList();
        WorkersJoined.Launched launched = workers.withMaster(master.process(), master.log());
        if (settings.warmup()) {
          note("warm-up: strategy self, not counted ...");
          if (settings.interruptions() != null) {
            restartWorkers(bed, workers, at, secret, 0, pids);
          }
          Settle.await(running.get(), this::note);
          Map<String, Object> warm = drive(bed, dir, at, secret, file, "self", n, launched);
          doc.put("warmup", Map.of("seconds", warm.get("seconds"), "interruptions",
              warm.getOrDefault("interruptions", 0)));
          note("  %.2f s, %s", (Double) warm.get("seconds"), warm.get("result"));
        }
        for (int r = 1; r <= settings.repeat(); r++) {
          for (String strategy : settings.strategies()) {
            note("run %d of %d: strategy %s ...", r, settings.repeat(), strategy);
            if (settings.interruptions() != null) {
              // every strategy of a repetition meets the same interruptions: each worker's clock starts again
              restartWorkers(bed, workers, at, secret, r, pids);
            }
            launched.requireAlive();
            double settled = Settle.await(running.get(), this::note);
            LinkMeter meter = new LinkMeter(bed, METER_PERIOD);
            meter.start();
            Map<String, Object> one;
            List<LinkMeter.Sample> samples;
            try {
              one = drive(bed, dir, at, secret, file, strategy, n, launched);
            } finally {
              samples = meter.stop();
            }
            one.put("wire", wire(samples));
            one.put("repetition", r);
            one.put("settledSeconds", settled);
            one.put("asked", strategy);
            List<LinksPrediction.Risk> risks = risks(workers, one, r);
            one.put("predicted", predict(strategy, one, settings.warmup() || !runs.isEmpty(), risks));
            runs.add(one);
            note("  %.2f s, %s%s", (Double) one.get("seconds"), one.get("result"),
                risks == null ? "" : ", " + one.get("interruptions") + " interruption(s)");
          }
        }
        doc.put("masterStopped", master.stop(Duration.ofSeconds(10)) ? "on SIGTERM" : "SIGKILL");
      }
      bed.close();
      doc.put("left", bed.left());
    }
    doc.put("links", links);
    doc.put("runs", runs);
    return doc;
  }

  /** Starts worker {@code i} (from 1) in its namespace, with its interruptions seeded by {@code seed}, if any. */
  private void startWorker(Testbed bed, WorkerProcesses workers, String at, Path secret, int i, long seed)
      throws IOException {
    List<String> options = new ArrayList<>();
    double speed = settings.speeds().get(i - 1);
    if (speed > 0) {
      options.addAll(List.of("--max-speed", Double.toString(speed)));
    }
    Interruptions interruptions = settings.interruptions();
    FailureSchedule schedule = interruptions == null ? null : interruptions.of(i);
    if (schedule != null) {
      options.addAll(List.of("--interrupt", "linear:" + interruptions.risks().get(i - 1), "--interrupt-seed",
          Long.toString(seed), "--downtime", Double.toString(interruptions.downtime())));
    }
    workers.start("w" + i, List.of("ip", "netns", "exec", bed.workerNamespace(i)), at, secret, 1, 1, "256m", options);
  }

  /**
   * Ends every worker (SIGTERM: each says goodbye to the master, so the master counts no
   * interruption) and starts it again, its interruptions seeded by {@code seed}.
   */
  private void restartWorkers(Testbed bed, WorkerProcesses workers, String at, Path secret, long seed,
      List<Long> pids) throws IOException, InterruptedException {
    int n = settings.downlinks().size();
    for (int i = 1; i <= n; i++) {
      workers.process("w" + i).destroy();
    }
    for (int i = 1; i <= n; i++) {
      Process p = workers.process("w" + i);
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("worker w" + i + " (pid " + p.pid() + ") did not end within 20 s of SIGTERM");
      }
    }
    for (int i = 1; i <= n; i++) {
      startWorker(bed, workers, at, secret, i, seed);
      pids.add(workers.process("w" + i).pid());
    }
  }

  /**
   * What the simulator needs to meet the run's interruptions: each worker's outages as the job saw
   * them (its failure clock, from its events file, against the job's submission) and the history the
   * master had of it before the job; null without interruptions.
   */
  @SuppressWarnings("unchecked")
  private List<LinksPrediction.Risk> risks(WorkerProcesses workers, Map<String, Object> run, long seed)
      throws IOException {
    Interruptions interruptions = settings.interruptions();
    if (interruptions == null) {
      return null;
    }
    long submitted = ((Number) run.get("submittedAtMillis")).longValue();
    double horizon = 100 * ((Number) run.get("seconds")).doubleValue() + 60;
    Map<String, Map<String, Object>> before = new LinkedHashMap<>();
    for (Map<String, Object> w : (List<Map<String, Object>>) run.get("workers")) {
      before.put((String) w.get("id"), w);
    }
    List<LinksPrediction.Risk> out = new ArrayList<>();
    for (int i = 1; i <= settings.downlinks().size(); i++) {
      String id = "w" + i;
      Map<String, Object> w = before.get(id);
      long pastInterruptions = w == null ? 0 : ((Number) w.get("riskInterruptionsBefore")).longValue();
      double pastExposure = w == null ? 0 : ((Number) w.get("riskExposureSecondsBefore")).doubleValue();
      FailureSchedule schedule = interruptions.of(i);
      FailureSchedule.Seen seen = new FailureSchedule.Seen(0, List.of());
      if (schedule != null) {
        List<WorkerEventsFile.Event> clock = WorkerEventsFile.read(workers.events(id), WorkerEventsFile.FAILURE_CLOCK);
        if (clock.isEmpty()) {
          throw new IllegalStateException("worker " + id + " runs a risk but its events file has no failure clock");
        }
        double offset = (submitted - clock.get(clock.size() - 1).atMillis()) / 1000.0;
        seen = schedule.seenFrom(seed, id, offset, horizon);
      }
      out.add(new LinksPrediction.Risk(seen, pastInterruptions, pastExposure));
    }
    return out;
  }

  /**
   * The plan's and the simulator's figures for the run; null, said on the progress stream, when they
   * cannot be made (a worker's speed not measured): the run's own figures stand.
   */
  private Map<String, Object> predict(String strategy, Map<String, Object> run, boolean linksKnown,
      List<LinksPrediction.Risk> risks) {
    try {
      return LinksPrediction.of(settings, strategy, settings.fileBytes(), speeds(settings, run),
          linksKnown ? linksBefore(run) : null, risks,
          run.get("eps") instanceof Number e ? e.doubleValue() : Double.NaN,
          run.get("handoverSeconds") instanceof Number h ? h.doubleValue() : Double.NaN);
    } catch (IllegalArgumentException e) {
      note("  no prediction for this run: %s", e.getMessage());
      return null;
    }
  }

  /** What the master knew of each worker's link when the run's job was submitted, bytes/s (those it had measured). */
  @SuppressWarnings("unchecked")
  private static Map<String, Double> linksBefore(Map<String, Object> run) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (Map<String, Object> w : (List<Map<String, Object>>) run.get("workers")) {
      if (w.get("bandwidthBefore") instanceof Number b && b.doubleValue() > 0 && Double.isFinite(b.doubleValue())) {
        out.put((String) w.get("id"), b.doubleValue());
      }
    }
    return out;
  }

  /** Each worker's speed for the prediction: as set, or as the master measured it in the run. */
  @SuppressWarnings("unchecked")
  private static double[] speeds(Settings settings, Map<String, Object> run) {
    double[] speeds = new double[settings.speeds().size()];
    for (int i = 0; i < speeds.length; i++) {
      speeds[i] = settings.speeds().get(i);
      if (!(speeds[i] > 0)) {
        for (Map<String, Object> w : (List<Map<String, Object>>) run.get("workers")) {
          if (("w" + (i + 1)).equals(w.get("id"))) {
            speeds[i] = ((Number) w.get("speed")).doubleValue();
          }
        }
      }
    }
    return speeds;
  }

  /**
   * What the wire carried during a run, read off the bridge's counters: per link (the master's
   * uplink first) the bytes, when it first and last carried data, and its rate while busy; and the
   * seconds during which two or more worker links were busy at once.
   */
  static Map<String, Object> wire(List<LinkMeter.Sample> samples) {
    Map<String, Object> wire = new LinkedHashMap<>();
    List<Map<String, Object>> links = new ArrayList<>();
    for (Map.Entry<Integer, LinkMeter.Usage> e : LinkMeter.usage(samples, IDLE_BYTES).entrySet()) {
      LinkMeter.Usage u = e.getValue();
      Map<String, Object> l = new LinkedHashMap<>();
      l.put("link", e.getKey() == 0 ? "uplink" : "w" + e.getKey());
      l.put("bytes", u.bytes());
      l.put("firstSeconds", u.firstSeconds());
      l.put("lastSeconds", u.lastSeconds());
      l.put("busySeconds", u.busySeconds());
      l.put("busyBytesPerSecond", u.busyRate());
      links.add(l);
    }
    wire.put("links", links);
    wire.put("overlapSeconds", LinkMeter.overlapSeconds(samples, IDLE_BYTES, 2));
    wire.put("samples", samples.size());
    return wire;
  }

  /** One run of the driver inside the master's namespace; its JSON document. */
  @SuppressWarnings("unchecked")
  private Map<String, Object> drive(Testbed bed, Path dir, String master, Path secret, Path file, String strategy,
      int workers, WorkersJoined.Launched launched) throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        EntryPoint.NAME, "bench", "driver", "links", "--master", master, "--secret-file", secret.toString(), "--file",
        file.toString(), "--strategy", strategy, "--workers", Integer.toString(workers), "--chunk-units",
        Long.toString(settings.chunkUnits()), "--json");
    Path out = dir.resolve("driver.json");
    Path err = dir.resolve("driver.log");
    Process p = new ProcessBuilder(Testbed.inside(bed.masterNamespace(), cmd))
        .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.appendTo(err.toFile())).start();
    LinkChange change = settings.change();
    long changedAt = -1;
    try {
      if (change != null) {
        // the change at its time after the job's submission, if the driver is still running then
        if (DriverLog.awaitSubmitted(err, p, RUN_LIMIT)
            && !p.waitFor(Math.round(change.afterSeconds() * 1000), TimeUnit.MILLISECONDS)) {
          bed.shapeDownlink(change.worker(), change.rate());
          changedAt = System.currentTimeMillis();
          note("  w%d's link is now %s", change.worker(), change.rate());
        }
      }
      if (!p.waitFor(RUN_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
        throw new IllegalStateException("the links driver did not end within " + RUN_LIMIT.toMinutes() + " minutes;"
            + " last lines of its log:\n" + WorkerProcesses.tail(err, 20) + "\n" + launched.logs());
      }
    } finally {
      p.destroyForcibly();
      if (changedAt >= 0) {
        bed.shapeDownlink(change.worker(), settings.downlinks().get(change.worker() - 1));
      }
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException("the links driver failed (exit " + p.exitValue() + "): "
          + WorkerProcesses.tail(err, 20) + "\n" + launched.logs());
    }
    Map<String, Object> doc = new ObjectMapper().readValue(out.toFile(), LinkedHashMap.class);
    if (changedAt >= 0) {
      Map<String, List<List<Number>>> estimates = (Map<String, List<List<Number>>>) doc.get("estimates");
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("worker", "w" + change.worker());
      c.put("rate", change.rate().toString());
      c.put("bytesPerSecond", change.rate().bytesPerSecond());
      c.put("afterSeconds", change.afterSeconds());
      c.putAll(LinkChange.followed(estimates.getOrDefault("w" + change.worker(), List.of()), changedAt,
          change.rate()));
      doc.put("change", c);
    }
    return doc;
  }

  private void note(String format, Object... args) {
    progress.println(String.format(Locale.ROOT, format, args));
    progress.flush();
  }

  /** The figures as tables. */
  @SuppressWarnings("unchecked")
  public static void print(java.io.PrintWriter out, Map<String, Object> doc) {
    out.printf(Locale.ROOT, "master uplink: %s, --concurrent-sends %s%n%n", doc.get("uplink"), doc.get("concurrentSends"));
    out.printf(Locale.ROOT, "%-16s %-11s %-8s %8s %8s %10s %10s %11s %8s %13s  %s%n", "strategy", "repetition",
        "links", "seconds", "MB/s", "simulated", "sim/real", "handover ms", "plan", "interruptions",
        "theory: order (expected work)");
    for (Map<String, Object> r : (List<Map<String, Object>>) doc.get("runs")) {
      double seconds = ((Number) r.get("seconds")).doubleValue();
      Map<String, Object> p = (Map<String, Object>) r.get("predicted");
      double simulated = p == null ? Double.NaN : ((Number) p.get("simulated")).doubleValue();
      String order = p == null ? "-" : String.format(Locale.ROOT, "%s (%.1f%%)", p.get("planOrder"),
          100 * ((Number) p.get("planExpectedWork")).doubleValue() / ((Number) r.get("bytes")).doubleValue());
      // the streams' mean handover the master measured, which the simulated port holds each stream for
      double handover = r.get("handoverSeconds") instanceof Number h ? h.doubleValue() : Double.NaN;
      out.printf(Locale.ROOT, "%-16s %-11s %-8s %8.2f %8.2f %10.2f %10.3f %11.2f %8.2f %13s  %s%n", r.get("asked"),
          r.get("repetition"), p == null ? "-" : Boolean.TRUE.equals(p.get("linksKnown")) ? "known" : "learned",
          seconds, ((Number) r.get("bytes")).doubleValue() / 1e6 / seconds, simulated, simulated / seconds,
          1000 * handover, p == null ? Double.NaN : ((Number) p.get("plan")).doubleValue(),
          r.getOrDefault("interruptions", 0), order);
    }
    out.println();
    out.printf(Locale.ROOT, "%-6s %-10s %14s %14s %8s%n", "link", "rate", "shaped MB/s", "measured MB/s", "ratio");
    List<Map<String, Object>> runs = (List<Map<String, Object>>) doc.get("runs");
    Map<String, Map<String, Object>> last = new LinkedHashMap<>();
    if (!runs.isEmpty()) {
      for (Map<String, Object> w : (List<Map<String, Object>>) runs.get(runs.size() - 1).get("workers")) {
        last.put((String) w.get("id"), w);
      }
    }
    for (Map<String, Object> l : (List<Map<String, Object>>) doc.get("links")) {
      double shaped = ((Number) l.get("bytesPerSecond")).doubleValue();
      Map<String, Object> w = last.get(l.get("id"));
      double measured = w == null ? Double.NaN : ((Number) w.get("bandwidthBytesPerSecond")).doubleValue();
      out.printf(Locale.ROOT, "%-6s %-10s %14.2f %14.2f %8.3f%n", l.get("id"), l.get("rate"), shaped / 1e6,
          measured / 1e6, measured / shaped);
    }
    double payload = ((Number) doc.get("uplinkBytesPerSecond")).doubleValue() * LinksPrediction.PAYLOAD;
    out.printf(Locale.ROOT, "%nthe master's egress after each run, MB/s (ratio to the uplink's payload rate, %.2f MB/s;"
        + " bound: measured where streams shared it, floor: the most seen to go through):%n", payload / 1e6);
    for (Map<String, Object> r : runs) {
      Map<String, Object> m = (Map<String, Object>) r.get("metrics");
      Number egress = m == null ? null : (Number) m.get("gleaner.egress");
      if (egress != null) {
        out.printf(Locale.ROOT, "  %s %s: %.2f (%.3f, %s)%n", r.get("asked"), r.get("repetition"),
            egress.doubleValue() / 1e6, egress.doubleValue() / payload,
            Objects.equals(m.get("gleaner.egress.bound"), 1.0) ? "bound" : "floor");
      }
    }
    for (Map<String, Object> r : runs) {
      Map<String, Object> c = (Map<String, Object>) r.get("change");
      if (c != null) {
        out.printf(Locale.ROOT, "%n%s %s: %s's link set to %s after %.1f s; its estimate after each transfer then"
            + " (MB/s, ratio to the new rate's TCP payload):", r.get("strategy"), r.get("repetition"), c.get("worker"),
            c.get("rate"), ((Number) c.get("afterSeconds")).doubleValue());
        List<Number> e = (List<Number>) c.get("estimates");
        List<Number> q = (List<Number>) c.get("payloadRatios");
        for (int i = 0; i < e.size(); i++) {
          out.printf(Locale.ROOT, " %.2f (%.2f)", e.get(i).doubleValue() / 1e6, q.get(i).doubleValue());
        }
        out.println();
      }
    }
  }
}
