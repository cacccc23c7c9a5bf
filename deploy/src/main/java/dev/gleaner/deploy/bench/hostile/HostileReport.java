package dev.gleaner.deploy.bench.hostile;

import dev.gleaner.deploy.audit.KnownPrimeCounts;
import dev.gleaner.deploy.chaos.HostilePeer;
import dev.gleaner.deploy.chaos.HostilePeer.Attack;
import dev.gleaner.deploy.chaos.HostilePeer.Outcome;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** What {@code gleaner bench --hostile} reports: each run's figures, and a table for each run. */
public final class HostileReport {
  private HostileReport() {}

  /**
   * One run's figures: what the master answered each attack, the real client's status requests, the
   * jobs' answers, the master's memory ({@code memory}, measured from outside), whether it stayed
   * alive, and whether all that is ok; {@code run} is the run's folder (the master's log is read).
   */
  static Map<String, Object> of(HostileMode mode, int concurrency, List<Outcome> outcomes, double seconds,
      StatusProbe probe, List<JobLoop.JobResult> jobs, Map<String, Object> memory, boolean alive,
      double masterRefusals, Path run) throws IOException {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("mode", mode == HostileMode.TLS ? "TLS, tokens" : "clear text, shared secret");
    doc.put("connections", outcomes.size());
    doc.put("attackSeconds", Math.round(seconds * 10) / 10.0);
    doc.put("maxOpenSockets", concurrency);
    List<Map<String, Object>> attacks = new ArrayList<>();
    Map<String, Integer> byCode = new TreeMap<>();
    int breaches = 0;
    int unexpected = 0;
    for (Attack a : mode.mix().keySet()) {
      Map<String, Integer> labels = new TreeMap<>();
      double max = 0;
      int n = 0;
      for (Outcome o : outcomes) {
        if (o.attack() != a) {
          continue;
        }
        n++;
        labels.merge(o.label(), 1, Integer::sum);
        max = Math.max(max, o.seconds());
        if (o.label().equals(o.label().toUpperCase(Locale.ROOT)) && !o.label().contains(" ")) {
          byCode.merge(o.label(), 1, Integer::sum);
        }
        if (o.label().equals(HostilePeer.LOGGED_IN)) {
          breaches++;
        }
        if (!a.expected().contains(o.label())) {
          unexpected++;
        }
      }
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("attack", a.name().toLowerCase(Locale.ROOT).replace('_', '-'));
      row.put("what", a.what());
      row.put("connections", n);
      row.put("outcomes", labels);
      row.put("maxSeconds", Math.round(max * 10) / 10.0);
      attacks.add(row);
    }
    doc.put("attacks", attacks);
    doc.put("refusalsByCode", byCode);
    doc.put("masterProtocolErrors", masterRefusals);
    doc.put("unexpectedOutcomes", unexpected);
    doc.put("loggedInHostilePeers", breaches);
    if (mode == HostileMode.SECRET) {
      int maxHeld = 0;
      // bursts are read in order of completion; count the admitted ones per burst of BURST outcomes
      int held = 0;
      int seen = 0;
      for (Outcome o : outcomes) {
        if (o.attack() == Attack.PER_ADDRESS) {
          held += o.label().equals(HostilePeer.HELD) ? 1 : 0;
          if (++seen % HostilePeer.BURST == 0) {
            maxHeld = Math.max(maxHeld, held);
            held = 0;
          }
        }
      }
      doc.put("maxAdmittedPerBurst", maxHeld);
    }
    List<Double> ms = new ArrayList<>(probe.millis);
    Collections.sort(ms);
    Map<String, Object> status = new LinkedHashMap<>();
    status.put("requests", ms.size() + probe.failures.size());
    status.put("failures", probe.failures.size());
    status.put("firstFailures", probe.failures.subList(0, Math.min(5, probe.failures.size())));
    status.put("medianMs", ms.isEmpty() ? Double.NaN : Math.round(ms.get(ms.size() / 2) * 10) / 10.0);
    status.put("maxMs", ms.isEmpty() ? Double.NaN : Math.round(ms.get(ms.size() - 1) * 10) / 10.0);
    doc.put("status", status);
    List<Map<String, Object>> js = new ArrayList<>();
    for (JobLoop.JobResult j : jobs) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("state", j.state());
      m.put("result", j.result());
      m.put("exact", j.exact());
      m.put("seconds", Math.round(j.seconds() * 10) / 10.0);
      js.add(m);
    }
    doc.put("jobs", js);
    doc.put("expected", KnownPrimeCounts.pi(JobLoop.JOB_TO) + " primes");
    doc.put("master", memory);
    doc.put("masterAlive", alive);
    long errorLines = Files.readAllLines(run.resolve("master.log")).stream().filter(l -> l.contains(" ERROR ")).count();
    doc.put("masterErrorLogLines", errorLines);
    boolean jobsExact = !jobs.isEmpty() && jobs.stream().allMatch(j -> j.exact());
    doc.put("ok", alive && jobsExact && probe.failures.isEmpty() && breaches == 0);
    return doc;
  }

  /** A table for each run of the document {@link HostileBench#run} returns. */
  @SuppressWarnings("unchecked")
  public static void print(PrintWriter out, Map<String, Object> doc) {
    for (Map<String, Object> r : (List<Map<String, Object>>) doc.get("runs")) {
      out.printf(Locale.ROOT, "%n%s: %,d hostile connections in %.1f s, at most %s sockets at once%s%n", r.get("mode"),
          (Integer) r.get("connections"), (Double) r.get("attackSeconds"), r.get("maxOpenSockets"),
          String.valueOf(r.get("mode")).startsWith("TLS") ? " (all over TLS trusting the cluster CA, but plain-to-tls)" : "");
      out.printf("%-24s %-38s %7s %6s  %s%n", "attack", "what", "conns", "max s", "master's answers");
      for (Map<String, Object> a : (List<Map<String, Object>>) r.get("attacks")) {
        out.printf(Locale.ROOT, "%-24s %-38s %,7d %6.1f  %s%n", a.get("attack"), a.get("what"), (Integer) a.get("connections"),
            (Double) a.get("maxSeconds"), a.get("outcomes"));
      }
      out.println("refusals by code:        " + r.get("refusalsByCode"));
      out.println("master's protocol errors: " + r.get("masterProtocolErrors") + " (its own counter, over the attack)");
      out.println("unexpected outcomes:     " + r.get("unexpectedOutcomes") + "; hostile peers logged in: "
          + r.get("loggedInHostilePeers") + (r.containsKey("maxAdmittedPerBurst")
          ? "; most admitted from one address: " + r.get("maxAdmittedPerBurst") : ""));
      Map<String, Object> s = (Map<String, Object>) r.get("status");
      out.printf("status every second:     %s requests, %s failed, median %s ms, max %s ms%n", s.get("requests"),
          s.get("failures"), s.get("medianMs"), s.get("maxMs"));
      List<Map<String, Object>> jobs = (List<Map<String, Object>>) r.get("jobs");
      long exact = jobs.stream().filter(j -> Boolean.TRUE.equals(j.get("exact"))).count();
      out.printf("jobs (primes below 10^10): %d, %d exact (%s)%n", jobs.size(), exact, r.get("expected"));
      Map<String, Object> m = (Map<String, Object>) r.get("master");
      out.printf("master RSS MiB:          before %s, peak %s, after %s%n", m.get("rssBeforeMiB"), m.get("rssPeakMiB"),
          m.get("rssAfterMiB"));
      out.printf("master heap MiB:         before %s, peak %s, after %s (before and after: live, after a full GC)%n",
          m.get("heapBeforeMiB"), m.get("heapPeakMiB"), m.get("heapAfterMiB"));
      out.printf("master descriptors:      before %s, peak %s, after %s%n", m.get("fdsBefore"), m.get("fdsPeak"),
          m.get("fdsAfter"));
      out.println("master alive:            " + r.get("masterAlive") + "; ERROR lines in its log: "
          + r.get("masterErrorLogLines"));
      if (r.containsKey("saturation")) {
        Map<String, Object> sat = (Map<String, Object>) r.get("saturation");
        out.printf("then %s idle connections from %s addresses (over the master's 256): %s; a fresh client login"
            + " meanwhile: %s%n", sat.get("idleConnections"), sat.get("addresses"), sat.get("outcomes"),
            sat.get("freshClientLogin"));
      }
      if (r.containsKey("churn")) {
        Map<String, Object> ch = (Map<String, Object>) r.get("churn");
        out.printf("then connect-and-close for %s s (%s threads): %s connections, %s failed to connect; master's live heap"
            + " %s MiB before, %s MiB right after, %s MiB 35 s later; a fresh client login after: %s; master alive: %s%n",
            ch.get("seconds"), ch.get("threads"), ch.get("connections"), ch.get("connectFailures"), ch.get("heapBeforeMiB"),
            ch.get("heapRightAfterMiB"), ch.get("heap35sLaterMiB"), ch.get("freshClientLoginAfter"), ch.get("masterAlive"));
      }
      out.println("ok:                      " + r.get("ok"));
    }
    out.flush();
  }
}
