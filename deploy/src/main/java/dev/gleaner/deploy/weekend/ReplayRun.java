package dev.gleaner.deploy.weekend;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.time.Ticker;
import dev.gleaner.common.trace.AvailabilityTrace;
import dev.gleaner.common.trace.OmniscientBound;
import dev.gleaner.common.trace.OwnerSchedule;
import dev.gleaner.deploy.audit.ReferenceSieve;
import dev.gleaner.deploy.audit.StoreAudit;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.format.Durations;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.EntryPoint;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.deploy.launch.Signals;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.protocol.Estimate;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.UnitRange;
import dev.gleaner.protocol.WorkerStatus;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code gleaner replay --run}: a whole compressed weekend on this computer. A master JVM and one
 * worker JVM per trace node (speed capped at the platform's speed times K, owner file driven by the
 * trace) count primes on a range larger than the trace allows, with the deadline at the trace's end
 * (divided by K), after a short warm-up job that is not counted; then what was saved is checked
 * against the store (the committed pieces and the not-done ranges tile the range, the count is the
 * reference sieve's) and set beside the omniscient bound. Every process started is ended by its pid
 * at the end, on failure and on Ctrl-C.
 */
public final class ReplayRun {
  private static final Pattern LISTENING = Pattern.compile("gleaner master listening on port (\\d+)");
  private static final Pattern VACATED = Pattern.compile("vacated in (\\d+) ms");
  private static final Pattern CRASHED = Pattern.compile("failure injection: \\S+ exists$");

  /** What the run is given; times in the trace's seconds unless said otherwise. */
  public record Settings(AvailabilityTrace trace, double horizon, double speedup, Platform platform, long work,
      double expectedUpTraceSeconds, String ownerPoll, String vacateGrace, boolean keep, String strategy,
      boolean crashes) {}

  /** What a run found. */
  /**
   * @param quarter the first forecast the job's status showed that was made from a quarter of the
   *     run or later, or null for none
   */
  public record Outcome(String state, long saved, long bound, long boundNoEps, double epsReal, boolean exact,
      dev.gleaner.protocol.Forecast quarter) {}

  /** The first forecast made from a quarter of the run or later (see {@link #follow}). */
  private dev.gleaner.protocol.Forecast quarter;

  /** The warm-up job's work: this long at the workers' capped speeds, real milliseconds. */
  private static final long WARM_UP_MILLIS = 2000;
  /**
   * The warm-up job's deadline from its submission, real milliseconds: cold JVMs take about 3 s for
   * the 2 s of work (the first pieces are slow, which is the point), and machines that cannot reach
   * the caps stop there.
   */
  private static final long WARM_UP_DEADLINE_MILLIS = 5000;

  private final Settings s;
  /** Each worker's log length, in lines, when the trace starts: what the report reads starts there. */
  private final Map<String, Integer> logMarks = new LinkedHashMap<>();
  private final PrintWriter out;
  private final Path dir;
  private final WorkerProcesses workers;
  private Process master;
  private boolean ended;

  public ReplayRun(Settings settings, PrintWriter out) throws IOException {
    this.s = settings;
    this.out = out;
    this.dir = Files.createTempDirectory("gleaner-replay-run-");
    this.workers = new WorkerProcesses(dir);
  }

  /** Runs the weekend; the processes are ended before it returns or throws. */
  public Outcome call() throws Exception {
    Thread hook = new Thread(this::endAll, "gleaner-replay-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    boolean ok = false;
    try {
      Outcome o = run();
      ok = o.exact();
      return o;
    } finally {
      endAll();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Ctrl-C: the hook is running or has run, and has ended the processes
      }
      if (ok && !s.keep()) {
        LocalRuns.deleteTree(dir, "replay");
      } else {
        out.printf("logs, store and owner files kept in %s%n", dir);
        out.flush();
      }
    }
  }

  private Outcome run() throws Exception {
    double k = s.speedup();
    Map<String, Worker> byId = s.platform().byId();
    for (String node : s.trace().nodes().keySet()) {
      if (!byId.containsKey(node)) {
        throw new IllegalArgumentException("--platform has no worker '" + node + "' (the trace's node ids are "
            + s.trace().nodes().keySet() + ")");
      }
    }
    byte[] secretBytes = new byte[32];
    new SecureRandom().nextBytes(secretBytes);
    Path secretFile = dir.resolve("secret");
    Files.writeString(secretFile, Base64.getEncoder().encodeToString(secretBytes));
    byte[] secret = Files.readString(secretFile).trim().getBytes(StandardCharsets.UTF_8);
    Path owners = Files.createDirectories(dir.resolve("owners"));
    OwnerFiles files = s.crashes() ? OwnerFiles.crashes(owners) : new OwnerFiles(owners);
    List<OwnerSchedule.Change> changes = OwnerSchedule.changes(s.trace(), s.horizon());
    // each owner file as the trace has it at time 0, before its worker looks: a worker whose owner is present
    // joins away, without an interruption (a crash file waits for the replay's start: a worker down from the start
    // must have joined first)
    Set<String> awayAtStart = new HashSet<>();
    for (OwnerSchedule.Change c : changes) {
      if (c.at() <= 0 && !s.crashes()) {
        files.set(c.node(), c.present());
        if (c.present()) {
          awayAtStart.add(c.node());
        }
      }
    }
    long expectedUpMillis = Math.max(1, Math.round(s.expectedUpTraceSeconds() / k * 1000));
    int port = startMaster(secretFile, expectedUpMillis);
    out.printf(Locale.ROOT, "master on 127.0.0.1:%d (prior: expected up %.2f trace hours = %d ms); starting %d workers"
        + "; logs in %s%n", port, s.expectedUpTraceSeconds() / 3600, expectedUpMillis, s.trace().nodes().size(), dir);
    out.flush();
    for (String node : s.trace().nodes().keySet()) {
      double speed = byId.get(node).speed() * k;
      String max = String.format(Locale.ROOT, "%.3f", speed);
      workers.start(node, port, secretFile, 1, 1, "128m", s.crashes()
          ? List.of("--crash-file", files.path(node).toString(), "--max-speed", max)
          : List.of("--owner-file", files.path(node).toString(), "--idle-before-start", "0", "--owner-poll",
              s.ownerPoll(), "--vacate-grace", s.vacateGrace(), "--max-speed", max));
    }
    HostPort at = new HostPort("127.0.0.1", port);
    try (MasterClient client = MasterClient.connect(at, secret)) {
      // a worker whose owner is present at the start joins AWAY and takes no work until its owner leaves:
      // the wait is for the others, which the warm-up job runs on
      List<String> upAtStart = s.trace().nodes().keySet().stream().filter(n -> !awayAtStart.contains(n)).toList();
      WorkersJoined.awaitWorkers(() -> client.status(null, true), upAtStart, Duration.ofMinutes(2),
          workers.withMaster(master, dir.resolve("master.log")));
      warmUp(client, awayAtStart);
      for (String node : s.trace().nodes().keySet()) {
        logMarks.put(node, lines(workers.log(node)));
      }
      long realMillis = Math.round(s.horizon() / k * 1000);
      long startMillis = System.currentTimeMillis();
      JobSpec spec = JobSpec.newBuilder().setName("replay-primes").setWorkload("primes")
          .putParams("from", "0").putParams("to", Long.toString(s.work())).setStrategy(s.strategy())
          .setDeadlineMillis(startMillis + realMillis).build();
      String jobId = client.submit(spec);
      out.printf(Locale.ROOT, "job %s (strategy %s, the trace's outages played as %s): the primes below %d, deadline in"
          + " %.1f s (%.2f trace hours at %sx)%n", jobId, s.strategy(), s.crashes() ? "crashes" : "owners' visits",
          s.work(), realMillis / 1000.0, s.horizon() / 3600, TraceFile.number(k));
      out.flush();
      OwnerReplay replay = new OwnerReplay(changes, k, c -> files.set(c.node(), c.present()), Ticker.SYSTEM);
      replay.start();
      JobStatus job = follow(client, jobId, replay, startMillis + realMillis, startMillis + realMillis / 4);
      StatusReply last = client.status(jobId);
      return report(job, last.getEps().getValue(), last.getWorkersList());
    }
  }

  private int startMaster(Path secretFile, long expectedUpMillis) throws IOException {
    Path log = dir.resolve("master.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        EntryPoint.NAME, "master", "--port", "0", "--bind", "127.0.0.1", "--data",
        dir.resolve("data").toString(), "--secret-file", secretFile.toString(),
        "--expected-up", String.format(Locale.ROOT, "%.3fs", expectedUpMillis / 1000.0));
    master = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < until) {
      Matcher m = LISTENING.matcher(Files.readString(log));
      if (m.find()) {
        return Integer.parseInt(m.group(1));
      }
      if (!master.isAlive()) {
        throw new IllegalStateException("the master exited with status " + master.exitValue()
            + " before listening:\n" + WorkerProcesses.tail(log, 20));
      }
      pauseMillis(50);
    }
    throw new IllegalStateException("the master did not listen within 60 s:\n" + WorkerProcesses.tail(log, 20));
  }

  /**
   * A short job before the trace starts, not counted: every worker up at the trace's start computes
   * and saves pieces, 2 s of its capped speed's work in 5 s at most (the job's deadline), so that
   * the JVMs have compiled their hot paths and the master has measured eps and their speeds before
   * the weekend's first hour. Without it the JVMs' slow start, K times longer in trace time, costs
   * each worker its first pieces' worth of trace minutes, which neither the simulator nor a
   * long-running master has. A worker in {@code awayAtStart} (its owner present at the start) sits
   * it out and starts cold: taking it away later would be an interruption the trace does not have.
   */
  private void warmUp(MasterClient client, Set<String> awayAtStart) throws IOException {
    Map<String, Worker> byId = s.platform().byId();
    double perSecond = 0;
    int up = 0;
    for (String node : s.trace().nodes().keySet()) {
      if (!awayAtStart.contains(node)) {
        perSecond += byId.get(node).speed() * s.speedup();
        up++;
      }
    }
    if (up == 0) {
      out.println("warm-up: none, every owner is present at the trace's start (the workers start cold)");
      out.flush();
      return;
    }
    // what the workers do in that time at their caps; the deadline bounds it where they cannot reach them
    long units = Math.max(1000L * up, Math.round(perSecond * WARM_UP_MILLIS / 1000.0));
    long t0 = System.nanoTime();
    long deadline = System.currentTimeMillis() + WARM_UP_DEADLINE_MILLIS;
    JobSpec spec = JobSpec.newBuilder().setName("replay-warm-up").setWorkload("primes").putParams("from", "0")
        .putParams("to", Long.toString(units)).setStrategy(s.strategy()).setDeadlineMillis(deadline).build();
    String jobId = client.submit(spec);
    while (System.currentTimeMillis() < deadline + 60_000) {
      workers.requireAlive();
      requireMasterAlive();
      JobStatus j = client.status(jobId).getJobs(0);
      if (StatusView.ended(j.getState())) {
        if (!j.getState().equals("DONE") && !j.getState().equals("DONE_PARTIAL")) {
          throw new IllegalStateException("the warm-up job " + jobId + " ended " + j.getState() + ": "
              + j.getMessage());
        }
        StatusReply r = client.status("");
        double eps = r.hasEps() ? r.getEps().getValue() : Double.NaN;
        out.printf(Locale.ROOT, "warm-up: job %s on %d of %d workers (those up at the start), %d of %d units in %.1f s"
            + " (not counted); eps %s s, speeds %s%n", jobId, up, s.trace().nodes().size(), j.getUnitsDone(), units,
            (System.nanoTime() - t0) / 1e9, Double.isFinite(eps) ? String.format(Locale.ROOT, "%.4f", eps) : "unknown",
            speeds(r));
        out.flush();
        return;
      }
      pauseMillis(100);
    }
    throw new IllegalStateException("the warm-up job " + jobId + " did not end within a minute of its deadline:\n"
        + workers.logs());
  }

  /**
   * Plays the owner changes and polls the job until it ends (its deadline, plus a minute at most);
   * keeps the first forecast its status shows that starts from {@code quarterMillis} or later (the
   * master makes one every 5 s at least, longer while each takes over half a second).
   */
  private JobStatus follow(MasterClient client, String jobId, OwnerReplay replay, long deadlineMillis,
      long quarterMillis) throws IOException {
    long nextPoll = 0;
    while (true) {
      replay.applyDue();
      long now = System.nanoTime();
      if (now >= nextPoll) {
        workers.requireAlive();
        requireMasterAlive();
        JobStatus j = client.status(jobId).getJobs(0);
        if (StatusView.ended(j.getState())) {
          return j;
        }
        if (quarter == null && j.hasForecast() && j.getForecast().getAtMillis() >= quarterMillis) {
          quarter = j.getForecast();
        }
        if (System.currentTimeMillis() > deadlineMillis + 60_000) {
          throw new IllegalStateException("job " + jobId + " is still " + j.getState()
              + " a minute after its deadline");
        }
        nextPoll = now + TimeUnit.MILLISECONDS.toNanos(250);
      }
      long wait = replay.done() ? nextPoll - now : Math.min(replay.nanosToNext(), nextPoll - now);
      if (wait > 0) {
        LockSupport.parkNanos(wait);
        if (Thread.interrupted()) {
          throw new IllegalStateException("the replay was interrupted");
        }
      }
    }
  }

  private Outcome report(JobStatus job, double epsReal, List<WorkerStatus> ws) throws Exception {
    double k = s.speedup();
    long from = 0;
    long to = s.work();
    // the store, read from outside as StoreAudit does: committed pieces and not-done ranges must tile the range
    List<StoreAudit.Committed> pieces;
    StoreAudit.JobRow row;
    try (StoreAudit audit = StoreAudit.open(dir.resolve("data"))) {
      pieces = audit.pieces(job.getJobId());
      row = audit.job(job.getJobId());
    }
    List<StoreAudit.Committed> cover = new ArrayList<>(pieces);
    long notDone = 0;
    for (UnitRange r : job.getNotDoneList()) {
      cover.add(new StoreAudit.Committed(job.getJobId(), r.getStart(), r.getEnd(), "(not done)", 0));
      notDone += r.getEnd() - r.getStart();
    }
    StoreAudit.Tiling tiling = StoreAudit.tile(from, to, cover);
    long saved = pieces.stream().mapToLong(StoreAudit.Committed::units).sum();
    // the count over what is saved, from the reference sieve, range by range
    TreeMap<Long, Long> savedRanges = new TreeMap<>();
    long cursor = from;
    for (UnitRange r : job.getNotDoneList()) {
      if (r.getStart() > cursor) {
        savedRanges.put(cursor, r.getStart());
      }
      cursor = Math.max(cursor, r.getEnd());
    }
    if (cursor < to) {
      savedRanges.put(cursor, to);
    }
    long expected = 0;
    for (Map.Entry<Long, Long> e : savedRanges.entrySet()) {
      expected += ReferenceSieve.count(e.getKey(), e.getValue());
    }
    String result = job.getResult();
    long counted = result.isEmpty() ? -1 : Long.parseLong(result.split(" ")[0]);
    boolean stateOk = job.getState().equals("DONE") || job.getState().equals("DONE_PARTIAL");
    boolean exact = stateOk && tiling.exact() && saved == job.getUnitsDone() && saved + notDone == to - from
        && counted == expected && row != null && row.state().equals(job.getState());

    boolean epsKnown = Double.isFinite(epsReal) && epsReal >= 0;
    double epsTrace = epsKnown ? epsReal * k : 0;
    long bound = OmniscientBound.units(s.trace(), s.platform(), to - from, epsTrace, s.horizon());
    long boundNoEps = OmniscientBound.units(s.trace(), s.platform(), to - from, 0, s.horizon());

    List<Long> vacates = new ArrayList<>();
    Map<String, Integer> perWorker = new LinkedHashMap<>();
    int crashes = 0;
    for (String node : s.trace().nodes().keySet()) {
      List<String> lines = linesSince(workers.log(node), logMarks.getOrDefault(node, 0));
      List<Long> mine = s.crashes() ? crashes(lines) : vacates(lines);
      perWorker.put(node, mine.size());
      vacates.addAll(mine);
      crashes += mine.size();
    }
    long returns = OwnerSchedule.changes(s.trace(), s.horizon()).stream()
        .filter(c -> c.at() > 0 && c.present()).count();
    // what a worker may compute while the trace has its owner present (or has it down): a return is seen up
    // to one poll late and the vacate takes its time; a visit shorter than that may not be seen at all
    long slowestVacate = s.crashes() ? 0 : vacates.stream().mapToLong(Long::longValue).max().orElse(0);
    long pollMillis = s.crashes() ? 20 : Durations.parse("--owner-poll", s.ownerPoll()).toMillis();
    double lateTrace = (pollMillis + slowestVacate) / 1000.0 * k;
    double lateUnits = 0;
    int unseenVisits = 0;
    for (String node : s.trace().nodes().keySet()) {
      double speed = byIdSpeed(node);
      for (double[] down : s.trace().outages(node)) {
        if (down[0] >= s.horizon() || down[0] <= 0) {
          continue;
        }
        double len = Math.min(down[1], s.horizon()) - down[0];
        lateUnits += speed * Math.min(len, lateTrace);
        if (len < pollMillis / 1000.0 * k) {
          unseenVisits++;
        }
      }
    }

    out.printf(Locale.ROOT, "job %s %s: %s%n", job.getJobId(), job.getState(), job.getMessage());
    out.printf(Locale.ROOT, "saved: %d units of %d (%d pieces); not done: %d units in %d ranges%n", saved, to - from,
        pieces.size(), notDone, job.getNotDoneCount());
    out.printf(Locale.ROOT, "tiling (store's pieces + not-done ranges over [%d, %d)): %s%n", from, to,
        tiling.exact() ? "exact, no gap, no overlap" : "WRONG: " + tiling.firstDefect() + " (gap " + tiling.gapUnits()
            + ", overlap " + tiling.overlapUnits() + ", outside " + tiling.outsideUnits() + ")");
    out.printf(Locale.ROOT, "count: %s (reference sieve over the saved ranges: %d)%s%n", result.isEmpty() ? "(none)"
        : result, expected, counted == expected ? ", exact" : ", WRONG");
    if (s.crashes()) {
      long downAtStart = OwnerSchedule.changes(s.trace(), s.horizon()).stream()
          .filter(c -> c.at() <= 0 && c.present()).count();
      out.printf(Locale.ROOT, "crashes: %d (the trace has %d node failures, and %d of its nodes down at its start);"
          + " per worker %s%n", crashes, returns, downAtStart, perWorker);
      out.printf(Locale.ROOT, "crash late: each failure seen up to %d ms late = %.0f trace s; %d outages shorter than"
          + " that; at most %.0f units (%.2f%% of the bound) computed while the trace had a node down%n", pollMillis,
          lateTrace, unseenVisits, lateUnits, bound == 0 ? 0 : 100 * lateUnits / bound);
    } else {
      out.printf(Locale.ROOT, "vacates: %d (the trace has %d owner returns); %s%n", vacates.size(), returns,
          vacates.isEmpty() ? "none" : "owner seen to master told " + summary(vacates) + " ms; per worker " + perWorker);
      out.printf(Locale.ROOT, "owner late: each return seen up to %s + %d ms late = %.0f trace s; %d visits shorter"
          + " than one owner poll (%s); at most %.0f units (%.2f%% of the bound) computed while the trace had an owner"
          + " present%n", s.ownerPoll(), slowestVacate, lateTrace, unseenVisits, s.ownerPoll(), lateUnits,
          bound == 0 ? 0 : 100 * lateUnits / bound);
    }
    out.printf(Locale.ROOT, "checkpoint round trip (eps) measured by the master: %s real s = %s trace s at %sx%n",
        epsKnown ? TraceFile.number(round3(epsReal)) : "unknown (taken as 0)",
        TraceFile.number(round3(epsTrace)), TraceFile.number(k));
    out.printf(Locale.ROOT, "omniscient bound (H6 over the trace, eps %s trace s): %d units; saved / bound = %.4f%n",
        TraceFile.number(round3(epsTrace)), bound, bound == 0 ? Double.NaN : (double) saved / bound);
    out.printf(Locale.ROOT, "omniscient bound with free checkpoints (eps 0): %d units; saved / bound = %.4f%n",
        boundNoEps, boundNoEps == 0 ? Double.NaN : (double) saved / boundNoEps);
    out.printf(Locale.ROOT, "without what may have been computed late: (saved - %.0f) / bound = %.4f%n", lateUnits,
        bound == 0 ? Double.NaN : (saved - lateUnits) / bound);
    // this job's units per worker (a worker's own count includes the warm-up's)
    Map<String, Long> shares = new LinkedHashMap<>();
    job.getSharesList().forEach(sh -> shares.put(sh.getWorkerId(), sh.getUnits()));
    for (WorkerStatus w : ws) {
      out.printf(Locale.ROOT, "  worker %-6s %-6s %12d units, %d interruptions%n", w.getWorkerId(), w.getState(),
          shares.getOrDefault(w.getWorkerId(), 0L), w.getInterruptions());
    }
    if (quarter == null) {
      out.println("forecast from a quarter of the run: none shown");
    } else {
      long start = job.getDeadlineMillis() - Math.round(s.horizon() / k * 1000);
      out.printf(Locale.ROOT, "forecast from a quarter of the run (made at trace hour %.2f, %d runs): %.0f units saved"
          + " (%.0f to %.0f); saved %d: error %+.2f%% of the saved figure, %s its band%n",
          (quarter.getAtMillis() - start) / 1000.0 * k / 3600, quarter.getRuns(), quarter.getUnits(),
          quarter.getUnitsLow(), quarter.getUnitsHigh(), saved, saved == 0 ? Double.NaN
              : 100 * (quarter.getUnits() - saved) / saved,
          quarter.getUnitsLow() <= saved && saved <= quarter.getUnitsHigh() ? "inside" : "outside");
    }
    out.println(exact ? "nothing lost, nothing counted twice" : "NOT EXACT: see above");
    out.flush();
    return new Outcome(job.getState(), saved, bound, boundNoEps, epsReal, exact, quarter);
  }

  /** Each worker's speed as the master measured it, units/s, for the warm-up's line. */
  private static String speeds(StatusReply r) {
    Map<String, String> m = new TreeMap<>();
    for (WorkerStatus w : r.getWorkersList()) {
      Estimate e = w.getSpeedsMap().get("primes");
      boolean known = e != null && Double.isFinite(e.getValue());
      m.put(w.getWorkerId(), known ? Long.toString(Math.round(e.getValue())) : "?");
    }
    return m.toString();
  }

  private double byIdSpeed(String node) {
    return s.platform().byId().get(node).speed();
  }

  private static double round3(double x) {
    return Math.round(x * 1000) / 1000.0;
  }

  private static String summary(List<Long> ms) {
    List<Long> sorted = new ArrayList<>(ms);
    sorted.sort(null);
    return sorted.get(0) + "-" + sorted.get(sorted.size() - 1) + " (median " + sorted.get(sorted.size() / 2) + ")";
  }

  /** The crashes these log lines show (one entry each). */
  private static List<Long> crashes(List<String> lines) {
    List<Long> seen = new ArrayList<>();
    for (String line : lines) {
      if (CRASHED.matcher(line).find()) {
        seen.add(0L);
      }
    }
    return seen;
  }

  /** How long each vacate these log lines show took, ms. */
  private static List<Long> vacates(List<String> lines) {
    List<Long> took = new ArrayList<>();
    for (String line : lines) {
      Matcher m = VACATED.matcher(line);
      if (m.find()) {
        took.add(Long.parseLong(m.group(1)));
      }
    }
    return took;
  }

  private static int lines(Path log) throws IOException {
    return Files.exists(log) ? Files.readAllLines(log).size() : 0;
  }

  /** A log's lines from line {@code mark} (0-based) on. */
  private static List<String> linesSince(Path log, int mark) throws IOException {
    if (!Files.exists(log)) {
      return List.of();
    }
    List<String> all = Files.readAllLines(log);
    return all.subList(Math.min(mark, all.size()), all.size());
  }

  private void requireMasterAlive() {
    if (!master.isAlive()) {
      throw new IllegalStateException("the master exited with status " + master.exitValue() + "; last lines of its log:\n"
          + WorkerProcesses.tail(dir.resolve("master.log"), 10));
    }
  }

  /** Workers first (SIGTERM, then SIGKILL after 5 s, by pid), then the master (SIGTERM, then SIGKILL). */
  private synchronized void endAll() {
    if (ended) {
      return;
    }
    ended = true;
    workers.close();
    if (master != null && master.isAlive()) {
      Signals.send(master.pid(), "TERM");
      if (!Signals.awaitExit(master, 10)) {
        Signals.end(master);
      }
    }
  }

  private static void pauseMillis(long millis) {
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    if (Thread.interrupted()) {
      throw new IllegalStateException("interrupted while starting the replay's processes");
    }
  }
}
