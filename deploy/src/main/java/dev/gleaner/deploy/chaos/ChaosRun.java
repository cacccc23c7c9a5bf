package dev.gleaner.deploy.chaos;

import dev.gleaner.deploy.audit.StoreAudit;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.launch.Signals;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One seeded chaos run: a fresh cluster ({@link ChaosCluster}), the run's jobs ({@link ChaosJobs})
 * submitted at once, then faults injected one after another while any job runs, then every check:
 * each job DONE within a bounded time with the exact answer, and its committed pieces in the store
 * tiling its range ({@link StoreAudit}). Everything drawn (jobs, fault kinds, targets, gaps,
 * durations) comes from the seed before anything starts, so a seed names a run; only the timing
 * of the processes varies.
 *
 * <p>Faults do not overlap: each one ends (the killed process restarted, the stall over) before the
 * next gap starts. Every wait is bounded, and a bound passed is reported, never waited out.
 */
public final class ChaosRun {
  /** What a run is made of. */
  public record Settings(int workers, int faultsPerRun, List<ChaosFault> kinds, boolean inOrder, double maxSpeed,
      double jobSeconds, double hangSeconds, boolean exec) {
    /** Units per job: what the cluster computes in {@code jobSeconds} at its speed cap. */
    long jobUnits() {
      return (long) (jobSeconds * workers * maxSpeed);
    }
  }

  /** A fault drawn for the run, before it starts. */
  record Planned(ChaosFault kind, int worker, double gapSeconds, double seconds) {}

  /** A fault as it went: when (seconds into the run), on what, and what happened; skipped if every job had ended. */
  public record Fault(ChaosFault kind, String target, double atSeconds, String detail, boolean injected) {}

  /**
   * A master restart: when it was killed; what the store held then (pieces and units committed);
   * seconds until it listened again and until its first commit after; units reported before the kill
   * that were not durable (done again after it); units already durable that workers computed again.
   */
  record Restart(double atSeconds, int piecesBefore, long unitsBefore, double downSeconds, double firstCommitSeconds,
      long lostInFlightUnits, long recomputedDurableUnits) {}

  /** One job's checks. */
  record JobCheck(String id, String workload, long from, long to, String state, String message, boolean answerOk,
      String got, String expected, boolean hang, double seconds, StoreAudit.Tiling tiling, String storeProblem) {
    boolean ok() {
      return state.equals("DONE") && answerOk && !hang && tiling != null && tiling.exact() && storeProblem.isEmpty();
    }
  }

  /**
   * Everything a run found; {@code acks} the master's piece acknowledgements seen at the proxies,
   * {@code acksNotDurable} those with no piece in the store committed by then (a broken promise).
   */
  public record Report(long seed, double seconds, List<JobCheck> jobs, List<Fault> faults, List<Restart> restarts,
      long unitsReported, long unitsCommitted, int acks, int acksNotDurable, List<String> problems) {
    public boolean ok() {
      return problems.isEmpty() && jobs.stream().allMatch(JobCheck::ok);
    }

    /** A run that could not go on (a process that would not start or come back). */
    public static Report stopped(long seed, String why) {
      return new Report(seed, Double.NaN, List.of(), List.of(), List.of(), 0, 0, 0, 0,
          List.of("the run could not go on: " + (why == null ? "(no message)" : why)));
    }

    Map<ChaosFault, Integer> faultsByKind() {
      Map<ChaosFault, Integer> m = new EnumMap<>(ChaosFault.class);
      for (Fault f : faults) {
        if (f.injected()) {
          m.merge(f.kind(), 1, Integer::sum);
        }
      }
      return m;
    }
  }

  private final Settings settings;
  private final long seed;
  private final int index;
  private final PrintStream log;
  private final List<String> problems = new ArrayList<>();
  private final List<Fault> faults = new ArrayList<>();
  private final List<long[]> kills = new ArrayList<>(); // {killedAtMillis, listeningAgainAtMillis}
  private long t0;

  /** Run number {@code index} (from 0) of a series, with its own seed. */
  public ChaosRun(Settings settings, long seed, int index, PrintStream log) {
    this.settings = settings;
    this.seed = seed;
    this.index = index;
    this.log = log;
  }

  /**
   * Draws the run's faults from its random stream: kind, target worker, gap before it, how long it
   * lasts. In order, the kinds are taken one after another instead, run {@code index} going on
   * where run {@code index - 1} stopped; the rest is drawn all the same.
   */
  static List<Planned> plan(SplittableRandom rng, Settings s, int index) {
    List<Planned> out = new ArrayList<>();
    for (int i = 0; i < s.faultsPerRun(); i++) {
      // one draw whatever the number of kinds, so that a run's other draws do not depend on --faults
      ChaosFault drawn = s.kinds().get((int) (rng.nextDouble() * s.kinds().size()));
      ChaosFault kind = s.inOrder() ? s.kinds().get((int) (((long) index * s.faultsPerRun() + i) % s.kinds().size()))
          : drawn;
      out.add(new Planned(kind, rng.nextInt(s.workers()), 0.3 + 1.7 * rng.nextDouble(), 1 + 5 * rng.nextDouble()));
    }
    return out;
  }

  public Report run(Path dir) throws Exception {
    SplittableRandom rng = new SplittableRandom(seed);
    Path serve = dir.resolve("serve");
    Files.createDirectories(serve);
    List<ChaosJobs.Planned> jobs = ChaosJobs.choose(rng, serve, settings.jobUnits(), settings.workers(),
        settings.exec());
    List<Planned> planned = plan(rng, settings, index);
    try (ChaosCluster c = new ChaosCluster(dir, serve, settings.maxSpeed())) {
      c.start(settings.workers());
      WorkersJoined.awaitWorkers(() -> c.status(null), settings.workers(), Duration.ofSeconds(90), c.launched());
      t0 = System.currentTimeMillis();
      List<String> ids = new ArrayList<>();
      try (MasterClient client = c.client()) {
        for (ChaosJobs.Planned j : jobs) {
          ids.add(client.submit(j.spec()));
        }
      }
      for (Planned p : planned) {
        inject(c, p, ids);
      }
      for (String id : c.workerIds()) {
        if (!c.worker(id).isAlive()) {
          problems.add("worker " + id + " had exited (status " + c.worker(id).exitValue() + "); started again");
          c.startWorker(id);
        }
      }
      Map<String, JobStatus> end = awaitEnd(c, ids);
      double seconds = (System.currentTimeMillis() - t0) / 1000.0;
      List<JobCheck> checks = new ArrayList<>();
      List<StoreAudit.Committed> committed = new ArrayList<>();
      try (StoreAudit store = StoreAudit.open(c.dataDir())) {
        for (int i = 0; i < ids.size(); i++) {
          List<StoreAudit.Committed> pieces = store.pieces(ids.get(i));
          committed.addAll(pieces);
          checks.add(check(store, ids.get(i), jobs.get(i), end.get(ids.get(i)), pieces));
        }
      }
      // the store's times are the master's wall clock, which clock jumps moved: back to the machine's
      committed = ClockShifts.onMachineClock(committed, ClockShifts.read(c.clockShifts()));
      List<ReportedPieces.Piece> reported = c.reported().all();
      List<ReportedPieces.Ack> acks = c.reported().acks().stream().filter(a -> ids.contains(a.jobId())).toList();
      AckAudit.Found found = AckAudit.check(acks, reported, committed, c.masterLog(), t0);
      problems.addAll(found.problems());
      int notDurable = found.notDurable();
      Report r = new Report(seed, seconds, checks, List.copyOf(faults), restarts(committed, reported),
          reported.stream().mapToLong(p -> p.end() - p.start()).sum(),
          committed.stream().mapToLong(StoreAudit.Committed::units).sum(), acks.size(), notDurable,
          List.copyOf(problems));
      if (!r.ok()) {
        log.println("run " + seed + " failed; last lines of the logs (all in " + dir + "):\n" + c.logs());
      }
      return r;
    }
  }

  private double now() {
    return (System.currentTimeMillis() - t0) / 1000.0;
  }

  private boolean anyRunning(ChaosCluster c, List<String> ids) throws IOException {
    StatusReply s = c.status(null);
    return s.getJobsList().stream().anyMatch(j -> ids.contains(j.getJobId()) && !StatusView.ended(j.getState()));
  }

  private void inject(ChaosCluster c, Planned p, List<String> ids) throws Exception {
    ChaosCluster.pause((long) (p.gapSeconds() * 1000));
    String worker = c.workerIds().get(p.worker());
    String target = p.kind().onMaster() ? "master" : worker;
    if (!anyRunning(c, ids)) {
      faults.add(new Fault(p.kind(), target, now(), "skipped: every job had ended", false));
      return;
    }
    double at = now();
    long millis = (long) (p.seconds() * 1000);
    String detail;
    switch (p.kind()) {
      case WORKER_KILL -> {
        Process w = c.worker(worker);
        Signals.send(w.pid(), "KILL");
        detail = "SIGKILL pid " + w.pid() + exited(w, 10);
        ChaosCluster.pause(millis / 4);
        detail += ", started again after " + seconds(millis / 4) + " (pid " + c.startWorker(worker).pid() + ")";
      }
      case WORKER_STOP -> {
        Process w = c.worker(worker);
        Signals.send(w.pid(), "STOP");
        ChaosCluster.pause(millis);
        Signals.send(w.pid(), "CONT");
        detail = "SIGSTOP pid " + w.pid() + ", SIGCONT after " + seconds(millis);
      }
      case WORKER_TERM -> {
        Process w = c.worker(worker);
        long t = System.currentTimeMillis();
        Signals.send(w.pid(), "TERM");
        // the worker drains within its drain timeout (20 s); 40 s is a hang
        if (Signals.awaitExit(w, 40)) {
          detail = "SIGTERM pid " + w.pid() + ", drained and exited (status " + w.exitValue() + ") in "
              + seconds(System.currentTimeMillis() - t);
          // 143 (128 + SIGTERM) is how a JVM exits after its shutdown hooks ran on SIGTERM: the drain
          if (w.exitValue() != 0 && w.exitValue() != 143) {
            problems.add("worker " + worker + " exited with status " + w.exitValue() + " after SIGTERM");
          }
        } else {
          problems.add("worker " + worker + " (pid " + w.pid() + ") did not drain and exit within 40 s of SIGTERM");
          Signals.end(w);
          detail = "SIGTERM pid " + w.pid() + ": no exit within 40 s, SIGKILLed";
        }
        detail += "; started again (pid " + c.startWorker(worker).pid() + ")";
      }
      case MASTER_KILL, MASTER_KILL_COMMIT -> detail = killMaster(c, p, ids);
      case NET_DROP -> detail = "reset " + c.proxy(worker).drop() + " connection(s) at the proxy";
      case NET_STALL -> {
        c.proxy(worker).stall(millis);
        ChaosCluster.pause(millis);
        detail = "nothing forwarded for " + seconds(millis);
      }
      case STORE_FULL -> {
        c.storeFull(true);
        ChaosCluster.pause(millis);
        c.storeFull(false);
        detail = "no new page in the store for " + seconds(millis);
      }
      case CLOCK_JUMP -> {
        // 20 min to 2 h, forward for even targets and back for odd ones
        long jump = Math.round(p.seconds() * 1200) * (p.worker() % 2 == 0 ? 1 : -1);
        long to = c.clockOffset(jump);
        detail = String.format(Locale.ROOT, "the wall clock jumps %+d s (now %+d s off)", jump, to);
      }
      default -> throw new IllegalStateException("unknown fault " + p.kind());
    }
    faults.add(new Fault(p.kind(), target, at, detail, true));
    log.printf(Locale.ROOT, "  %5.1f s  %-18s %-6s %s%n", at, p.kind().label(), target, detail);
  }

  private String killMaster(ChaosCluster c, Planned p, List<String> ids) throws Exception {
    String aim;
    if (p.kind() == ChaosFault.MASTER_KILL_COMMIT) {
      // right behind a piece: the master has it and is making it durable, or has just done so
      aim = c.reported().awaitMoreThan(c.reported().count(), 5000) ? "right after a piece went through"
          : "no piece within 5 s";
    } else {
      long until = System.currentTimeMillis() + 5000;
      boolean held = false;
      while (!held && System.currentTimeMillis() < until) {
        held = c.status(null).getJobsList().stream().anyMatch(j -> ids.contains(j.getJobId()) && j.getUnitsHeld() > 0);
        if (!held) {
          ChaosCluster.pause(20);
        }
      }
      aim = held ? "with chunks out" : "no chunk out within 5 s";
    }
    Process m = c.master();
    long killedAt = System.currentTimeMillis();
    Signals.send(m.pid(), "KILL");
    String detail = "SIGKILL pid " + m.pid() + " " + aim + exited(m, 10);
    ChaosCluster.pause((long) (p.seconds() * 1000 / 4));
    c.startMaster();
    long listening = System.currentTimeMillis();
    kills.add(new long[] {killedAt, listening});
    return detail + ", listening again after " + seconds(listening - killedAt) + " (pid " + c.master().pid() + ")";
  }

  private String exited(Process p, double seconds) {
    if (Signals.awaitExit(p, seconds)) {
      return "";
    }
    problems.add("pid " + p.pid() + " still alive " + seconds + " s after SIGKILL");
    return " (still alive after " + seconds + " s)";
  }

  private static String seconds(long millis) {
    return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }

  /** Waits until every job ended, at most {@code hangSeconds}; the statuses at the end. */
  private Map<String, JobStatus> awaitEnd(ChaosCluster c, List<String> ids) throws IOException {
    long until = System.currentTimeMillis() + (long) (settings.hangSeconds() * 1000);
    Map<String, JobStatus> last = new LinkedHashMap<>();
    while (true) {
      last.clear();
      for (JobStatus j : c.status(null).getJobsList()) {
        if (ids.contains(j.getJobId())) {
          last.put(j.getJobId(), j);
        }
      }
      boolean ended = ids.stream().allMatch(id -> last.containsKey(id) && StatusView.ended(last.get(id).getState()));
      if (ended || System.currentTimeMillis() >= until) {
        for (Map.Entry<String, JobStatus> e : last.entrySet()) {
          JobStatus j = e.getValue();
          if (j.getResultTruncated() && !j.getState().equals("FAILED")) {
            // a status holds only a result's start: the whole one is streamed
            e.setValue(j.toBuilder().setResult(c.result(j.getJobId())).setResultTruncated(false).build());
          }
        }
        return Map.copyOf(last);
      }
      ChaosCluster.pause(200);
    }
  }

  private JobCheck check(StoreAudit store, String id, ChaosJobs.Planned job, JobStatus s,
      List<StoreAudit.Committed> pieces) throws Exception {
    String state = s == null ? "UNKNOWN" : s.getState();
    boolean hang = s == null || !StatusView.ended(state);
    String got = s == null ? "" : s.getResult();
    double seconds = s == null || s.getFinishedAtMillis() == 0 ? Double.NaN
        : (s.getFinishedAtMillis() - s.getSubmittedAtMillis()) / 1000.0;
    StringBuilder storeProblem = new StringBuilder();
    StoreAudit.JobRow row = store.job(id);
    StoreAudit.Tiling tiling = null;
    if (row == null) {
      storeProblem.append("no row in the store's jobs table");
    } else {
      if (row.start() != job.from() || row.end() != job.to()) {
        storeProblem.append("the store's range [").append(row.start()).append(", ").append(row.end())
            .append(") is not the job's [").append(job.from()).append(", ").append(job.to()).append(")");
      }
      if (!row.state().equals(state)) {
        storeProblem.append(storeProblem.length() == 0 ? "" : "; ").append("the store says ").append(row.state())
            .append(", the master ").append(state);
      }
      tiling = StoreAudit.tile(row.start(), row.end(), pieces);
    }
    if (s != null && s.getUnitsDone() != job.units() && state.equals("DONE")) {
      storeProblem.append(storeProblem.length() == 0 ? "" : "; ").append("the master counts ").append(s.getUnitsDone())
          .append(" units done of ").append(job.units());
    }
    return new JobCheck(id, job.workload(), job.from(), job.to(), state, s == null ? "" : s.getMessage(),
        got.equals(job.expected()), got, job.expected(), hang, seconds, tiling, storeProblem.toString());
  }

  /** Each master restart's figures, from the store's commit times and the pieces the proxies saw. */
  private List<Restart> restarts(List<StoreAudit.Committed> committed, List<ReportedPieces.Piece> reported) {
    List<Restart> out = new ArrayList<>();
    long previous = Long.MIN_VALUE;
    for (int k = 0; k < kills.size(); k++) {
      long killedAt = kills.get(k)[0];
      long next = k + 1 < kills.size() ? kills.get(k + 1)[0] : Long.MAX_VALUE;
      Map<String, List<long[]>> durable = new LinkedHashMap<>();
      int pieces = 0;
      long units = 0;
      long firstAfter = Long.MAX_VALUE;
      for (StoreAudit.Committed p : committed) {
        if (p.committedAt() <= killedAt) {
          durable.computeIfAbsent(p.jobId(), j -> new ArrayList<>()).add(new long[] {p.start(), p.end()});
          pieces++;
          units += p.units();
        } else {
          firstAfter = Math.min(firstAfter, p.committedAt());
        }
      }
      long lost = 0;
      long again = 0;
      for (ReportedPieces.Piece p : reported) {
        long covered = covered(durable.getOrDefault(p.jobId(), List.of()), p.start(), p.end());
        if (p.atMillis() > previous && p.atMillis() <= killedAt) {
          lost += (p.end() - p.start()) - covered;
        } else if (p.atMillis() > killedAt && p.atMillis() <= next) {
          again += covered;
        }
      }
      out.add(new Restart((killedAt - t0) / 1000.0, pieces, units, (kills.get(k)[1] - killedAt) / 1000.0,
          firstAfter == Long.MAX_VALUE ? Double.NaN : (firstAfter - killedAt) / 1000.0, lost, again));
      previous = killedAt;
    }
    return out;
  }

  /** Units of [start, end) inside the union of {@code ranges}. */
  static long covered(List<long[]> ranges, long start, long end) {
    List<long[]> sorted = new ArrayList<>(ranges);
    sorted.sort((a, b) -> Long.compare(a[0], b[0]));
    long total = 0;
    long cursor = start;
    for (long[] r : sorted) {
      long lo = Math.max(r[0], cursor);
      long hi = Math.min(r[1], end);
      if (hi > lo) {
        total += hi - lo;
        cursor = hi;
      }
    }
    return total;
  }
}
