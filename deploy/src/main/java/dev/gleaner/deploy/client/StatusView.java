package dev.gleaner.deploy.client;

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
public final class StatusView {
  private StatusView() {}

  public static String json(Object value) {
    try {
      return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot write JSON: " + e.getMessage(), e);
    }
  }

  public static Map<String, Object> toMap(StatusReply reply) {
    List<Object> jobs = new ArrayList<>();
    for (JobStatus j : reply.getJobsList()) {
      jobs.add(toMap(j));
    }
    List<Object> workers = new ArrayList<>();
    for (WorkerStatus w : reply.getWorkersList()) {
      workers.add(dev.gleaner.master.web.StatusMaps.worker(w));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("jobs", jobs);
    m.put("workers", workers);
    m.put("workersOmitted", reply.getWorkersOmitted());
    m.put("workersByState", new java.util.TreeMap<>(reply.getWorkersByStateMap()));
    m.put("eps", estimate(reply.getEps()));
    m.put("shares", dev.gleaner.master.web.StatusMaps.shares(reply.getSharesList()));
    m.put("relays", dev.gleaner.master.web.StatusMaps.relays(reply.getRelaysList()));
    m.put("metrics", new java.util.TreeMap<>(reply.getMetricsMap()));
    m.put("asOfMillis", reply.getAsOfMillis());
    return m;
  }

  public static Map<String, Object> toMap(JobStatus j) {
    return dev.gleaner.master.web.StatusMaps.job(j);
  }

  /** A figure and its observations; an unknown value is null. */
  static Map<String, Object> estimate(dev.gleaner.protocol.Estimate e) {
    return dev.gleaner.master.web.StatusMaps.estimate(e);
  }

  /** A number for JSON: NaN and infinities are null. */
  public static Double number(double v) {
    return dev.gleaner.master.web.StatusMaps.number(v);
  }

  /** A figure with its observation count, for people: {@code 1.2M (14)}, {@code ?} when unknown. */
  static String figure(dev.gleaner.protocol.Estimate e) {
    return Double.isFinite(e.getValue()) ? human(e.getValue()) + " (" + e.getObservations() + ")" : "?";
  }

  /**
   * A running job's forecast for people: with a deadline, the share of the job saved by then, with
   * its band, the deadline in the local time zone and the time left; otherwise when the job ends,
   * from {@code nowMillis}, with its band; each with what it rests on.
   */
  public static String forecast(JobStatus j, long nowMillis) {
    return forecast(j, nowMillis, java.time.ZoneId.systemDefault());
  }

  /** As {@link #forecast(JobStatus, long)}, times of day in {@code zone}. */
  static String forecast(JobStatus j, long nowMillis, java.time.ZoneId zone) {
    dev.gleaner.protocol.Forecast f = j.getForecast();
    String basis = String.format(Locale.ROOT, "; %d simulated runs from %s ago", f.getRuns(),
        duration(Math.max(0, nowMillis - f.getAtMillis())));
    if (j.getDeadlineMillis() > 0 && f.getFinished() < 0.5) {
      double total = Math.max(1, j.getUnitsTotal());
      String band = f.getUnitsLow() == f.getUnitsHigh() ? "every run agrees"
          : share(f.getUnitsLow() / total) + " to " + share(f.getUnitsHigh() / total);
      return String.format(Locale.ROOT, "%s of the job (%s) saved by the deadline, %s, in %s%s",
          share(f.getUnits() / total), band, localTime(j.getDeadlineMillis(), nowMillis, zone),
          duration(j.getDeadlineMillis() - nowMillis), basis);
    }
    if (f.getEndMillis() == 0) {
      String saved = String.format(Locale.ROOT, "%s of %s units (%s)", human(f.getUnits()),
          human(j.getUnitsTotal()), f.getUnitsLow() == f.getUnitsHigh() ? "every run agrees"
              : human(f.getUnitsLow()) + " to " + human(f.getUnitsHigh()));
      return saved + " saved; fewer than half the runs saved every unit within their horizon" + basis;
    }
    String low = f.getEndLowMillis() == 0 ? "?" : duration(f.getEndLowMillis() - nowMillis);
    String high = f.getEndHighMillis() == 0 ? "later" : duration(f.getEndHighMillis() - nowMillis);
    String band = f.getEndLowMillis() == f.getEndHighMillis() ? "every run agrees" : low + " to " + high;
    return String.format(Locale.ROOT, "done in %s, %s (%s)%s%s", duration(f.getEndMillis() - nowMillis),
        localTime(f.getEndMillis(), nowMillis, zone), band,
        f.getFinished() < 1 ? String.format(Locale.ROOT, "; %.0f%% of the runs save every unit", 100 * f.getFinished())
            : "", basis);
  }

  /** A share for people: {@code 19.3%}, {@code 100%}. */
  private static String share(double s) {
    return s >= 0.9995 ? "100%" : String.format(Locale.ROOT, "%.1f%%", 100 * s);
  }

  /**
   * A moment in {@code zone} for people: {@code Mon 08:00} within the next six days,
   * {@code 2026-12-07 08:00} further, with seconds under ten minutes away ({@code 14:03:27}).
   */
  static String localTime(long millis, long nowMillis, java.time.ZoneId zone) {
    java.time.ZonedDateTime t = java.time.Instant.ofEpochMilli(millis).atZone(zone);
    long ahead = millis - nowMillis;
    String pattern = ahead < 600_000 ? "HH:mm:ss" : ahead < 6 * 86_400_000L ? "EEE HH:mm" : "yyyy-MM-dd HH:mm";
    java.time.ZonedDateTime now = java.time.Instant.ofEpochMilli(nowMillis).atZone(zone);
    if (ahead < 600_000 && !t.toLocalDate().equals(now.toLocalDate())) {
      pattern = "EEE HH:mm:ss";
    }
    return t.format(java.time.format.DateTimeFormatter.ofPattern(pattern, Locale.ROOT));
  }

  /** Milliseconds for people: {@code 45s}, {@code 12m05s}, {@code 3h07m}, {@code 2d04h}; {@code 0s} for the past. */
  static String duration(long millis) {
    long s = Math.max(0, Math.round(millis / 1000.0));
    if (s < 60) {
      return s + "s";
    }
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    if (s < 86_400) {
      return String.format(Locale.ROOT, "%dh%02dm", s / 3600, s % 3600 / 60);
    }
    return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, s % 86_400 / 3600);
  }

  public static void table(StatusReply reply, java.io.PrintWriter out) {
    long age = reply.getAsOfMillis() == 0 ? 0 : System.currentTimeMillis() - reply.getAsOfMillis();
    if (age >= 2000) {
      out.printf("(figures from %d s ago: the master's control loop is busy, and it answered with the last ones it took)%n",
          age / 1000);
    }
    out.println("JOBS");
    if (reply.getSharesCount() > 0) {
      StringBuilder b = new StringBuilder("  (owners share the workers by weight:");
      for (dev.gleaner.protocol.Share sh : reply.getSharesList()) {
        b.append(' ').append(sh.getOwner()).append(' ').append(human(sh.getWeight())).append(',');
      }
      b.setLength(b.length() - 1);
      out.println(b.append("; any other owner 1)"));
    }
    if (reply.getJobsCount() == 0) {
      out.println("  (none)");
    }
    if (reply.getJobsOmitted() > 0) {
      out.printf("  (%d older job(s) not shown; gleaner status --job JOB shows any)%n", reply.getJobsOmitted());
    }
    for (JobStatus j : reply.getJobsList()) {
      out.printf(Locale.ROOT, "  %-8s %-12s %-8s %s %6.2f%%  %s units/s  %s%n", j.getJobId(), j.getState(),
          j.getWorkload(), bar(j.getUnitsDone(), j.getUnitsTotal(), 20), percent(j), human(j.getUnitsPerSecond()),
          j.getMessage().isEmpty() ? firstLine(j.getResult()) : j.getMessage());
      if (!j.getOwner().isEmpty() || j.getPriority() != 0) {
        out.printf(Locale.ROOT, "    owner: %s%s%n", j.getOwner().isEmpty() ? "(none: the shared secret)" : j.getOwner(),
            j.getPriority() != 0 ? ", priority " + j.getPriority() : "");
      }
      if (!j.getStrategy().isEmpty()) {
        out.printf(Locale.ROOT, "    plan: %s, %d re-plan(s)%s%n", j.getStrategy(), j.getReplans(),
            j.getDeadlineMillis() > 0 ? ", deadline " + java.time.Instant.ofEpochMilli(j.getDeadlineMillis()) : "");
      }
      if (j.hasForecast()) {
        out.printf("    forecast: %s%n", forecast(j, System.currentTimeMillis()));
      }
      if (j.getNotDoneCount() > 0) {
        out.printf("    not done: %s%n", ranges(j.getNotDoneList()));
      }
      if (j.getUnitsVerified() > 0 || j.getMismatchesCount() > 0) {
        out.printf(Locale.ROOT, "    verified: %s units (%.1f%%) computed again on a second worker and equal%n",
            human(j.getUnitsVerified()), 100.0 * j.getUnitsVerified() / Math.max(1, j.getUnitsTotal()));
        for (String m : j.getMismatchesList()) {
          out.printf("    mismatch: %s%n", m);
        }
      }
      if (j.getResultTruncated()) {
        out.printf("    result: %s bytes in all (gleaner result %s)%n", human(j.getResultSize()), j.getJobId());
      }
      if (j.getRecoveryCount() > 0 && !j.getRecoveryScheme().isEmpty()) {
        out.printf("    recovery lists (%s scheme):%n", j.getRecoveryScheme());
        for (dev.gleaner.protocol.RecoveryList r : j.getRecoveryList()) {
          List<String> l = r.getListList();
          out.printf("      %-16s -> %s%s%n", r.getWorkerId(), String.join(" ", l.subList(0, Math.min(8, l.size()))),
              Math.max(l.size(), r.getLength()) > 8 ? " ... (" + Math.max(l.size(), r.getLength()) + " in all)" : "");
        }
      }
      for (dev.gleaner.protocol.Reroute r : j.getReroutesList()) {
        // taken from it: it crashed, its owner came back, or its program failed the chunk
        out.printf("    rerouted: %d units (%d chunks) of %s's work, taken from %s, to %s%n", r.getUnits(), r.getChunks(),
            r.getOrigin(), r.getFromWorker(), r.getToWorker().isEmpty() ? "the shared queue" : r.getToWorker());
      }
    }
    out.println("WORKERS");
    if (reply.getWorkersCount() == 0) {
      out.println("  (none)");
    }
    if (reply.getWorkersOmitted() > 0) {
      out.printf(Locale.ROOT, "  %d workers: %s; the first %d to have joined below (gleaner status --all-workers lists "
          + "every one)%n", reply.getWorkersByStateMap().values().stream().mapToInt(Integer::intValue).sum(),
          reply.getWorkersByStateMap().entrySet().stream().map(e -> e.getValue() + " " + e.getKey())
              .collect(java.util.stream.Collectors.joining(", ")), reply.getWorkersCount());
    }
    if (reply.getWorkersCount() > 0) {
      out.printf(Locale.ROOT, "  %-16s %-9s %-16s %5s %-22s %-14s %-22s %12s  %s%n", "id", "state", "host", "cores",
          "speed units/s (obs)", "bandwidth B/s", "risk /h (interruptions)", "units", "chunk");
    }
    for (WorkerStatus w : reply.getWorkersList()) {
      List<Map.Entry<String, dev.gleaner.protocol.Estimate>> known = w.getSpeedsMap().entrySet().stream()
          .filter(e -> Double.isFinite(e.getValue().getValue())).sorted(Map.Entry.comparingByKey()).toList();
      String speeds = known.isEmpty() ? "?" : known.stream()
          .map(e -> (known.size() > 1 ? e.getKey() + ":" : "") + figure(e.getValue()))
          .collect(java.util.stream.Collectors.joining(" "));
      // a worker with no time up yet (one that joined away, a new one) has no rate of its own: '?' as for speeds
      String risk = w.getRiskInterruptions() == 0 && !(w.getRiskExposureSeconds() > 0) ? "? (no history)"
          : String.format(Locale.ROOT, "%.3g (%d in %.1f h)", w.getRiskRate() * 3600, w.getRiskInterruptions(),
              w.getRiskExposureSeconds() / 3600);
      out.printf(Locale.ROOT, "  %-16s %-9s %-16s %5d %-22s %-14s %-22s %12d  %s%s%n", w.getWorkerId(), w.getState(),
          w.getHost(), w.getCores(), speeds, figure(w.getBandwidth()), risk, w.getUnitsDone(), w.getCurrentChunk(),
          w.getAvailableUntilMillis() > 0 ? "  until " + java.time.Instant.ofEpochMilli(w.getAvailableUntilMillis()) : "");
      if (!w.getVia().isEmpty()) {
        out.printf(Locale.ROOT, "  %-16s through relay %s%n", "", w.getVia());
      }
      if (!w.getIdleReason().isEmpty()) {
        out.printf(Locale.ROOT, "  %-16s takes nothing now: %s%n", "", w.getIdleReason());
      }
      if (w.getState().equals("AWAY")) {
        out.printf(Locale.ROOT, "  %-16s takes no work: %s%s%n", "", w.getAwayReason(), w.getBackAtMillis() > 0
            ? "; back at " + java.time.Instant.ofEpochMilli(w.getBackAtMillis()) : "");
      }
    }
    if (reply.getRelaysCount() > 0) {
      out.println("RELAYS");
      out.printf(Locale.ROOT, "  %-16s %-16s %-16s %8s  %s%n", "id", "host", "through", "workers", "since");
      for (dev.gleaner.protocol.RelayStatus r : reply.getRelaysList()) {
        out.printf(Locale.ROOT, "  %-16s %-16s %-16s %8d  %s%n", r.getRelayId(), r.getHost(),
            r.getVia().isEmpty() ? "(master)" : r.getVia(), r.getWorkers(),
            java.time.Instant.ofEpochMilli(r.getConnectedAtMillis()));
      }
    }
    if (reply.hasEps() && Double.isFinite(reply.getEps().getValue())) {
      out.printf(Locale.ROOT, "EPS (checkpoint round trip): %.2f ms (%d)%n", reply.getEps().getValue() * 1000,
          reply.getEps().getObservations());
    }
    if (reply.getMetricsCount() > 0) {
      out.println("METRICS");
      new java.util.TreeMap<>(reply.getMetricsMap()).forEach((k, v) ->
          out.printf(Locale.ROOT, "  %-36s %s%n", k, v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v)
              : String.format(Locale.ROOT, "%.3f", v)));
    }
  }

  /** Unit ranges as people write them, the first 8 and a count of the rest. */
  public static String ranges(List<dev.gleaner.protocol.UnitRange> list) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < Math.min(8, list.size()); i++) {
      sb.append(i == 0 ? "" : " ").append('[').append(list.get(i).getStart()).append(", ").append(list.get(i).getEnd())
          .append(')');
    }
    if (list.size() > 8) {
      sb.append(" and ").append(list.size() - 8).append(" more");
    }
    return sb.toString();
  }

  /** Whether a job's state is final. */
  public static boolean ended(String state) {
    return state.equals("DONE") || state.equals("DONE_PARTIAL") || state.equals("FAILED") || state.equals("CANCELLED");
  }

  public static double percent(JobStatus j) {
    return j.getUnitsTotal() == 0 ? 0 : 100.0 * j.getUnitsDone() / j.getUnitsTotal();
  }

  public static String bar(long done, long total, int width) {
    int filled = total == 0 ? 0 : (int) Math.min(width, Math.round((double) done / total * width));
    return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "]";
  }

  public static String human(double v) {
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
