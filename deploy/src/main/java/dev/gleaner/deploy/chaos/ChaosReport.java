package dev.gleaner.deploy.chaos;

import dev.gleaner.deploy.client.StatusView;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** How {@code gleaner chaos} shows its runs: a table per run, a summary, and the same as JSON. */
public final class ChaosReport {
  private ChaosReport() {}

  /** The counts the summary gives, over some runs. */
  record Totals(int runs, int failedRuns, int jobs, int wrongAnswers, int failedJobs, long unitsLost,
      long unitsCountedTwice, int hangs, int storeProblems, int otherProblems, int faultsSkipped, int masterRestarts,
      long lostInFlightUnits, long recomputedDurableUnits, double meanDownSeconds, double meanFirstCommitSeconds,
      long unitsReported, long unitsCommitted, long acks, long acksNotDurable) {}

  static Totals totals(List<ChaosRun.Report> reports) {
    int failedRuns = 0;
    int jobs = 0;
    int wrong = 0;
    int failed = 0;
    long lost = 0;
    long twice = 0;
    int hangs = 0;
    int store = 0;
    int other = 0;
    int skipped = 0;
    int restarts = 0;
    long inFlight = 0;
    long again = 0;
    double down = 0;
    double first = 0;
    int firstCount = 0;
    long reported = 0;
    long committed = 0;
    long acks = 0;
    long acksNotDurable = 0;
    for (ChaosRun.Report r : reports) {
      acks += r.acks();
      acksNotDurable += r.acksNotDurable();
      failedRuns += r.ok() ? 0 : 1;
      other += r.problems().size();
      reported += r.unitsReported();
      committed += r.unitsCommitted();
      skipped += (int) r.faults().stream().filter(f -> !f.injected()).count();
      for (ChaosRun.JobCheck j : r.jobs()) {
        jobs++;
        boolean done = j.state().equals("DONE");
        wrong += done && !j.answerOk() ? 1 : 0;
        failed += !j.hang() && !done ? 1 : 0;
        hangs += j.hang() ? 1 : 0;
        store += !j.storeProblem().isEmpty() || (j.tiling() != null && j.tiling().outsideUnits() > 0) ? 1 : 0;
        if (j.tiling() != null) {
          lost += done ? j.tiling().gapUnits() : 0;
          twice += j.tiling().overlapUnits();
        }
      }
      for (ChaosRun.Restart x : r.restarts()) {
        restarts++;
        inFlight += x.lostInFlightUnits();
        again += x.recomputedDurableUnits();
        down += x.downSeconds();
        if (!Double.isNaN(x.firstCommitSeconds())) {
          first += x.firstCommitSeconds();
          firstCount++;
        }
      }
    }
    return new Totals(reports.size(), failedRuns, jobs, wrong, failed, lost, twice, hangs, store, other, skipped,
        restarts, inFlight, again, restarts == 0 ? Double.NaN : down / restarts,
        firstCount == 0 ? Double.NaN : first / firstCount, reported, committed, acks, acksNotDurable);
  }

  /** One run as a table, with its faults and master restarts. */
  public static void table(ChaosRun.Report r, ChaosRun.Settings s, PrintWriter out) {
    out.printf(Locale.ROOT, "%nrun seed %d: %s in %.1f s (%d workers, %d faults drawn)%n", r.seed(),
        r.ok() ? "ok" : "FAILED", r.seconds(), s.workers(), r.faults().size());
    out.printf(Locale.ROOT, "  %-7s %-7s %-27s %-9s %-7s %-8s %-9s %8s%n", "job", "work", "units", "state", "answer",
        "pieces", "tiling", "seconds");
    for (ChaosRun.JobCheck j : r.jobs()) {
      out.printf(Locale.ROOT, "  %-7s %-7s %-27s %-9s %-7s %-8s %-9s %8.1f%n", j.id(), j.workload(),
          "[" + j.from() + ", " + j.to() + ")", j.hang() ? "HANG" : j.state(), j.answerOk() ? "exact" : "WRONG",
          j.tiling() == null ? "-" : Integer.toString(j.tiling().pieces()),
          j.tiling() == null ? "-" : j.tiling().exact() ? "exact" : "BROKEN", j.seconds());
      if (!j.answerOk()) {
        out.println("      expected: " + firstLine(j.expected()) + "; got: " + firstLine(j.got())
            + (j.message().isEmpty() ? "" : " (" + j.message() + ")"));
      }
      if (j.tiling() != null && !j.tiling().exact()) {
        out.printf(Locale.ROOT, "      store: %d units not covered, %d covered twice, %d outside; first: %s%n",
            j.tiling().gapUnits(), j.tiling().overlapUnits(), j.tiling().outsideUnits(), j.tiling().firstDefect());
      }
      if (!j.storeProblem().isEmpty()) {
        out.println("      store: " + j.storeProblem());
      }
    }
    for (ChaosRun.Fault f : r.faults()) {
      out.printf(Locale.ROOT, "  fault %5.1f s %-18s %-6s %s%n", f.atSeconds(), f.kind().label(), f.target(),
          f.detail());
    }
    for (ChaosRun.Restart x : r.restarts()) {
      out.printf(Locale.ROOT, "  master restart at %.1f s: %d pieces (%d units) durable; listening after %.1f s,"
          + " first commit after %.1f s; %d units reported but not durable (done again), %d durable units"
          + " computed again%n", x.atSeconds(), x.piecesBefore(), x.unitsBefore(), x.downSeconds(),
          x.firstCommitSeconds(), x.lostInFlightUnits(), x.recomputedDurableUnits());
    }
    out.printf(Locale.ROOT, "  units reported by workers %d, committed %d (%.1f%% more reported); pieces"
        + " acknowledged %d, of which with nothing durable behind them %d%n", r.unitsReported(), r.unitsCommitted(),
        percentMore(r.unitsReported(), r.unitsCommitted()), r.acks(), r.acksNotDurable());
    for (String p : r.problems()) {
      out.println("  PROBLEM: " + p);
    }
    out.flush();
  }

  /** The summary over all runs. */
  public static void summaryTable(List<ChaosRun.Report> reports, PrintWriter out) {
    Totals t = totals(reports);
    out.printf(Locale.ROOT, "%nsummary: %d runs, %d failed; %d jobs%n", t.runs(), t.failedRuns(), t.jobs());
    out.printf(Locale.ROOT, "  wrong answers %d, failed jobs %d, hangs %d, units lost %d, units counted twice %d,"
        + " store disagreements %d, other problems %d%n", t.wrongAnswers(), t.failedJobs(), t.hangs(), t.unitsLost(),
        t.unitsCountedTwice(), t.storeProblems(), t.otherProblems());
    StringBuilder kinds = new StringBuilder();
    faultsByKind(reports).forEach((k, v) -> kinds.append(kinds.length() == 0 ? "" : ", ")
        .append(k.label()).append(' ').append(v));
    out.printf(Locale.ROOT, "  faults injected: %s; skipped (every job had ended): %d%n",
        kinds.length() == 0 ? "none" : kinds, t.faultsSkipped());
    if (t.masterRestarts() == 0) {
      out.println("  master restarts 0");
    } else {
      out.printf(Locale.ROOT, "  master restarts %d: listening again after %.1f s and first commit after %.1f s on"
          + " average; %d units reported but not durable (done again), %d durable units computed again%n",
          t.masterRestarts(), t.meanDownSeconds(), t.meanFirstCommitSeconds(), t.lostInFlightUnits(),
          t.recomputedDurableUnits());
    }
    out.printf(Locale.ROOT, "  units reported by workers %d, committed %d (%.1f%% more reported); pieces"
        + " acknowledged %d, of which with nothing durable behind them %d%n", t.unitsReported(), t.unitsCommitted(),
        percentMore(t.unitsReported(), t.unitsCommitted()), t.acks(), t.acksNotDurable());
    out.flush();
  }

  public static Map<String, Object> settings(ChaosRun.Settings s, long seed, int runs) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seed", seed);
    m.put("runs", runs);
    m.put("workers", s.workers());
    m.put("faultsPerRun", s.faultsPerRun());
    m.put("faults", s.kinds().stream().map(ChaosFault::label).toList());
    m.put("inOrder", s.inOrder());
    m.put("maxSpeed", s.maxSpeed());
    m.put("jobSeconds", s.jobSeconds());
    m.put("hangSeconds", s.hangSeconds());
    m.put("exec", s.exec());
    return m;
  }

  public static Map<String, Object> summary(List<ChaosRun.Report> reports) {
    Totals t = totals(reports);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ok", t.failedRuns() == 0);
    m.put("runs", t.runs());
    m.put("failedRuns", t.failedRuns());
    m.put("jobs", t.jobs());
    m.put("wrongAnswers", t.wrongAnswers());
    m.put("failedJobs", t.failedJobs());
    m.put("hangs", t.hangs());
    m.put("unitsLost", t.unitsLost());
    m.put("unitsCountedTwice", t.unitsCountedTwice());
    m.put("storeDisagreements", t.storeProblems());
    m.put("otherProblems", t.otherProblems());
    Map<String, Object> kinds = new LinkedHashMap<>();
    faultsByKind(reports).forEach((k, v) -> kinds.put(k.label(), v));
    m.put("faultsByKind", kinds);
    m.put("faultsSkipped", t.faultsSkipped());
    m.put("masterRestarts", t.masterRestarts());
    m.put("meanDownSeconds", StatusView.number(t.meanDownSeconds()));
    m.put("meanFirstCommitSeconds", StatusView.number(t.meanFirstCommitSeconds()));
    m.put("lostInFlightUnits", t.lostInFlightUnits());
    m.put("recomputedDurableUnits", t.recomputedDurableUnits());
    m.put("unitsReported", t.unitsReported());
    m.put("unitsCommitted", t.unitsCommitted());
    m.put("acks", t.acks());
    m.put("acksNotDurable", t.acksNotDurable());
    return m;
  }

  public static Map<String, Object> toMap(ChaosRun.Report r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seed", r.seed());
    m.put("ok", r.ok());
    m.put("seconds", StatusView.number(r.seconds()));
    List<Object> jobs = new ArrayList<>();
    for (ChaosRun.JobCheck j : r.jobs()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("id", j.id());
      x.put("workload", j.workload());
      x.put("from", j.from());
      x.put("to", j.to());
      x.put("state", j.state());
      x.put("hang", j.hang());
      x.put("answerExact", j.answerOk());
      if (!j.answerOk()) {
        x.put("expected", j.expected());
        x.put("got", j.got());
        x.put("message", j.message());
      }
      x.put("seconds", StatusView.number(j.seconds()));
      if (j.tiling() != null) {
        x.put("pieces", j.tiling().pieces());
        x.put("tilingExact", j.tiling().exact());
        x.put("gapUnits", j.tiling().gapUnits());
        x.put("overlapUnits", j.tiling().overlapUnits());
        x.put("outsideUnits", j.tiling().outsideUnits());
        x.put("firstDefect", j.tiling().firstDefect());
      }
      x.put("storeProblem", j.storeProblem());
      jobs.add(x);
    }
    m.put("jobs", jobs);
    List<Object> faults = new ArrayList<>();
    for (ChaosRun.Fault f : r.faults()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("kind", f.kind().label());
      x.put("target", f.target());
      x.put("atSeconds", f.atSeconds());
      x.put("injected", f.injected());
      x.put("detail", f.detail());
      faults.add(x);
    }
    m.put("faults", faults);
    List<Object> restarts = new ArrayList<>();
    for (ChaosRun.Restart x : r.restarts()) {
      Map<String, Object> y = new LinkedHashMap<>();
      y.put("atSeconds", x.atSeconds());
      y.put("piecesDurable", x.piecesBefore());
      y.put("unitsDurable", x.unitsBefore());
      y.put("downSeconds", x.downSeconds());
      y.put("firstCommitSeconds", StatusView.number(x.firstCommitSeconds()));
      y.put("lostInFlightUnits", x.lostInFlightUnits());
      y.put("recomputedDurableUnits", x.recomputedDurableUnits());
      restarts.add(y);
    }
    m.put("masterRestarts", restarts);
    m.put("unitsReported", r.unitsReported());
    m.put("unitsCommitted", r.unitsCommitted());
    m.put("acks", r.acks());
    m.put("acksNotDurable", r.acksNotDurable());
    m.put("problems", r.problems());
    return m;
  }

  private static double percentMore(long reported, long committed) {
    return committed == 0 ? 0 : 100.0 * (reported - committed) / committed;
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    String line = nl < 0 ? s : s.substring(0, nl) + " ...";
    return line.length() > 120 ? line.substring(0, 120) + "..." : line;
  }

  /** Faults injected per kind over all runs. */
  static Map<ChaosFault, Integer> faultsByKind(List<ChaosRun.Report> reports) {
    Map<ChaosFault, Integer> m = new EnumMap<>(ChaosFault.class);
    for (ChaosRun.Report r : reports) {
      r.faultsByKind().forEach((k, v) -> m.merge(k, v, Integer::sum));
    }
    return m;
  }
}
