package dev.gleaner.deploy.bench.hostile;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The tables of {@code gleaner bench --hostile}: one per run, from the figures {@link HostileBench} returns. */
public final class HostileReport {
  private HostileReport() {}

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
