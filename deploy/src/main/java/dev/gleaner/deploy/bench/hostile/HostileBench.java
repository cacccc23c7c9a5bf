package dev.gleaner.deploy.bench.hostile;

import dev.gleaner.deploy.audit.KnownPrimeCounts;
import dev.gleaner.deploy.chaos.HostilePeer;
import dev.gleaner.deploy.chaos.HostilePeer.Attack;
import dev.gleaner.deploy.chaos.HostilePeer.Outcome;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.EntryPoint;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.deploy.launch.Signals;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.TokenFile;
import dev.gleaner.protocol.tls.ClientTls;
import dev.gleaner.protocol.tls.ClusterFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code gleaner bench --hostile}: a master JVM ({@code -Xmx256m}, its own data directory) and two
 * worker JVMs on 127.0.0.1 count primes below 10^10 (answer known: {@link KnownPrimeCounts}), job
 * after job, while this process opens hostile connections of every {@link Attack} to the master,
 * at most {@code concurrency} sockets at once, and a real client logs in afresh every second to ask
 * for the status. It records what the master answered each hostile peer, the client's latency, the
 * jobs' answers, and the master's resident set, heap and descriptors before, at the peak, and after.
 *
 * <p>How: each hostile thread connects from its own loopback address (127.77.x.y; Linux routes all
 * of 127/8 to lo), so the master's per-address limit (16) is met only by the {@link Attack#PER_ADDRESS}
 * bursts, which each use an address of their own (127.78.x.y), and the real client and workers keep
 * 127.0.0.1. A fair semaphore of {@code concurrency} permits bounds the open hostile sockets (a burst
 * takes {@link HostilePeer#BURST}), below the master's 256 connections in the handshake, so the
 * real client is never refused for want of room. Every process started here is ended by its pid.
 */
public final class HostileBench {
  private static final Pattern LISTENING = Pattern.compile("gleaner master listening on port (\\d+)");
  /** The job run again and again during the attack: primes below 10^10. */
  static final long JOB_TO = 10_000_000_000L;
  private static final long WARM_UP_TO = 100_000_000L;

  /** One run: clear text with the shared secret, or TLS with tokens (credentials from {@code gleaner init}). */
  enum Mode {
    SECRET(false), TLS(true);

    final boolean tls;

    Mode(boolean tls) {
      this.tls = tls;
    }

    /** The share of the connections each attack gets in this mode. */
    Map<Attack, Double> mix() {
      Map<Attack, Double> m = new EnumMap<>(Attack.class);
      if (!tls) {
        m.put(Attack.IDLE, 0.02);
        m.put(Attack.HELLO_SILENCE, 0.01);
        m.put(Attack.HUGE_LENGTH, 0.14);
        m.put(Attack.GARBAGE, 0.15);
        m.put(Attack.FUZZED_HELLO, 0.30);
        m.put(Attack.WRONG_SECRET, 0.14);
        m.put(Attack.OVERSIZED_HELLO, 0.12);
        m.put(Attack.DUPLICATE_ID, 0.02);
        m.put(Attack.PER_ADDRESS, 0.10);
      } else {
        m.put(Attack.PLAIN_TO_TLS, 0.15);
        m.put(Attack.IDLE, 0.025);
        m.put(Attack.HUGE_LENGTH, 0.10);
        m.put(Attack.FUZZED_HELLO, 0.15);
        m.put(Attack.WORKER_TOKEN_AS_CLIENT, 0.15);
        m.put(Attack.CLIENT_TOKEN_AS_WORKER, 0.15);
        m.put(Attack.TAKEOVER, 0.15);
        m.put(Attack.SECRET_TO_TOKEN_MASTER, 0.075);
        m.put(Attack.OVERSIZED_HELLO, 0.05);
      }
      return m;
    }
  }

  /**
   * What {@code gleaner bench --hostile} is given.
   *
   * @param connections hostile connections against the shared-secret master
   * @param tlsConnections against the TLS master; 0 skips that run
   * @param concurrency hostile sockets open at once, at most
   * @param seed the seed of the attacks' order and bytes
   * @param churnSeconds how long the connect-and-close flood lasts after the clear-text run; 0 skips it
   */
  public record Settings(int connections, int tlsConnections, int concurrency, long seed, int churnSeconds) {}

  private final Path dir;
  private final int concurrency;
  private final long seed;
  private final int churnSeconds;
  private final PrintWriter progress;

  private HostileBench(Path dir, int concurrency, long seed, int churnSeconds, PrintWriter progress) {
    if (concurrency < 1 || concurrency > 200) {
      throw new IllegalArgumentException("--concurrency must be 1..200 (the master admits 256 connections to the"
          + " handshake in all, and the real client needs room), got " + concurrency);
    }
    this.dir = dir;
    this.concurrency = concurrency;
    this.seed = seed;
    this.churnSeconds = churnSeconds;
    this.progress = progress;
  }

  /**
   * The clear-text run, then the TLS run unless it has no connections, in a temporary folder deleted
   * after: the machine's cores, each run's figures, and whether every run was ok.
   */
  public static Map<String, Object> run(Settings s, PrintWriter progress) throws Exception {
    if (s.connections() < 1 || s.connections() > 1_000_000 || s.tlsConnections() < 0
        || s.tlsConnections() > 1_000_000) {
      throw new IllegalArgumentException("--connections must be 1..1000000 and --tls-connections 0..1000000");
    }
    Path dir = Files.createTempDirectory("gleaner-bench-hostile-");
    List<Map<String, Object>> runs = new ArrayList<>();
    try {
      HostileBench bench = new HostileBench(dir, s.concurrency(), s.seed(), s.churnSeconds(), progress);
      runs.add(bench.once(Mode.SECRET, s.connections()));
      if (s.tlsConnections() > 0) {
        runs.add(bench.once(Mode.TLS, s.tlsConnections()));
      }
    } finally {
      LocalRuns.deleteTree(dir, "bench");
    }
    boolean ok = runs.stream().allMatch(r -> Boolean.TRUE.equals(r.get("ok")));
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("cores", Runtime.getRuntime().availableProcessors());
    doc.put("runs", runs);
    doc.put("ok", ok);
    return doc;
  }

  /** One run of {@code connections} hostile connections against a fresh cluster in {@code mode}; its figures. */
  private Map<String, Object> once(Mode mode, int connections) throws Exception {
    Path run = Files.createDirectories(dir.resolve(mode.name().toLowerCase(java.util.Locale.ROOT)));
    Cluster c = mode.tls ? tlsCluster(run) : secretCluster(run);
    try (WorkerProcesses workers = new WorkerProcesses(run)) {
      startMaster(run, c);
      ProcessMemory memory = new ProcessMemory(c.master.pid());
      try {
        for (String id : List.of("w1", "w2")) {
          workers.start(id, c.port, run.resolve("secret"), 1, 1, "128m", c.workerArgs(id));
        }
        WorkersJoined.awaitWorkers(() -> {
          try (MasterClient client = c.client()) {
            return client.status(null);
          }
        }, 2, Duration.ofSeconds(60), workers.withMaster(c.master, run.resolve("master.log")));
        note("%s: warm-up job (primes below %,d) ...", mode, WARM_UP_TO);
        JobResult warm = runJob(c, WARM_UP_TO, TimeUnit.MINUTES.toNanos(5));
        if (!warm.exact) {
          throw new IllegalStateException("the warm-up job ended " + warm.state + " with '" + warm.result + "'");
        }
        long rssBefore = memory.rssKiB();
        memory.collect();
        long heapBefore = memory.heapUsedKiB();
        long fdsBefore = memory.fds();
        double errorsBefore = protocolErrors(c);
        memory.start();

        AtomicBoolean attacking = new AtomicBoolean(true);
        StatusProbe probe = new StatusProbe(c);
        Thread probeThread = new Thread(probe, "status-probe");
        List<JobResult> jobs = Collections.synchronizedList(new ArrayList<>());
        Thread jobThread = new Thread(() -> jobs(c, attacking, jobs), "job-loop");
        probeThread.start();
        jobThread.start();
        note("%s: %,d hostile connections, at most %d sockets at once ...", mode, connections, concurrency);
        long t0 = System.nanoTime();
        List<Outcome> outcomes = attack(mode, connections, c.target());
        double attackSeconds = (System.nanoTime() - t0) / 1e9;
        attacking.set(false);
        note("%s: attack over in %.0f s; waiting for the job under way ...", mode, attackSeconds);
        jobThread.join(TimeUnit.MINUTES.toMillis(20));
        probe.stop();
        probeThread.join(TimeUnit.MINUTES.toMillis(1));
        memory.close();
        // the master closes what is left of the handshakes within its 30 s limit; give it that, then measure
        pause(5000);
        boolean alive = c.master.isAlive();
        long rssAfter = memory.rssKiB();
        memory.collect();
        Map<String, Object> mem = new LinkedHashMap<>();
        mem.put("rssBeforeMiB", mib(rssBefore));
        mem.put("rssPeakMiB", mib(Math.max(rssBefore, memory.peakRssKiB())));
        mem.put("rssAfterMiB", mib(rssAfter));
        mem.put("heapBeforeMiB", mib(heapBefore));
        mem.put("heapPeakMiB", mib(memory.peakHeapKiB()));
        mem.put("heapAfterMiB", mib(memory.heapUsedKiB()));
        mem.put("fdsBefore", fdsBefore);
        mem.put("fdsPeak", memory.peakFds());
        mem.put("fdsAfter", memory.fds());
        double errorsAfter = alive ? protocolErrors(c) : Double.NaN;
        Map<String, Object> doc = report(mode, c, outcomes, attackSeconds, probe, jobs, mem, alive,
            errorsAfter - errorsBefore, run);
        if (alive && !mode.tls) {
          doc.put("saturation", saturate(c));
          if (churnSeconds > 0) {
            doc.put("churn", churn(c, memory));
          }
        }
        doc.put("masterAliveAtEnd", c.master.isAlive());
        return doc;
      } finally {
        memory.close();
        Signals.end(c.master);
      }
    }
  }

  /** The hostile connections, shuffled, at most {@code concurrency} sockets open at once. */
  private List<Outcome> attack(Mode mode, int connections, HostilePeer.Target target) throws InterruptedException {
    List<Attack> tasks = new ArrayList<>();
    for (Map.Entry<Attack, Double> e : mode.mix().entrySet()) {
      int n = (int) Math.round(connections * e.getValue());
      int size = e.getKey() == Attack.PER_ADDRESS ? HostilePeer.BURST : 1;
      for (int i = 0; i < n / size; i++) {
        tasks.add(e.getKey());
      }
    }
    Collections.shuffle(tasks, new Random(seed));
    ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
    Semaphore open = new Semaphore(concurrency, true);
    AtomicInteger threads = new AtomicInteger();
    ThreadLocal<InetAddress> from = ThreadLocal.withInitial(() -> address(77, threads.getAndIncrement()));
    ExecutorService pool = Executors.newFixedThreadPool(concurrency, r -> {
      Thread t = new Thread(r, "hostile");
      t.setDaemon(true);
      return t;
    });
    AtomicInteger bursts = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    SplittableRandom root = new SplittableRandom(seed);
    for (Attack a : tasks) {
      SplittableRandom r = root.split();
      pool.execute(() -> {
        int permits = a == Attack.PER_ADDRESS ? Math.min(HostilePeer.BURST, concurrency) : 1;
        try {
          open.acquire(permits);
        } catch (InterruptedException e) {
          return;
        }
        try {
          InetAddress src = a == Attack.PER_ADDRESS ? address(78, bursts.getAndIncrement()) : from.get();
          outcomes.addAll(HostilePeer.run(a, target, src, r));
        } finally {
          open.release(permits);
          int d = done.incrementAndGet();
          if (d % 1000 == 0) {
            note("  %,d of %,d attacks done", d, tasks.size());
          }
        }
      });
    }
    pool.shutdown();
    if (!pool.awaitTermination(30, TimeUnit.MINUTES)) {
      pool.shutdownNow();
      throw new IllegalStateException("the hostile connections did not end within 30 minutes");
    }
    return new ArrayList<>(outcomes);
  }

  /**
   * Beyond the bound the attack keeps to: {@link #SATURATION_ADDRESSES} addresses times 15 idle
   * connections (under the per-address limit, over the 256 in all), and meanwhile one fresh login of
   * the real client. Measures what the master's total limit costs a real peer that is not yet logged in.
   */
  private static Map<String, Object> saturate(Cluster c) {
    List<InetAddress> froms = new ArrayList<>();
    for (int a = 0; a < SATURATION_ADDRESSES; a++) {
      for (int k = 0; k < 15; k++) {
        froms.add(address(79, a));
      }
    }
    String[] probe = new String[1];
    List<String> labels = HostilePeer.hold(c.target(), froms, () -> {
      try (MasterClient client = c.client()) {
        client.status(null);
        probe[0] = "served";
      } catch (IOException | RuntimeException e) {
        probe[0] = "refused: " + e.getMessage();
      }
    });
    Map<String, Integer> outcomes = new TreeMap<>();
    labels.forEach(l -> outcomes.merge(l, 1, Integer::sum));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("idleConnections", froms.size());
    m.put("addresses", SATURATION_ADDRESSES);
    m.put("outcomes", outcomes);
    m.put("freshClientLogin", probe[0]);
    return m;
  }

  private static final int SATURATION_ADDRESSES = 20;

  /**
   * The cheapest hostile peer, as fast as {@link #CHURN_THREADS} threads can: connect and close at
   * once, for {@code churnSeconds}. Each such connection leaves the handshake (and the master's
   * limits) as it closes; the figures say what it costs the master's heap (live, after a full GC)
   * right after the flood and once the 30 s handshake limit has passed, and whether a fresh client
   * login is served after it.
   */
  private Map<String, Object> churn(Cluster c, ProcessMemory memory) throws InterruptedException {
    note("churn: connect and close at once, %d threads, %d s ...", CHURN_THREADS, churnSeconds);
    memory.collect();
    long before = memory.heapUsedKiB();
    AtomicInteger made = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(churnSeconds);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < CHURN_THREADS; t++) {
      int block = 80 + t;
      Thread th = new Thread(() -> {
        for (int i = 0; System.nanoTime() < until; i++) {
          try (java.net.Socket s = new java.net.Socket()) {
            s.bind(new java.net.InetSocketAddress(address(block, i % 50_000), 0));
            s.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), c.port), 5000);
            made.incrementAndGet();
          } catch (IOException e) {
            failed.incrementAndGet();
          }
        }
      }, "churn-" + t);
      th.start();
      threads.add(th);
    }
    for (Thread th : threads) {
      th.join(TimeUnit.SECONDS.toMillis(churnSeconds + 60));
    }
    memory.collect();
    long right = memory.heapUsedKiB();
    long rss = memory.rssKiB();
    String login = freshLogin(c);
    pause((HostilePeer.READ_SECONDS - 5) * 1000L);
    memory.collect();
    long later = memory.heapUsedKiB();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("seconds", churnSeconds);
    m.put("threads", CHURN_THREADS);
    m.put("connections", made.get());
    m.put("connectFailures", failed.get());
    m.put("heapBeforeMiB", mib(before));
    m.put("heapRightAfterMiB", mib(right));
    m.put("heap35sLaterMiB", mib(later));
    m.put("rssRightAfterMiB", mib(rss));
    m.put("freshClientLoginAfter", login);
    m.put("masterAlive", c.master.isAlive());
    return m;
  }

  private static final int CHURN_THREADS = 4;

  private static String freshLogin(Cluster c) {
    try (MasterClient client = c.client()) {
      client.status(null);
      return "served";
    } catch (IOException | RuntimeException e) {
      return "failed: " + e.getMessage();
    }
  }

  /** 127.B.x.y, the i-th address of block B (y from 1 to 250). */
  private static InetAddress address(int block, int i) {
    try {
      return InetAddress.getByAddress(new byte[] {127, (byte) block, (byte) (i / 250), (byte) (i % 250 + 1)});
    } catch (java.net.UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Jobs one after another until the attack is over (at least one); each answer checked. */
  private void jobs(Cluster c, AtomicBoolean attacking, List<JobResult> out) {
    do {
      try {
        JobResult r = runJob(c, JOB_TO, TimeUnit.MINUTES.toNanos(15));
        out.add(r);
        note("  job %d: %s in %.0f s, %s", out.size(), r.state, r.seconds, r.exact ? "exact" : "WRONG: " + r.result);
      } catch (IOException | RuntimeException e) {
        out.add(new JobResult("FAILED: " + e.getMessage(), "", false, 0));
        note("  job failed: %s", e.getMessage());
        return;
      }
    } while (attacking.get());
  }

  record JobResult(String state, String result, boolean exact, double seconds) {}

  private static JobResult runJob(Cluster c, long to, long maxNanos) throws IOException {
    JobSpec spec = JobSpec.newBuilder().setWorkload("primes").putParams("from", "0").putParams("to", Long.toString(to))
        .setMinWorkers(2).build();
    long t0 = System.nanoTime();
    try (MasterClient client = c.client()) {
      String id = client.submit(spec);
      while (System.nanoTime() - t0 < maxNanos) {
        JobStatus s = client.status(id).getJobs(0);
        if (StatusView.ended(s.getState())) {
          boolean exact = s.getState().equals("DONE") && s.getResult().equals(KnownPrimeCounts.pi(to) + " primes");
          return new JobResult(s.getState(), s.getResult(), exact, (System.nanoTime() - t0) / 1e9);
        }
        pause(500);
      }
      return new JobResult("NOT ENDED within " + maxNanos / 1_000_000_000 + " s", "", false, (System.nanoTime() - t0) / 1e9);
    }
  }

  /** A real client: every second, a fresh connection and login, and {@code status}; each latency or failure. */
  static final class StatusProbe implements Runnable {
    private final Cluster cluster;
    private volatile boolean running = true;
    final List<Double> millis = Collections.synchronizedList(new ArrayList<>());
    final List<String> failures = Collections.synchronizedList(new ArrayList<>());

    StatusProbe(Cluster cluster) {
      this.cluster = cluster;
    }

    @Override
    public void run() {
      while (running) {
        long t0 = System.nanoTime();
        try (MasterClient c = cluster.client()) {
          c.status(null);
          millis.add((System.nanoTime() - t0) / 1e6);
        } catch (IOException | RuntimeException e) {
          failures.add(String.valueOf(e.getMessage()));
        }
        long left = TimeUnit.SECONDS.toNanos(1) - (System.nanoTime() - t0);
        if (left > 0 && running) {
          try {
            TimeUnit.NANOSECONDS.sleep(left);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }

    void stop() {
      running = false;
    }
  }

  /** What the bench knows of one cluster: how to start and reach its master and workers. */
  static final class Cluster {
    List<String> masterArgs;
    Path ca;
    Path tokens;
    byte[] secret;
    PeerCredential client;
    Process master;
    int port;

    List<String> workerArgs(String id) {
      return ca == null ? List.of() : List.of("--ca", ca.toString(), "--token",
          tokens.resolve("worker-" + id + ".token").toString());
    }

    MasterClient client() throws IOException {
      return MasterClient.connect(new HostPort("127.0.0.1", port), client, ca == null ? null : ClientTls.trusting(ca));
    }

    HostilePeer.Target target() {
      if (ca == null) {
        return new HostilePeer.Target(port, null, secret, null, null);
      }
      return new HostilePeer.Target(port, ClientTls.trusting(ca), null,
          TokenFile.read(tokens.resolve("worker-w1.token")).key(), TokenFile.read(tokens.resolve("client-admin.token")).key());
    }
  }

  private static Cluster secretCluster(Path run) throws IOException {
    Cluster c = new Cluster();
    c.secret = ("hostile-bench-" + System.nanoTime() + "-0123456789").getBytes(StandardCharsets.UTF_8);
    Files.write(run.resolve("secret"), c.secret);
    c.client = PeerCredential.sharedSecret(c.secret);
    c.masterArgs = List.of("--secret-file", run.resolve("secret").toString());
    return c;
  }

  /** Credentials made as the README says ({@code gleaner init}), a TLS master taking tokens only. */
  private static Cluster tlsCluster(Path run) throws IOException {
    Path pki = run.resolve("pki");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = EntryPoint.run(new PrintWriter(out), new PrintWriter(err), "init", pki.toString(), "--workers", "w1,w2",
        "--clients", "admin", "--host", "127.0.0.1,localhost");
    if (code != 0) {
      throw new IllegalStateException("gleaner init failed: " + err);
    }
    Cluster c = new Cluster();
    c.ca = pki.resolve(ClusterFiles.CA_CERT);
    c.tokens = pki.resolve("tokens");
    c.client = TokenFile.read(c.tokens.resolve("client-admin.token"));
    c.masterArgs = List.of("--tls", pki.toString());
    // the workers log in with tokens; a secret file nobody reads keeps WorkerProcesses' command line whole
    Files.writeString(run.resolve("secret"), "unused\n");
    return c;
  }

  /** Starts {@code gleaner master} in a JVM of 256 MiB heap on 127.0.0.1 and waits (60 s at most) until it listens. */
  private static void startMaster(Path run, Cluster c) throws IOException {
    Path log = run.resolve("master.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        EntryPoint.NAME, "master", "--port", "0", "--bind", "127.0.0.1", "--data", run.resolve("data").toString()));
    cmd.addAll(c.masterArgs);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    c.master = p;
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < until) {
      Matcher m = LISTENING.matcher(Files.readString(log));
      if (m.find()) {
        c.port = Integer.parseInt(m.group(1));
        return;
      }
      if (!p.isAlive()) {
        throw new IllegalStateException("the master exited with status " + p.exitValue() + ":\n" + WorkerProcesses.tail(log, 20));
      }
      pause(50);
    }
    Signals.end(p);
    throw new IllegalStateException("the master did not listen within 60 s:\n" + WorkerProcesses.tail(log, 20));
  }

  private static double protocolErrors(Cluster c) {
    try (MasterClient client = c.client()) {
      return client.status(null).getMetricsOrDefault("gleaner.protocol.errors", Double.NaN);
    } catch (IOException e) {
      return Double.NaN;
    }
  }

  private static double mib(long kib) {
    return kib < 0 ? Double.NaN : Math.round(kib / 1024.0 * 10) / 10.0;
  }

  private Map<String, Object> report(Mode mode, Cluster c, List<Outcome> outcomes, double seconds, StatusProbe probe,
      List<JobResult> jobs, Map<String, Object> memory, boolean alive, double masterRefusals, Path run) throws IOException {
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("mode", mode == Mode.TLS ? "TLS, tokens" : "clear text, shared secret");
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
        if (o.label().equals(o.label().toUpperCase(java.util.Locale.ROOT)) && !o.label().contains(" ")) {
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
      row.put("attack", a.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
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
    if (mode == Mode.SECRET) {
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
    for (JobResult j : jobs) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("state", j.state);
      m.put("result", j.result);
      m.put("exact", j.exact);
      m.put("seconds", Math.round(j.seconds * 10) / 10.0);
      js.add(m);
    }
    doc.put("jobs", js);
    doc.put("expected", KnownPrimeCounts.pi(JOB_TO) + " primes");
    doc.put("master", memory);
    doc.put("masterAlive", alive);
    long errorLines = Files.readAllLines(run.resolve("master.log")).stream().filter(l -> l.contains(" ERROR ")).count();
    doc.put("masterErrorLogLines", errorLines);
    boolean jobsExact = !jobs.isEmpty() && jobs.stream().allMatch(j -> j.exact);
    doc.put("ok", alive && jobsExact && probe.failures.isEmpty() && breaches == 0);
    return doc;
  }

  private void note(String format, Object... args) {
    synchronized (progress) {
      progress.printf(java.util.Locale.ROOT, format + "%n", args);
      progress.flush();
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
