package dev.gleaner.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerShare;
import dev.gleaner.protocol.WorkerStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Prints status for people (tables, progress bars) and for programs (one JSON document). */
final class StatusView {
  private StatusView() {}

  static String json(Object value) {
    try {
      return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
    }
  }

  static Map<String, Object> toMap(StatusReply reply) {
    List<Object> jobs = new ArrayList<>();
    for (JobStatus j : reply.getJobsList()) {
      jobs.add(toMap(j));
    }
    List<Object> workers = new ArrayList<>();
    for (WorkerStatus w : reply.getWorkersList()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", w.getWorkerId());
      m.put("host", w.getHost());
      m.put("cores", w.getCores());
      m.put("state", w.getState());
      m.put("unitsPerSecond", w.getUnitsPerSecond());
      m.put("unitsDone", w.getUnitsDone());
      m.put("interruptions", w.getInterruptions());
      m.put("currentChunk", w.getCurrentChunk());
      m.put("silentMillis", w.getLastHeartbeatMillis());
      workers.add(m);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jobs", jobs);
    m.put("workers", workers);
    m.put("metrics", new java.util.TreeMap<>(reply.getMetricsMap()));
    return m;
  }

  static Map<String, Object> toMap(JobStatus j) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", j.getJobId());
    m.put("name", j.getName());
    m.put("workload", j.getWorkload());
    m.put("state", j.getState());
    m.put("strategy", j.getStrategy());
    m.put("unitsTotal", j.getUnitsTotal());
    m.put("unitsDone", j.getUnitsDone());
    m.put("unitsPerSecond", j.getUnitsPerSecond());
    m.put("result", j.getResult());
    m.put("message", j.getMessage());
    m.put("submittedAtMillis", j.getSubmittedAtMillis());
    m.put("finishedAtMillis", j.getFinishedAtMillis());
    Map<String, Long> shares = new LinkedHashMap<>();
    for (WorkerShare s : j.getSharesList()) {
      shares.put(s.getWorkerId(), s.getUnits());
    }
    m.put("unitsByWorker", shares);
    m.put("recoveryScheme", j.getRecoveryScheme());
    Map<String, List<String>> recovery = new LinkedHashMap<>();
    for (dev.gleaner.protocol.RecoveryList r : j.getRecoveryList()) {
      recovery.put(r.getWorkerId(), List.copyOf(r.getListList()));
    }
    m.put("recoveryLists", recovery);
    List<Map<String, Object>> reroutes = new java.util.ArrayList<>();
    for (dev.gleaner.protocol.Reroute r : j.getReroutesList()) {
      Map<String, Object> x = new LinkedHashMap<>();
      x.put("from", r.getFromWorker());
      x.put("origin", r.getOrigin());
      x.put("to", r.getToWorker());
      x.put("units", r.getUnits());
      x.put("chunks", r.getChunks());
      x.put("atMillis", r.getAtMillis());
      reroutes.add(x);
    }
    m.put("reroutes", reroutes);
    return m;
  }

  static void table(StatusReply reply, java.io.PrintWriter out) {
    out.println("JOBS");
    if (reply.getJobsCount() == 0) {
      out.println("  (none)");
    }
    for (JobStatus j : reply.getJobsList()) {
      out.printf(Locale.ROOT, "  %-8s %-8s %-8s %s %6.2f%%  %s units/s  %s%n", j.getJobId(), j.getState(), j.getWorkload(),
          bar(j.getUnitsDone(), j.getUnitsTotal(), 20), percent(j), human(j.getUnitsPerSecond()),
          j.getMessage().isEmpty() ? firstLine(j.getResult()) : j.getMessage());
      if (j.getRecoveryCount() > 0) {
        out.printf("    recovery lists (%s scheme):%n", j.getRecoveryScheme());
        for (dev.gleaner.protocol.RecoveryList r : j.getRecoveryList()) {
          List<String> l = r.getListList();
          out.printf("      %-16s -> %s%s%n", r.getWorkerId(), String.join(" ", l.subList(0, Math.min(8, l.size()))),
              l.size() > 8 ? " ..." : "");
        }
      }
      for (dev.gleaner.protocol.Reroute r : j.getReroutesList()) {
        out.printf("    rerouted: %d units (%d chunks) of %s's work, lost with %s, to %s%n", r.getUnits(), r.getChunks(),
            r.getOrigin(), r.getFromWorker(), r.getToWorker().isEmpty() ? "the shared queue" : r.getToWorker());
      }
    }
    out.println("WORKERS");
    if (reply.getWorkersCount() == 0) {
      out.println("  (none)");
    }
    for (WorkerStatus w : reply.getWorkersList()) {
      out.printf(Locale.ROOT, "  %-16s %-9s %-20s cores=%d speed=%s units=%d interruptions=%d %s%n", w.getWorkerId(),
          w.getState(), w.getHost(), w.getCores(), human(w.getUnitsPerSecond()), w.getUnitsDone(), w.getInterruptions(),
          w.getCurrentChunk());
    }
    if (reply.getMetricsCount() > 0) {
      out.println("METRICS");
      new java.util.TreeMap<>(reply.getMetricsMap()).forEach((k, v) ->
          out.printf(Locale.ROOT, "  %-36s %s%n", k, v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v)
              : String.format(Locale.ROOT, "%.3f", v)));
    }
  }

  static double percent(JobStatus j) {
    return j.getUnitsTotal() == 0 ? 0 : 100.0 * j.getUnitsDone() / j.getUnitsTotal();
  }

  static String bar(long done, long total, int width) {
    int filled = total == 0 ? 0 : (int) Math.min(width, Math.round((double) done / total * width));
    return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "]";
  }

  static String human(double v) {
    if (v >= 1e9) {
      return String.format(Locale.ROOT, "%.2fG", v / 1e9);
    }
    if (v >= 1e6) {
      return String.format(Locale.ROOT, "%.2fM", v / 1e6);
    }
    if (v >= 1e3) {
      return String.format(Locale.ROOT, "%.1fk", v / 1e3);
    }
    return String.format(Locale.ROOT, "%.0f", v);
  }

  static String firstLine(String s) {
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl) + " ...";
  }
}
