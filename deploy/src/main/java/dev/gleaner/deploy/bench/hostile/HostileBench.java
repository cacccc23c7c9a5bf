package dev.gleaner.deploy.bench.hostile;

import dev.gleaner.deploy.audit.KnownPrimeCounts;
import dev.gleaner.deploy.chaos.HostilePeer.Attack;
import dev.gleaner.deploy.chaos.HostilePeer.Outcome;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code gleaner bench --hostile}: a master JVM ({@code -Xmx256m}, its own data directory) and two
 * worker JVMs on 127.0.0.1 count primes below 10^10 (answer known: {@link KnownPrimeCounts}), job
 * after job ({@link JobLoop}), while this process opens hostile connections of every {@link Attack}
 * to the master, at most {@code concurrency} sockets at once ({@link HostileTraffic}), and a real
 * client logs in afresh every second to ask for the status ({@link StatusProbe}). It records what the
 * master answered each hostile peer, the client's latency, the jobs' answers, and the master's
 * resident set, heap and descriptors before, at the peak, and after ({@link ProcessMemory}); the
 * figures are put together by {@link HostileReport}. Every process started here is ended by its pid.
 */
public final class HostileBench {
  private static final long WARM_UP_TO = 100_000_000L;

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
  private final int churnSeconds;
  private final HostileTraffic traffic;
  private final PrintWriter progress;

  private HostileBench(Path dir, int concurrency, long seed, int churnSeconds, PrintWriter progress) {
    if (concurrency < 1 || concurrency > 200) {
      throw new IllegalArgumentException("--concurrency must be 1..200 (the master admits 256 connections to the"
          + " handshake in all, and the real client needs room), got " + concurrency);
    }
    this.dir = dir;
    this.concurrency = concurrency;
    this.churnSeconds = churnSeconds;
    this.traffic = new HostileTraffic(concurrency, seed, churnSeconds, progress);
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
      runs.add(bench.once(HostileMode.SECRET, s.connections()));
      if (s.tlsConnections() > 0) {
        runs.add(bench.once(HostileMode.TLS, s.tlsConnections()));
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
  private Map<String, Object> once(HostileMode mode, int connections) throws Exception {
    Path run = Files.createDirectories(dir.resolve(mode.name().toLowerCase(Locale.ROOT)));
    HostileCluster c = mode.tls ? HostileCluster.withTls(run) : HostileCluster.withSecret(run);
    try (WorkerProcesses workers = new WorkerProcesses(run)) {
      c.startMaster(run);
      ProcessMemory memory = new ProcessMemory(c.master().pid());
      try {
        for (String id : List.of("w1", "w2")) {
          workers.start(id, c.port(), run.resolve("secret"), 1, 1, "128m", c.workerArgs(id));
        }
        WorkersJoined.awaitWorkers(c::status, 2, Duration.ofSeconds(60),
            workers.withMaster(c.master(), run.resolve("master.log")));
        note(progress, "%s: warm-up job (primes below %,d) ...", mode, WARM_UP_TO);
        JobLoop.JobResult warm = JobLoop.run(c, WARM_UP_TO, TimeUnit.MINUTES.toNanos(5));
        if (!warm.exact()) {
          throw new IllegalStateException("the warm-up job ended " + warm.state() + " with '" + warm.result() + "'");
        }
        long rssBefore = memory.rssKiB();
        memory.collect();
        long heapBefore = memory.heapUsedKiB();
        long fdsBefore = memory.fds();
        double errorsBefore = c.protocolErrors();
        memory.start();

        StatusProbe probe = new StatusProbe(c);
        Thread probeThread = new Thread(probe, "status-probe");
        JobLoop jobs = new JobLoop(c, progress);
        Thread jobThread = new Thread(jobs, "job-loop");
        probeThread.start();
        jobThread.start();
        note(progress, "%s: %,d hostile connections, at most %d sockets at once ...", mode, connections, concurrency);
        long t0 = System.nanoTime();
        List<Outcome> outcomes = traffic.attack(mode, connections, c.target());
        double attackSeconds = (System.nanoTime() - t0) / 1e9;
        jobs.attackOver();
        note(progress, "%s: attack over in %.0f s; waiting for the job under way ...", mode, attackSeconds);
        jobThread.join(TimeUnit.MINUTES.toMillis(20));
        probe.stop();
        probeThread.join(TimeUnit.MINUTES.toMillis(1));
        memory.close();
        // the master closes what is left of the handshakes within its 30 s limit; give it that, then measure
        HostileCluster.pause(5000);
        boolean alive = c.master().isAlive();
        Map<String, Object> mem = memory(memory, rssBefore, heapBefore, fdsBefore);
        double errorsAfter = alive ? c.protocolErrors() : Double.NaN;
        Map<String, Object> doc = HostileReport.of(mode, concurrency, outcomes, attackSeconds, probe, jobs.results,
            mem, alive, errorsAfter - errorsBefore, run);
        if (alive && !mode.tls) {
          doc.put("saturation", HostileTraffic.saturate(c));
          if (churnSeconds > 0) {
            doc.put("churn", traffic.churn(c, memory));
          }
        }
        doc.put("masterAliveAtEnd", c.master().isAlive());
        return doc;
      } finally {
        memory.close();
        c.endMaster();
      }
    }
  }

  /** The master's memory before the attack, at its peak and now (heap: live, after a full GC), MiB. */
  private static Map<String, Object> memory(ProcessMemory memory, long rssBefore, long heapBefore, long fdsBefore) {
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
    return mem;
  }

  /** KiB as MiB to one decimal; NaN for a figure not read (negative). */
  static double mib(long kib) {
    return kib < 0 ? Double.NaN : Math.round(kib / 1024.0 * 10) / 10.0;
  }

  /** A progress line, whole even when several threads write. */
  static void note(PrintWriter progress, String format, Object... args) {
    synchronized (progress) {
      progress.printf(Locale.ROOT, format + "%n", args);
      progress.flush();
    }
  }
}
