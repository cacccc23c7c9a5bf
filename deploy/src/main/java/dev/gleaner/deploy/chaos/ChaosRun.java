package dev.gleaner.deploy.chaos;

import dev.gleaner.deploy.audit.StoreAudit;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.protocol.JobStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * One seeded chaos run: a fresh cluster ({@link ChaosCluster}), the run's jobs ({@link ChaosJobs})
 * submitted at once, then faults injected one after another while any job runs ({@link FaultInjector}),
 * then every check: each job DONE within a bounded time with the exact answer, its committed pieces
 * in the store tiling its range ({@link StoreChecks}), and every acknowledged piece durable by then
 * ({@link AckAudit}). Everything drawn (jobs, fault kinds, targets, gaps, durations) comes from the
 * seed before anything starts, so a seed names a run; only the timing of the processes varies.
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

  /** Run number {@code index} (from 0) of a series, with its own seed. */
  public ChaosRun(Settings settings, long seed, int index, PrintStream log) {
    this.settings = settings;
    this.seed = seed;
    this.index = index;
    this.log = log;
  }

  /**
   * The run in {@code dir}: its cluster started, its jobs submitted, its faults injected, then every
   * job awaited and checked against the store and against the acknowledgements the proxies saw.
   */
  public Report run(Path dir) throws Exception {
    SplittableRandom rng = new SplittableRandom(seed);
    Path serve = dir.resolve("serve");
    Files.createDirectories(serve);
    List<ChaosJobs.Planned> jobs = ChaosJobs.choose(rng, serve, settings.jobUnits(), settings.workers(),
        settings.exec());
    List<FaultInjector.Planned> planned = FaultInjector.plan(rng, settings, index);
    try (ChaosCluster c = new ChaosCluster(dir, serve, settings.maxSpeed())) {
      c.start(settings.workers());
      WorkersJoined.awaitWorkers(() -> c.status(null), settings.workers(), Duration.ofSeconds(90), c.launched());
      long t0 = System.currentTimeMillis();
      List<String> ids = new ArrayList<>();
      try (MasterClient client = c.client()) {
        for (ChaosJobs.Planned j : jobs) {
          ids.add(client.submit(j.spec()));
        }
      }
      FaultInjector faults = new FaultInjector(c, ids, t0, log);
      for (FaultInjector.Planned p : planned) {
        faults.inject(p);
      }
      problems.addAll(faults.problems());
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
          checks.add(StoreChecks.check(store, ids.get(i), jobs.get(i), end.get(ids.get(i)), pieces));
        }
      }
      // the store's times are the master's wall clock, which clock jumps moved: back to the machine's
      committed = ClockShifts.onMachineClock(committed, ClockShifts.read(c.clockShifts()));
      List<ReportedPieces.Piece> reported = c.reported().all();
      List<ReportedPieces.Ack> acks = c.reported().acks().stream().filter(a -> ids.contains(a.jobId())).toList();
      AckAudit.Found found = AckAudit.check(acks, reported, committed, c.masterLog(), t0);
      problems.addAll(found.problems());
      List<Restart> restarts = StoreChecks.restarts(faults.kills(), committed, reported, t0);
      Report r = new Report(seed, seconds, checks, faults.faults(), restarts,
          reported.stream().mapToLong(p -> p.end() - p.start()).sum(),
          committed.stream().mapToLong(StoreAudit.Committed::units).sum(), acks.size(), found.notDurable(),
          List.copyOf(problems));
      if (!r.ok()) {
        log.println("run " + seed + " failed; last lines of the logs (all in " + dir + "):\n" + c.logs());
      }
      return r;
    }
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

}
