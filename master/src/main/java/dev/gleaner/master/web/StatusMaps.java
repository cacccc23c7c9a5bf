package dev.gleaner.master.web;

import dev.gleaner.protocol.Estimate;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.RecoveryList;
import dev.gleaner.protocol.Reroute;
import dev.gleaner.protocol.UnitRange;
import dev.gleaner.protocol.WorkerShare;
import dev.gleaner.protocol.WorkerStatus;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The status messages as plain maps, for one JSON shape wherever status is written as JSON
 * ({@code gleaner status --json}, {@code gleaner jobs --json}, the master's {@code /api/status}).
 * Times are wall-clock milliseconds; an unknown number is null.
 */
public final class StatusMaps {
  private StatusMaps() {}

  /** A worker's status as a plain map. */
  public static Map<String, Object> worker(WorkerStatus w) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", w.getWorkerId());
    m.put("host", w.getHost());
    // the relay its connection came through; null: to the master directly
    m.put("via", w.getVia().isEmpty() ? null : w.getVia());
    m.put("cores", w.getCores());
    m.put("state", w.getState());
    m.put("unitsPerSecond", w.getUnitsPerSecond());
    m.put("unitsDone", w.getUnitsDone());
    m.put("unitsComputed", w.getUnitsComputed());
    m.put("interruptions", w.getInterruptions());
    m.put("currentChunk", w.getCurrentChunk());
    m.put("silentMillis", w.getLastHeartbeatMillis());
    Map<String, Object> speeds = new TreeMap<>();
    w.getSpeedsMap().forEach((k, v) -> speeds.put(k, estimate(v)));
    m.put("speeds", speeds);
    m.put("bandwidth", estimate(w.getBandwidth()));
    Map<String, Object> risk = new LinkedHashMap<>();
    risk.put("rate", number(w.getRiskRate()));
    risk.put("interruptions", w.getRiskInterruptions());
    risk.put("exposureSeconds", w.getRiskExposureSeconds());
    m.put("risk", risk);
    m.put("availableUntilMillis", w.getAvailableUntilMillis() == 0 ? null : w.getAvailableUntilMillis());
    m.put("sessions", w.getSessions());
    m.put("awayReason", w.getState().equals("AWAY") ? w.getAwayReason() : null);
    m.put("backAtMillis", w.getBackAtMillis() == 0 ? null : w.getBackAtMillis());
    // no chunk while work waits: why it took none (a thin link that would hold the master's port)
    m.put("idleReason", w.getIdleReason().isEmpty() ? null : w.getIdleReason());
    return m;
  }

  /** The relays logged in, as plain maps. */
  public static List<Object> relays(List<dev.gleaner.protocol.RelayStatus> relays) {
    List<Object> out = new ArrayList<>();
    for (dev.gleaner.protocol.RelayStatus r : relays) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", r.getRelayId());
      m.put("host", r.getHost());
      m.put("via", r.getVia().isEmpty() ? null : r.getVia());
      m.put("workers", r.getWorkers());
      m.put("connectedAtMillis", r.getConnectedAtMillis());
      m.put("silentMillis", r.getLastHeartbeatMillis());
      out.add(m);
    }
    return out;
  }

  /** A job's status as a plain map. */
  public static Map<String, Object> job(JobStatus j) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", j.getJobId());
    m.put("name", j.getName());
    // who submitted it ("client:NAME", "operator:NAME"); empty under the shared secret
    m.put("owner", j.getOwner());
    m.put("priority", j.getPriority());
    m.put("workload", j.getWorkload());
    m.put("state", j.getState());
    m.put("strategy", j.getStrategy());
    m.put("unitsTotal", j.getUnitsTotal());
    m.put("unitsDone", j.getUnitsDone());
    m.put("unitsPerSecond", j.getUnitsPerSecond());
    m.put("result", j.getResult());
    m.put("resultSize", j.getResultSize());
    m.put("resultTruncated", j.getResultTruncated());
    m.put("unitsVerified", j.getUnitsVerified());
    m.put("mismatches", List.copyOf(j.getMismatchesList()));
    m.put("message", j.getMessage());
    m.put("submittedAtMillis", j.getSubmittedAtMillis());
    m.put("finishedAtMillis", j.getFinishedAtMillis());
    m.put("deadlineMillis", j.getDeadlineMillis() == 0 ? null : j.getDeadlineMillis());
    // the plan's own one-round figure; the forecast is below
    m.put("expectedWork", number(j.getExpectedWork()));
    m.put("forecast", j.hasForecast() ? forecast(j.getForecast()) : null);
    m.put("planReason", j.getPlanReason());
    m.put("replans", j.getReplans());
    m.put("unitsQueued", j.getUnitsQueued());
    m.put("unitsHeld", j.getUnitsHeld());
    List<long[]> notDone = new ArrayList<>();
    for (UnitRange r : j.getNotDoneList()) {
      notDone.add(new long[] {r.getStart(), r.getEnd()});
    }
    m.put("notDone", notDone);
    Map<String, Long> shares = new LinkedHashMap<>();
    for (WorkerShare s : j.getSharesList()) {
      shares.put(s.getWorkerId(), s.getUnits());
    }
    m.put("unitsByWorker", shares);
    m.put("recoveryScheme", j.getRecoveryScheme());
    Map<String, List<String>> recovery = new LinkedHashMap<>();
    for (RecoveryList r : j.getRecoveryList()) {
      recovery.put(r.getWorkerId(), List.copyOf(r.getListList()));
    }
    m.put("recoveryLists", recovery);
    List<Map<String, Object>> reroutes = new ArrayList<>();
    for (Reroute r : j.getReroutesList()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("from", r.getFromWorker());
      x.put("origin", r.getOrigin());
      x.put("to", r.getToWorker());
      x.put("units", r.getUnits());
      x.put("chunks", r.getChunks());
      reroutes.add(x);
    }
    m.put("reroutes", reroutes);
    return m;
  }

  /** A figure and its observations; an unknown value is null. */
  public static Map<String, Object> estimate(Estimate e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("value", number(e.getValue()));
    m.put("observations", e.getObservations());
    return m;
  }

  /** A number for JSON: NaN and infinities are null. */
  public static Double number(double v) {
    return Double.isFinite(v) ? v : null;
  }

  /** The owners' weights an operator set, by owner, as the status lists them. */
  public static Map<String, Double> shares(java.util.List<dev.gleaner.protocol.Share> shares) {
    Map<String, Double> m = new LinkedHashMap<>();
    shares.forEach(sh -> m.put(sh.getOwner(), sh.getWeight()));
    return m;
  }

  /** A forecast as JSON: times in epoch milliseconds, null where fewer runs finished than the figure needs. */
  static Map<String, Object> forecast(dev.gleaner.protocol.Forecast f) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("atMillis", f.getAtMillis());
    m.put("runs", f.getRuns());
    m.put("units", f.getUnits());
    m.put("unitsLow", f.getUnitsLow());
    m.put("unitsHigh", f.getUnitsHigh());
    m.put("finished", f.getFinished());
    m.put("endMillis", f.getEndMillis() == 0 ? null : f.getEndMillis());
    m.put("endLowMillis", f.getEndLowMillis() == 0 ? null : f.getEndLowMillis());
    m.put("endHighMillis", f.getEndHighMillis() == 0 ? null : f.getEndHighMillis());
    return m;
  }
}
