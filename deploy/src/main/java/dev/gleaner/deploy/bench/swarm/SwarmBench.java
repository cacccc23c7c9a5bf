package dev.gleaner.deploy.bench.swarm;

import dev.gleaner.common.workload.PrimeSieve;
import dev.gleaner.deploy.bench.MasterTimers;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code gleaner bench --swarm N[@SPEED],...}: N simulated workers ({@link SwarmFleet}) against a real
 * master JVM ({@link SwarmMaster}), one fresh master per size. Per size: the connect burst (all N
 * start connecting at once; the time until each has been welcomed once, the attempts it took, the
 * refusals by code), the sessions the master closed after their Welcome (0 when admission is sound),
 * the workers its log declares down although they were alive, then a primes job of many small chunks
 * (chunks/s from submit to the last acknowledgement, the answer against a sieve run here), the round
 * trips of status requests from a client connection while it runs (median, p99, max), the master's
 * resident memory, and the seconds from SIGTERM to its exit. A benchmark, not a test: figures from a
 * shared machine are indicative only.
 */
public final class SwarmBench {
  /** Status requests at rest, before the job. */
  private static final int REST_PROBES = 10;
  /** The pause between two status requests while the job runs. */
  private static final long PROBE_EVERY_MILLIS = 200;
  /** A status round trip longer than this counts as a status that did not answer in time. */
  static final double STATUS_PATIENCE_SECONDS = 10;
  /** How long SIGTERM is given before SIGKILL. */
  static final double SIGTERM_PATIENCE_SECONDS = 30;
  /** The longest wait for every worker's first Welcome. */
  static final double WELCOME_PATIENCE_SECONDS = 180;

  /** One size: workers, the units/s each declares, the job, and when to stop the master. */
  public record Scenario(int workers, double speed, long chunks, long chunkUnits, String strategy,
      double stopAfterSeconds, double jobSeconds) {}

  private final List<String> javaOptions;
  private final int ioThreads;
  private final PrintStream progress;

  public SwarmBench(List<String> javaOptions, int ioThreads, PrintStream progress) {
    this.javaOptions = javaOptions;
    this.ioThreads = ioThreads;
    this.progress = progress;
  }

  /** Runs each scenario in turn in a temporary directory, deleted after. */
  public Map<String, Object> runAll(List<Scenario> scenarios) throws Exception {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("cores", Runtime.getRuntime().availableProcessors());
    long limit = fdLimit();
    doc.put("fdLimit", limit);
    List<Map<String, Object>> runs = new ArrayList<>();
    Path dir = Files.createTempDirectory("gleaner-swarm-");
    try {
      for (Scenario s : scenarios) {
        runs.add(run(dir.resolve("swarm-" + s.workers() + "-" + runs.size()), s, limit));
      }
    } finally {
      LocalRuns.removeTree(dir);
    }
    doc.put("runs", runs);
    doc.put("ok", runs.stream().allMatch(r -> Boolean.TRUE.equals(r.get("ok"))));
    return doc;
  }

  /** One scenario against a fresh master. */
  Map<String, Object> run(Path run, Scenario s, long fdLimit) throws Exception {
    Files.createDirectories(run);
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("workers", s.workers());
    r.put("declaredSpeed", s.speed());
    // each side holds one socket per worker, and the JVMs a few hundred descriptors of their own
    long needed = s.workers() + 512L;
    if (fdLimit > 0 && fdLimit < needed) {
      String note = "the open-file limit (ulimit -n) is " + fdLimit + "; " + s.workers() + " workers need about "
          + needed + " in this process and as many in the master: raise it (ulimit -n " + needed + ") or expect"
          + " refused connections";
      progress.println("swarm: " + note);
      r.put("fdLimitTooLow", note);
    }
    Path secret = run.resolve("secret");
    Files.writeString(secret, java.util.HexFormat.of().formatHex(randomBytes(32)) + "\n");
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-------"));
    long to = s.chunks() * s.chunkUnits();
    progress.printf("swarm: %d workers at %.3g units/s; counting the primes below %d here for the reference ...%n",
        s.workers(), s.speed(), to);
    long expected = new PrimeSieve().count(0, to, () -> false);
    try (SwarmMaster master = SwarmMaster.start(run, secret, javaOptions, List.of());
        SwarmFleet swarm = new SwarmFleet(new InetSocketAddress("127.0.0.1", master.port()),
            dev.gleaner.protocol.SecretFile.read(secret), s.speed(), ioThreads, 1)) {
      r.put("masterPid", master.pid());
      burst(swarm, s, master, r);
      SwarmClient client = SwarmClient.connect(swarm, SwarmFleet.address(s.workers()), "swarm-bench")
          .get(60, TimeUnit.SECONDS);
      List<Double> rest = new ArrayList<>();
      for (int i = 0; i < REST_PROBES; i++) {
        long t0 = System.nanoTime();
        client.status("").get(60, TimeUnit.SECONDS);
        rest.add((System.nanoTime() - t0) / 1e6);
      }
      r.put("statusAtRestMedianMs", round(percentile(rest, 50)));
      StatusReply beforeJob = client.status("").get(60, TimeUnit.SECONDS);
      r.put("masterEvictions", beforeJob.getMetricsOrDefault("gleaner.connections.evicted", Double.NaN));
      job(swarm, client, master, s, expected, r, beforeJob);
      r.put("closedAfterWelcome", swarm.closedAfterWelcome().size());
      r.put("closedAfterWelcomeFirst", first(swarm.closedAfterWelcome(), 5));
      // the master's count of workers it declared down (none of the swarm's went), and those still gone
      StatusReply after = client.status("").get(60, TimeUnit.SECONDS);
      int downs = (int) after.getMetricsOrDefault("gleaner.workers.failures", 0);
      r.put("falseDowns", downs);
      r.put("falseDownsFirst", after.getWorkersList().stream().filter(w -> w.getState().equals("GONE"))
          .map(w -> w.getWorkerId()).sorted().limit(5).toList());
      r.put("connectAttempts", swarm.attempts.sum());
      r.put("refusals", swarm.refusals());
      swarm.stop();
      client.close();
      double stop = master.terminate(SIGTERM_PATIENCE_SECONDS);
      r.put("sigtermSeconds", stop < 0 ? "did not exit within " + SIGTERM_PATIENCE_SECONDS + " s: SIGKILL" : round(stop));
      List<String> problems = swarm.problems();
      r.put("problems", problems.subList(0, Math.min(10, problems.size())));
      boolean ok = Boolean.TRUE.equals(r.get("exact")) && swarm.closedAfterWelcome().isEmpty() && downs == 0
          && stop >= 0 && stop <= 10 && r.get("welcomeSeconds") instanceof Number && problems.isEmpty()
          && ((Number) r.get("statusOver10s")).intValue() == 0;
      r.put("ok", ok);
      if (!ok) {
        r.put("masterLogTail", master.tail(15));
      }
    }
    progress.println("swarm: " + r);
    return r;
  }

  /** All workers connect at once; waits until every one has been welcomed once (or the patience is out). */
  private void burst(SwarmFleet swarm, Scenario s, SwarmMaster master, Map<String, Object> r)
      throws InterruptedException {
    long t0 = System.nanoTime();
    swarm.start(s.workers(), s.workers());
    long until = t0 + (long) (WELCOME_PATIENCE_SECONDS * 1e9);
    long at;
    while ((at = swarm.allWelcomedNanos()) < 0 && System.nanoTime() < until && master.alive()) {
      Thread.sleep(20);
    }
    r.put("welcomeSeconds", at < 0 ? "not all within " + WELCOME_PATIENCE_SECONDS + " s (" + swarm.welcomed.get()
        + " welcomed)" : round((at - t0) / 1e9));
    r.put("attemptsDuringBurst", swarm.attempts.sum());
    r.put("connectFailures", swarm.connectFailures.sum());
    r.put("closedInHandshake", swarm.closedBeforeWelcome.sum());
    r.put("rssAfterBurstMib", round(master.rssMib()[0]));
    progress.printf("swarm: %d of %d welcomed in %.1f s (%d connection attempts)%n", swarm.welcomed.get(),
        s.workers(), (System.nanoTime() - t0) / 1e9, swarm.attempts.sum());
  }

  /**
   * Submits the job, asks for its status every {@value #PROBE_EVERY_MILLIS} ms (one request at a
   * time, each round trip timed) until it ends, the stop time comes, or the patience is out.
   */
  private void job(SwarmFleet swarm, SwarmClient client, SwarmMaster master, Scenario s, long expected,
      Map<String, Object> r, StatusReply beforeJob) throws Exception {
    JobSpec spec = JobSpec.newBuilder().setName("swarm").setWorkload("primes").putParams("from", "0")
        .putParams("to", Long.toString(s.chunks() * s.chunkUnits())).setStrategy(s.strategy())
        .setChunkUnits(s.chunkUnits()).build();
    long submitted = System.nanoTime();
    String job = client.submit(spec).get(60, TimeUnit.SECONDS);
    double stopAt = s.stopAfterSeconds() > 0 ? s.stopAfterSeconds() : s.jobSeconds();
    long until = submitted + (long) (stopAt * 1e9);
    List<Double> latencies = new ArrayList<>();
    int late = 0;
    double rssMax = 0;
    JobStatus last = null;
    StatusReply lastReply = null;
    while (System.nanoTime() < until && master.alive()) {
      long t0 = System.nanoTime();
      StatusReply reply;
      try {
        // all jobs, as `gleaner status` asks by default
        reply = client.status("").get(Math.max(1, until - t0), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        late++;
        latencies.add((System.nanoTime() - t0) / 1e6);
        break;
      } catch (ExecutionException e) {
        r.put("statusFailure", e.getCause().getMessage());
        break;
      }
      double ms = (System.nanoTime() - t0) / 1e6;
      latencies.add(ms);
      if (ms > STATUS_PATIENCE_SECONDS * 1000) {
        late++;
      }
      rssMax = Math.max(rssMax, master.rssMib()[0]);
      last = reply.getJobsList().stream().filter(j -> j.getJobId().equals(job)).findFirst().orElse(null);
      lastReply = reply;
      if (last != null && last.getFinishedAtMillis() != 0) {
        break;
      }
      Thread.sleep(PROBE_EVERY_MILLIS);
    }
    double seconds = (System.nanoTime() - submitted) / 1e9;
    boolean ended = last != null && last.getFinishedAtMillis() != 0;
    r.put("jobEnded", ended);
    r.put("jobSeconds", round(seconds));
    long acked = swarm.chunksAcked.sum();
    double ackSpan = (swarm.lastAckNanos() - submitted) / 1e9;
    r.put("chunksAcked", acked);
    r.put("chunksPerSecond", acked == 0 || ackSpan <= 0 ? 0 : round(acked / ackSpan));
    r.put("statusRequests", latencies.size());
    r.put("statusMedianMs", round(percentile(latencies, 50)));
    r.put("statusP99Ms", round(percentile(latencies, 99)));
    r.put("statusMaxMs", round(latencies.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN)));
    r.put("statusOver10s", late);
    // the same requests timed at the master, from arrival to reply: what the master's own work costs,
    // apart from this process's threads, which share the cores with the simulated workers
    if (lastReply != null) {
      String t = "gleaner.status.reply";
      double atMaster = MasterTimers.meanMs(beforeJob, lastReply, t);
      r.put("statusAtMasterMeanMs", Double.isNaN(atMaster) ? Double.NaN : round(atMaster));
      r.put("statusAtMasterMaxMs", round(lastReply.getMetricsOrDefault(t + ".max_ms", Double.NaN)));
    }
    double[] rss = master.rssMib();
    r.put("masterRssMib", round(Math.max(rssMax, rss[0])));
    r.put("masterPeakRssMib", round(rss[1]));
    String result = last == null ? "" : last.getResult().strip();
    r.put("result", ended ? result : "not ended: " + (last == null ? "no status" : last.getState() + ", "
        + last.getUnitsDone() + " of " + last.getUnitsTotal() + " units"));
    r.put("expected", expected + " primes");
    r.put("exact", ended && result.equals(expected + " primes"));
  }

  private static Map<String, String> first(Map<String, String> m, int n) {
    Map<String, String> out = new LinkedHashMap<>();
    m.entrySet().stream().limit(n).forEach(e -> out.put(e.getKey(), e.getValue()));
    return out;
  }

  /** The open-file limit of this process (the master inherits it), or -1 if unknown. */
  static long fdLimit() {
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.UnixOperatingSystemMXBean u) {
      return u.getMaxFileDescriptorCount();
    }
    return -1;
  }

  static double percentile(List<Double> values, double p) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    int i = (int) Math.ceil(p / 100 * v.length) - 1;
    return v[Math.max(0, Math.min(v.length - 1, i))];
  }

  private static double round(double x) {
    return Math.round(x * 10) / 10.0;
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new java.security.SecureRandom().nextBytes(b);
    return b;
  }


  /** The figures as a person reads them, one scenario after another. */
  public static void print(java.io.PrintWriter out, Map<String, Object> doc) {
    out.printf("cores %s, open-file limit %s%n", doc.get("cores"), doc.get("fdLimit"));
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> runs = (List<Map<String, Object>>) doc.get("runs");
    for (Map<String, Object> r : runs) {
      out.printf("%n%s workers declaring %s units/s%n", r.get("workers"), r.get("declaredSpeed"));
      for (Map.Entry<String, Object> e : r.entrySet()) {
        if (!e.getKey().equals("workers") && !e.getKey().equals("declaredSpeed")) {
          out.printf(java.util.Locale.ROOT, "  %-26s %s%n", e.getKey(), e.getValue());
        }
      }
    }
    out.printf("%nok %s%n", doc.get("ok"));
  }
}
