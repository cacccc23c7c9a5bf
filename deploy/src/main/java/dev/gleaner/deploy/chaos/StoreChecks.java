package dev.gleaner.deploy.chaos;

import dev.gleaner.deploy.audit.StoreAudit;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.protocol.JobStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The checks of a chaos run against what the master stored: each job's row, state and committed
 * pieces tiling its range, and what each master restart cost (units reported but not yet durable at
 * the kill, durable units computed again after it).
 */
final class StoreChecks {
  private StoreChecks() {}

  /**
   * One job's checks: its state and answer from the master's last status {@code s} (null if it had
   * none), and its row and committed {@code pieces} in the store.
   */
  static ChaosRun.JobCheck check(StoreAudit store, String id, ChaosJobs.Planned job, JobStatus s,
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
    return new ChaosRun.JobCheck(id, job.workload(), job.from(), job.to(), state, s == null ? "" : s.getMessage(),
        got.equals(job.expected()), got, job.expected(), hang, seconds, tiling, storeProblem.toString());
  }

  /**
   * Each master restart's figures, from the store's commit times and the pieces the proxies saw;
   * {@code kills} as {@link FaultInjector#kills} gives them, times from the run's start {@code t0} (ms).
   */
  static List<ChaosRun.Restart> restarts(List<long[]> kills, List<StoreAudit.Committed> committed,
      List<ReportedPieces.Piece> reported, long t0) {
    List<ChaosRun.Restart> out = new ArrayList<>();
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
      out.add(new ChaosRun.Restart((killedAt - t0) / 1000.0, pieces, units, (kills.get(k)[1] - killedAt) / 1000.0,
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
