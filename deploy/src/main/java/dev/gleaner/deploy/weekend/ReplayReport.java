package dev.gleaner.deploy.weekend;

import dev.gleaner.common.trace.OmniscientBound;
import dev.gleaner.common.trace.OwnerSchedule;
import dev.gleaner.deploy.audit.ReferenceSieve;
import dev.gleaner.deploy.audit.StoreAudit;
import dev.gleaner.deploy.launch.WorkerEventsFile;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.master.web.Durations;
import dev.gleaner.protocol.Forecast;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.UnitRange;
import dev.gleaner.protocol.WorkerStatus;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a replay found, checked and printed: the store's pieces and the not-done ranges tiling the
 * range, the count against the reference sieve, the vacates or crashes the workers' events files
 * hold since the trace started, and the saved units beside the omniscient bound.
 */
final class ReplayReport {
  private final ReplayRun.Settings s;
  private final Path dataDir;
  private final WorkerProcesses workers;
  private final PrintWriter out;
  /** Each worker's events when the trace starts, counted: what the report reads starts there. */
  private final Map<String, Integer> eventMarks = new LinkedHashMap<>();

  /** The report of a run of {@code s} whose master stores in {@code dataDir}, printed to {@code out}. */
  ReplayReport(ReplayRun.Settings s, Path dataDir, WorkerProcesses workers, PrintWriter out) {
    this.s = s;
    this.dataDir = dataDir;
    this.workers = workers;
    this.out = out;
  }

  /** The trace starts now: what the workers told before (the warm-up) is not read. */
  void markEvents() throws IOException {
    for (String node : s.trace().nodes().keySet()) {
      eventMarks.put(node, WorkerEventsFile.read(workers.events(node)).size());
    }
  }

  /**
   * Checks the job against the store and prints what was saved beside the omniscient bound: the
   * tiling, the count, the vacates or crashes the workers' events show since the trace started, eps,
   * each worker's share and the forecast from a quarter of the run ({@code quarter}, or null).
   */
  ReplayRun.Outcome of(JobStatus job, double epsReal, List<WorkerStatus> ws, Forecast quarter) throws Exception {
    double k = s.speedup();
    long from = 0;
    long to = s.work();
    // the store, read from outside as StoreAudit does: committed pieces and not-done ranges must tile the range
    List<StoreAudit.Committed> pieces;
    StoreAudit.JobRow row;
    try (StoreAudit audit = StoreAudit.open(dataDir)) {
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
      List<WorkerEventsFile.Event> events = WorkerEventsFile.read(workers.events(node));
      List<Long> mine = tookMillis(events.subList(Math.min(eventMarks.getOrDefault(node, 0), events.size()),
          events.size()), s.crashes() ? WorkerEventsFile.DOWN : WorkerEventsFile.VACATED);
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
          vacates.isEmpty() ? "none" : "owner seen to master told " + summary(vacates) + " ms; per worker "
              + perWorker);
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
    return new ReplayRun.Outcome(job.getState(), saved, bound, boundNoEps, epsReal, exact, quarter);
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

  /** For each event of {@code kind} among {@code events}, how long it took, ms (0 but for a vacate). */
  private static List<Long> tookMillis(List<WorkerEventsFile.Event> events, String kind) {
    return events.stream().filter(e -> e.kind().equals(kind)).map(WorkerEventsFile.Event::tookMillis).toList();
  }
}
