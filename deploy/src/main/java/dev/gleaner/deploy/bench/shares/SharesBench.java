package dev.gleaner.deploy.bench.shares;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.deploy.launch.MasterProcess;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.SecretFile;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code gleaner bench --shares}: the fair share on real processes. A master (tokens for the
 * clients, the shared secret for the workers) and N worker JVMs held to one speed each
 * ({@code --max-speed}), on loopback; three scenes, one after the other, on that cluster:
 *
 * <ol>
 *   <li><b>preempt</b>: client alice submits a job that takes every worker for {@code seconds};
 *       client bob submits one worth {@code bobSeconds} on half of them, 10 s later. When bob's
 *       job first holds half the workers, its time against alone on half, alice's answer against a
 *       sieve, and from the store: every unit of both in exactly one piece, every chunk's pieces
 *       reaching its (cut) end.
 *   <li><b>weights</b>: an operator gives client carol weight 3; carol and dave (weight 1) submit
 *       big jobs at once: the units each has when dave's job is half done (3:1 expected), then
 *       carol's workers once dave's job has ended (all of them).
 *   <li><b>priority</b>: client erin submits a job at priority 0, then one at priority 5, 10 s
 *       later: when the second first holds every worker, and that it ends first.
 *   <li><b>forecast</b>: frank's job, and grace's a quarter into it: the master's forecasts of each
 *       (made with the other's) against their real ends.
 * </ol>
 *
 * The workload is {@code primes} over ranges of integers; a worker's speed is its cap. Each figure
 * comes from the master's status, sampled every {@link #SAMPLE_MILLIS} ms, and its store.
 */
public final class SharesBench {
  static final long SAMPLE_MILLIS = 200;
  private static final Duration SCENE_LIMIT = Duration.ofMinutes(10);

  /** The bench's settings: workers, each one's speed in units/s, and how long alice's job would take on all of them. */
  public record Settings(int workers, double speed, double seconds, double bobSeconds) {
    public Settings {
      if (workers < 2 || workers > 64 || !(speed >= 1000) || !(seconds >= 10) || !(bobSeconds >= 1)) {
        throw new IllegalArgumentException("--share-workers must be 2..64, --share-speed at least 1000 units/s,"
            + " --share-seconds at least 10 and --share-bob-seconds at least 1");
      }
    }
  }

  private final Settings settings;
  private final PrintStream progress;
  private byte[] clusterKey;
  private HostPort master;
  private Path masterLog;
  /** Alice's and bob's jobs, whose pieces the store check reads. */
  private final List<String> checked = new ArrayList<>();

  public SharesBench(Settings settings, PrintStream progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /** Runs the three scenes on one cluster; every process it started is ended, its folder removed. */
  public Map<String, Object> run() throws Exception {
    Path dir = Files.createTempDirectory("gleaner-shares-bench");
    try {
      return run(dir);
    } finally {
      LocalRuns.deleteTree(dir, "gleaner bench --shares");
    }
  }

  private Map<String, Object> run(Path dir) throws Exception {
    Path secret = dir.resolve("secret");
    Files.writeString(secret, "shares-bench-" + System.nanoTime() + "-0123456789\n");
    Path key = dir.resolve("cluster.key");
    Files.writeString(key, "shares-bench-key-" + System.nanoTime() + "-0123456789\n");
    clusterKey = SecretFile.read(key);
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("workers", settings.workers());
    doc.put("speed", settings.speed());
    Path data = dir.resolve("data");
    try (MasterProcess m = MasterProcess.start(dir, List.of("-Xmx512m", "-XX:+UseSerialGC"), List.of("--data",
        data.toString(), "--secret-file", secret.toString(), "--cluster-key", key.toString(), "--allow-shared-secret"),
        Duration.ofSeconds(60)); WorkerProcesses workers = new WorkerProcesses(dir)) {
      master = new HostPort("127.0.0.1", m.port());
      masterLog = m.log();
      List<Long> pids = new ArrayList<>(List.of(m.pid()));
      for (int i = 1; i <= settings.workers(); i++) {
        pids.add(workers.start("w" + i, m.port(), secret, 1, 1, "256m",
            List.of("--max-speed", Long.toString(Math.round(settings.speed())))).pid());
      }
      doc.put("pids", pids);
      try (MasterClient root = as(Role.OPERATOR, "root")) {
        WorkersJoined.awaitWorkers(() -> root.status(""), settings.workers(), Duration.ofSeconds(60),
            workers.withMaster(m.process(), m.log()));
      }
      note("%d workers at %.0f units/s each", settings.workers(), settings.speed());
      doc.put("preempt", preempt());
      doc.put("weights", weights());
      doc.put("priority", priority());
      doc.put("forecast", forecast());
      doc.put("masterStopped", m.stop(Duration.ofSeconds(10)) ? "on SIGTERM" : "SIGKILL");
      doc.put("store", StoreCheck.check(data.resolve("gleaner.db"), checked));
    }
    return doc;
  }

  private MasterClient as(Role role, String name) throws IOException {
    return MasterClient.connect(master, PeerCredential.token(role, name, Auth.token(clusterKey, role, name)), null);
  }



  private static JobSpec primes(String name, long to, int priority) {
    return JobSpec.newBuilder().setName(name).setWorkload("primes").putParams("from", "0")
        .putParams("to", Long.toString(to)).setPriority(priority).build();
  }

  /** Scene 1: alice's job on every worker, bob's on half of them 10 s later. */
  private Map<String, Object> preempt() throws Exception {
    int half = settings.workers() / 2;
    long aliceUnits = Math.round(settings.speed() * settings.workers() * settings.seconds());
    long bobUnits = Math.round(settings.speed() * half * settings.bobSeconds());
    note("preempt: alice's job of %d units, bob's of %d units 10 s later ...", aliceUnits, bobUnits);
    Sampler s = new Sampler();
    String alice;
    String bob;
    double bobAt;
    try (MasterClient a = as(Role.CLIENT, "alice"); MasterClient b = as(Role.CLIENT, "bob")) {
      alice = a.submit(primes("alice", aliceUnits, 0));
      s.until(10);
      bob = b.submit(primes("bob", bobUnits, 0));
      bobAt = s.now();
      s.untilEnded(List.of(alice, bob));
    }
    checked.addAll(List.of(alice, bob));
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("aliceJob", alice);
    r.put("bobJob", bob);
    double held = s.firstHolding(bob, half, bobAt);
    JobStatus bs = s.last(bob);
    JobStatus as = s.last(alice);
    double bobSeconds = (bs.getFinishedAtMillis() - bs.getSubmittedAtMillis()) / 1000.0;
    r.put("bobHoldsHalfAfterSeconds", held - bobAt);
    r.put("bobSeconds", bobSeconds);
    r.put("bobAloneOnHalfSeconds", bobUnits / (settings.speed() * half));
    r.put("bobExact", exact(bs, bobUnits));
    r.put("aliceSeconds", (as.getFinishedAtMillis() - as.getSubmittedAtMillis()) / 1000.0);
    r.put("aliceExact", exact(as, aliceUnits));
    r.put("aliceState", as.getState());
    r.put("preempted", preemptions());
    r.put("piecesDuplicate", s.metric("gleaner.pieces.duplicate"));
    r.put("piecesDiscarded", s.metric("gleaner.pieces.discarded"));
    note("  bob held %d workers %.1f s after it came, ended in %.1f s (alone on %d: %.1f s); alice in %.1f s, %s",
        half, held - bobAt, bobSeconds, half, bobUnits / (settings.speed() * half),
        (double) r.get("aliceSeconds"), r.get("aliceExact").equals(true) ? "exact" : "NOT EXACT");
    return r;
  }

  /** Scene 2: weights 3:1 between carol and dave. */
  private Map<String, Object> weights() throws Exception {
    Map<String, Object> r = new LinkedHashMap<>();
    try (MasterClient root = as(Role.OPERATOR, "root")) {
      root.share("client:carol", 3);
    }
    long daveUnits = Math.round(settings.speed() * settings.workers() / 4 * settings.seconds());
    long carolUnits = 3 * daveUnits + Math.round(settings.speed() * settings.workers() * settings.seconds() / 4);
    note("weights: carol (3) and dave (1) submit %d and %d units at once ...", carolUnits, daveUnits);
    Sampler s = new Sampler();
    String carol;
    String dave;
    try (MasterClient c = as(Role.CLIENT, "carol"); MasterClient d = as(Role.CLIENT, "dave")) {
      carol = c.submit(primes("carol", carolUnits, 0));
      dave = d.submit(primes("dave", daveUnits, 0));
      s.untilEnded(List.of(carol, dave));
    }
    JobStatus ds = s.last(dave);
    double daveEnd = s.endedAt(dave);
    // the units each had when dave's job was half done: both busy since the start
    double[] at = s.unitsAt(List.of(carol, dave), daveEnd / 2);
    r.put("atSeconds", daveEnd / 2);
    r.put("carolUnits", at[0]);
    r.put("daveUnits", at[1]);
    r.put("ratio", at[0] / at[1]);
    r.put("carolHoldsAllAfterDaveSeconds", s.firstHolding(carol, settings.workers(), daveEnd) - daveEnd);
    r.put("exact", exact(ds, daveUnits) && exact(s.last(carol), carolUnits));
    note("  at %.1f s carol had %.0f units, dave %.0f: %.2f to 1; carol held all %d workers %.1f s after dave's end",
        daveEnd / 2, at[0], at[1], at[0] / at[1], settings.workers(), r.get("carolHoldsAllAfterDaveSeconds"));
    try (MasterClient root = as(Role.OPERATOR, "root")) {
      root.share("client:carol", 0);
    }
    return r;
  }

  /** Scene 3: erin's priority-5 job after her priority-0 one. */
  private Map<String, Object> priority() throws Exception {
    long lowUnits = Math.round(settings.speed() * settings.workers() * settings.seconds() / 2);
    long highUnits = Math.round(settings.speed() * settings.workers() * settings.bobSeconds());
    note("priority: erin's priority-0 job of %d units, her priority-5 job of %d 10 s later ...", lowUnits, highUnits);
    Sampler s = new Sampler();
    String low;
    String high;
    double highAt;
    try (MasterClient e = as(Role.CLIENT, "erin")) {
      low = e.submit(primes("erin-low", lowUnits, 0));
      s.until(10);
      high = e.submit(primes("erin-high", highUnits, 5));
      highAt = s.now();
      s.untilEnded(List.of(low, high));
    }
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("highHoldsAllAfterSeconds", s.firstHolding(high, settings.workers(), highAt) - highAt);
    r.put("highSeconds", s.endedAt(high) - highAt);
    r.put("highAloneSeconds", highUnits / (settings.speed() * settings.workers()));
    r.put("highEndedFirst", s.endedAt(high) < s.endedAt(low));
    r.put("exact", exact(s.last(low), lowUnits) && exact(s.last(high), highUnits));
    note("  the priority-5 job held all %d workers %.1f s after it came and ended in %.1f s (alone: %.1f s)",
        settings.workers(), r.get("highHoldsAllAfterSeconds"), r.get("highSeconds"), r.get("highAloneSeconds"));
    return r;
  }

  /** Chunks the master cut or moved to take a worker back, as its log says so far. */
  private long preemptions() throws IOException {
    try (java.util.stream.Stream<String> lines = Files.lines(masterLog)) {
      return lines.filter(l -> l.contains("preempted: its worker goes to a job below its share")).count();
    }
  }

  /**
   * Scene 4: the master's forecasts with a second owner's job. Frank's job would take every worker
   * {@code 4/3 seconds}; grace's, worth as long on half of them, comes a quarter into it. Frank's first
   * forecast made after grace's job came, and grace's first made a quarter into hers, against their
   * ends.
   */
  private Map<String, Object> forecast() throws Exception {
    int half = settings.workers() / 2;
    double frankAlone = settings.seconds() * 4 / 3;
    long frankUnits = Math.round(settings.speed() * settings.workers() * frankAlone);
    long graceUnits = Math.round(settings.speed() * half * frankAlone / 2);
    note("forecast: frank's job of %d units, grace's of %d a quarter into it ...", frankUnits, graceUnits);
    Sampler s = new Sampler();
    String frank;
    String grace;
    try (MasterClient f = as(Role.CLIENT, "frank"); MasterClient g = as(Role.CLIENT, "grace")) {
      frank = f.submit(primes("frank", frankUnits, 0));
      s.until(frankAlone / 4);
      grace = g.submit(primes("grace", graceUnits, 0));
      s.untilEnded(List.of(frank, grace));
    }
    JobStatus fs = s.last(frank);
    JobStatus gs = s.last(grace);
    long graceAt = gs.getSubmittedAtMillis();
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("frank", forecastAgainstEnd(s.firstForecast(frank, graceAt), fs));
    double graceRun = (gs.getFinishedAtMillis() - graceAt) / 1000.0;
    r.put("grace", forecastAgainstEnd(s.firstForecast(grace, graceAt + Math.round(graceRun * 1000 / 4)), gs));
    r.put("exact", exact(fs, frankUnits) && exact(gs, graceUnits));
    note("  frank's forecast after grace came: %s; grace's a quarter into hers: %s", r.get("frank"), r.get("grace"));
    return r;
  }

  /** A forecast's end against the job's real end: both from the job's submission, and their ratio. */
  private static Map<String, Object> forecastAgainstEnd(JobStatus at, JobStatus end) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (at == null || at.getForecast().getEndMillis() == 0) {
      m.put("forecast", "none");
      return m;
    }
    double from = end.getSubmittedAtMillis();
    double said = (at.getForecast().getEndMillis() - from) / 1000.0;
    double real = (end.getFinishedAtMillis() - from) / 1000.0;
    m.put("madeAtSeconds", (at.getForecast().getAtMillis() - from) / 1000.0);
    m.put("forecastSeconds", said);
    m.put("endSeconds", real);
    m.put("ratio", said / real);
    return m;
  }

  /** Whether the job ended DONE with the number of primes below {@code to}. */
  private static boolean exact(JobStatus j, long to) {
    return j.getState().equals("DONE") && j.getResult().strip().equals(Sieve.primesBelow(to) + " primes");
  }

  private void note(String format, Object... args) {
    progress.println(String.format(Locale.ROOT, format, args));
    progress.flush();
  }

  /** The master's status every {@link #SAMPLE_MILLIS} ms: which job each worker computes, each job's units. */
  private final class Sampler {
    private final long start = System.nanoTime();
    private final List<Double> times = new ArrayList<>();
    private final List<StatusReply> replies = new ArrayList<>();

    double now() {
      return (System.nanoTime() - start) / 1e9;
    }

    /** Samples until {@code seconds} after the start. */
    void until(double seconds) throws Exception {
      try (MasterClient c = as(Role.OPERATOR, "root")) {
        while (now() < seconds) {
          sample(c);
        }
      }
    }

    /** Samples until every job has ended (bounded by {@link #SCENE_LIMIT}). */
    void untilEnded(List<String> jobs) throws Exception {
      try (MasterClient c = as(Role.OPERATOR, "root")) {
        while (now() < SCENE_LIMIT.toSeconds()) {
          StatusReply r = sample(c);
          if (jobs.stream().allMatch(j -> r.getJobsList().stream().anyMatch(s -> s.getJobId().equals(j)
              && StatusView.ended(s.getState())))) {
            return;
          }
        }
      }
      throw new IllegalStateException("the jobs " + jobs + " did not end within " + SCENE_LIMIT.toMinutes()
          + " minutes");
    }

    private StatusReply sample(MasterClient c) throws Exception {
      long next = System.nanoTime() + SAMPLE_MILLIS * 1_000_000;
      StatusReply r = c.status("", true);
      times.add(now());
      replies.add(r);
      long wait = (next - System.nanoTime()) / 1_000_000;
      if (wait > 0) {
        Thread.sleep(wait);
      }
      return r;
    }

    /** When the job first held at least {@code n} workers at or after {@code from}; NaN if never. */
    double firstHolding(String job, int n, double from) {
      for (int i = 0; i < times.size(); i++) {
        if (times.get(i) >= from && holding(replies.get(i), job) >= n) {
          return times.get(i);
        }
      }
      return Double.NaN;
    }

    private static int holding(StatusReply r, String job) {
      int n = 0;
      for (WorkerStatus w : r.getWorkersList()) {
        if (w.getCurrentChunk().startsWith(job + "#")) {
          n++;
        }
      }
      return n;
    }

    /** The first sample that shows the job ended, in seconds from the start. */
    double endedAt(String job) {
      for (int i = 0; i < times.size(); i++) {
        for (JobStatus s : replies.get(i).getJobsList()) {
          if (s.getJobId().equals(job) && StatusView.ended(s.getState())) {
            return times.get(i);
          }
        }
      }
      return Double.NaN;
    }

    /** Each job's units done at the last sample at or before {@code at}. */
    double[] unitsAt(List<String> jobs, double at) {
      double[] u = new double[jobs.size()];
      for (int i = 0; i < times.size() && times.get(i) <= at; i++) {
        for (JobStatus s : replies.get(i).getJobsList()) {
          int k = jobs.indexOf(s.getJobId());
          if (k >= 0) {
            u[k] = s.getUnitsDone();
          }
        }
      }
      return u;
    }

    /** The job's status in the first sample whose forecast was made at or after {@code atMillis}; null if none. */
    JobStatus firstForecast(String job, long atMillis) {
      for (StatusReply r : replies) {
        for (JobStatus s : r.getJobsList()) {
          if (s.getJobId().equals(job) && s.hasForecast() && s.getForecast().getAtMillis() >= atMillis) {
            return s;
          }
        }
      }
      return null;
    }

    JobStatus last(String job) {
      return replies.get(replies.size() - 1).getJobsList().stream().filter(s -> s.getJobId().equals(job)).findFirst()
          .orElseThrow(() -> new IllegalStateException("job " + job + " is not in the master's status"));
    }

    double metric(String name) {
      return replies.get(replies.size() - 1).getMetricsOrDefault(name, Double.NaN);
    }
  }

  /** The figures as lines. */
  @SuppressWarnings("unchecked")
  public static void print(PrintWriter out, Map<String, Object> doc) {
    Map<String, Object> p = (Map<String, Object>) doc.get("preempt");
    Map<String, Object> w = (Map<String, Object>) doc.get("weights");
    Map<String, Object> q = (Map<String, Object>) doc.get("priority");
    Map<String, Object> st = (Map<String, Object>) doc.get("store");
    out.printf(Locale.ROOT, "%s workers at %.0f units/s each (primes)%n%n", doc.get("workers"), doc.get("speed"));
    out.printf(Locale.ROOT, "preempt:  bob's job held half the workers %.1f s after it came; ended in %.1f s"
        + " (%.2fx its %.1f s alone on half); alice's job %s in %.1f s, %s; %d chunk(s) cut or moved, %.0f duplicate"
        + " and %.0f discarded piece(s)%n", p.get("bobHoldsHalfAfterSeconds"), p.get("bobSeconds"),
        (double) p.get("bobSeconds") / (double) p.get("bobAloneOnHalfSeconds"), p.get("bobAloneOnHalfSeconds"),
        p.get("aliceState"), p.get("aliceSeconds"), Boolean.TRUE.equals(p.get("aliceExact"))
            && Boolean.TRUE.equals(p.get("bobExact")) ? "both answers exact" : "AN ANSWER IS NOT EXACT",
        p.get("preempted"), p.get("piecesDuplicate"), p.get("piecesDiscarded"));
    out.printf(Locale.ROOT, "store:    %s%n", st.get("summary"));
    out.printf(Locale.ROOT, "weights:  at %.1f s carol (3) had %.0f units, dave (1) %.0f: %.2f to 1; carol held"
        + " every worker %.1f s after dave's job ended; %s%n", w.get("atSeconds"), w.get("carolUnits"),
        w.get("daveUnits"), w.get("ratio"), w.get("carolHoldsAllAfterDaveSeconds"),
        Boolean.TRUE.equals(w.get("exact")) ? "both answers exact" : "AN ANSWER IS NOT EXACT");
    out.printf(Locale.ROOT, "priority: the priority-5 job held every worker %.1f s after it came, ended in %.1f s"
        + " (alone: %.1f s), %s the priority-0 job; %s%n", q.get("highHoldsAllAfterSeconds"), q.get("highSeconds"),
        q.get("highAloneSeconds"), Boolean.TRUE.equals(q.get("highEndedFirst")) ? "before" : "NOT before",
        Boolean.TRUE.equals(q.get("exact")) ? "both answers exact" : "AN ANSWER IS NOT EXACT");
    Map<String, Object> f = (Map<String, Object>) doc.get("forecast");
    out.printf(Locale.ROOT, "forecast: frank's job, its forecast after grace's came %s; grace's, a quarter into it"
        + " %s; %s%n", forecastLine((Map<String, Object>) f.get("frank")),
        forecastLine((Map<String, Object>) f.get("grace")),
        Boolean.TRUE.equals(f.get("exact")) ? "both answers exact" : "AN ANSWER IS NOT EXACT");
  }

  private static String forecastLine(Map<String, Object> m) {
    if (!m.containsKey("ratio")) {
      return "(none made)";
    }
    return String.format(Locale.ROOT, "(made %.1f s in) said %.1f s, it took %.1f s (%.3f)", m.get("madeAtSeconds"),
        m.get("forecastSeconds"), m.get("endSeconds"), m.get("ratio"));
  }
}
