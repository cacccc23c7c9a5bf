package dev.gleaner.deploy.bench.tree;

import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.PrimeSieve;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.EntryPoint;
import dev.gleaner.deploy.launch.MasterProcess;
import dev.gleaner.deploy.launch.Signals;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Predicate;

/**
 * A relay killed (SIGKILL) part way through a job, once per seed, on loopback: a master, a relay
 * and two workers behind it held to 2,000,000 units/s each, a {@code primes} job of 60,000,000
 * units in chunks of 5,000,000 with 5 checkpoints each; the relay killed when a seeded share
 * (30% to 70%) of the job is saved. Per seed: the answer against a sieve, how long until both
 * workers were on the master directly, the units the workers computed (their own counts: more than
 * the job's means work done twice), and the pieces the master counted duplicate or discarded.
 * Every process is ended by its pid.
 */
public final class RelayKillBench {
  static final long UNITS = 60_000_000;
  private static final Duration LIMIT = Duration.ofMinutes(3);

  private final int seeds;
  private final PrintStream progress;

  public RelayKillBench(int seeds, PrintStream progress) {
    if (seeds < 1 || seeds > 1000) {
      throw new IllegalArgumentException("--relay-kill must be 1 to 1000 seeds, got " + seeds);
    }
    this.seeds = seeds;
    this.progress = progress;
  }

  public Map<String, Object> run() throws Exception {
    Path dir = Files.createTempDirectory("gleaner-relay-kill");
    try {
      return run(dir);
    } finally {
      dev.gleaner.deploy.launch.LocalRuns.deleteTree(dir, "bench");
    }
  }

  private Map<String, Object> run(Path dir) throws Exception {
    byte[] secret = ("relay-kill-" + System.nanoTime() + "-0123456789").getBytes(StandardCharsets.UTF_8);
    Path secretFile = dir.resolve("secret");
    Files.write(secretFile, secret);
    long expected = new PrimeSieve().count(0, UNITS, ChunkComputation.Cancellation.NEVER);
    List<Map<String, Object>> runs = new ArrayList<>();
    List<Long> pids = new ArrayList<>();
    Map<String, Object> doc = new LinkedHashMap<>();
    doc.put("units", UNITS);
    try (MasterProcess master = MasterProcess.start(dir, List.of("-Xmx512m", "-XX:+UseSerialGC"),
        List.of("--data", dir.resolve("data").toString(), "--secret-file", secretFile.toString()),
        Duration.ofSeconds(60))) {
      pids.add(master.pid());
      HostPort at = new HostPort("127.0.0.1", master.port());
      for (int seed = 1; seed <= seeds; seed++) {
        double share = 0.3 + 0.4 * new SplittableRandom(seed).nextDouble();
        int relayPort = freePort();
        Process relay = new ProcessBuilder(java("relay", "--id", "r1", "--port", Integer.toString(relayPort), "--bind",
            "127.0.0.1", "--master", at.toString(), "--secret-file", secretFile.toString()))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("relay.log").toFile())).start();
        pids.add(relay.pid());
        try (WorkerProcesses workers = new WorkerProcesses(dir.resolve("w" + seed))) {
          Files.createDirectories(dir.resolve("w" + seed));
          await(at, secret, s -> s.getRelaysCount() == 1, "the relay logged in");
          for (String id : List.of("w1", "w2")) {
            pids.add(workers.start(id, List.of(), "127.0.0.1:" + relayPort + "," + at, secretFile, 1, 1, "128m",
                List.of("--max-speed", "2000000")).pid());
          }
          await(at, secret, s -> ready(s, "r1") == 2, "both workers joined through the relay");
          String job;
          try (MasterClient c = MasterClient.connect(at, secret)) {
            job = c.submit(JobSpec.newBuilder().setName("relay-kill-" + seed).setWorkload("primes")
                .putParams("from", "0").putParams("to", Long.toString(UNITS)).setChunkUnits(5_000_000).setCheckpoints(5)
                .setMinWorkers(2).build());
          }
          StatusReply before = status(at, secret, "");
          await(at, secret, s -> s.getJobsList().stream().anyMatch(j -> j.getJobId().equals(job)
              && j.getUnitsDone() >= share * UNITS), "the job reached the kill point");
          Signals.end(relay);
          long killed = System.nanoTime();
          await(at, secret, s -> ready(s, "") == 2, "both workers on the master directly");
          double back = (System.nanoTime() - killed) / 1e9;
          StatusReply end = await(at, secret, s -> s.getJobsList().stream().anyMatch(j -> j.getJobId().equals(job)
              && dev.gleaner.deploy.client.StatusView.ended(j.getState())), "the job ended");
          var j = end.getJobsList().stream().filter(x -> x.getJobId().equals(job)).findFirst().orElseThrow();
          StatusReply counted = await(at, secret, s -> computed(s) >= UNITS, "the workers' counts reached the job's");
          Map<String, Object> one = new LinkedHashMap<>();
          one.put("seed", seed);
          one.put("killedAt", share);
          one.put("exact", j.getState().equals("DONE") && j.getResult().equals(expected + " primes"));
          one.put("secondsToMaster", back);
          one.put("unitsComputed", computed(counted));
          one.put("duplicatePieces", delta(before, counted, "gleaner.pieces.duplicate"));
          one.put("discardedPieces", delta(before, counted, "gleaner.pieces.discarded"));
          // from the master's store: chunks whose unsaved units went to others, to be computed again
          ChunkLedger.Counts ledger = ChunkLedger.of(dir.resolve("data"), job);
          one.put("chunks", ledger.chunks());
          one.put("withdrawnChunks", ledger.withdrawn());
          one.put("withdrawnUnits", ledger.withdrawnUnits());
          runs.add(one);
          progress.printf(Locale.ROOT, "seed %d: killed at %.0f%%, on the master %.2f s later, %s, %d units computed%n",
              seed, share * 100, back, j.getResult(), computed(counted));
        } finally {
          Signals.end(relay);
        }
      }
      doc.put("masterStopped", master.stop(Duration.ofSeconds(10)) ? "on SIGTERM" : "SIGKILL");
    }
    doc.put("runs", runs);
    doc.put("pids", pids);
    doc.put("alive", pids.stream().filter(p -> ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false)).toList());
    return doc;
  }

  private static int ready(StatusReply s, String via) {
    return (int) s.getWorkersList().stream().filter(w -> w.getState().equals("READY") && w.getVia().equals(via))
        .count();
  }

  private static long computed(StatusReply s) {
    return s.getWorkersList().stream().filter(w -> w.getState().equals("READY"))
        .mapToLong(WorkerStatus::getUnitsComputed).sum();
  }

  private static double delta(StatusReply before, StatusReply after, String metric) {
    return after.getMetricsOrDefault(metric, 0) - before.getMetricsOrDefault(metric, 0);
  }

  private static StatusReply status(HostPort at, byte[] secret, String job) throws IOException {
    try (MasterClient c = MasterClient.connect(at, secret)) {
      return c.status(job);
    }
  }

  /** Polls the master's status every 50 ms until {@code done} holds, at most {@link #LIMIT}. */
  private static StatusReply await(HostPort at, byte[] secret, Predicate<StatusReply> done, String what)
      throws IOException, InterruptedException {
    long until = System.nanoTime() + LIMIT.toNanos();
    while (System.nanoTime() < until) {
      StatusReply s = status(at, secret, "");
      if (done.test(s)) {
        return s;
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("waited " + LIMIT.toMinutes() + " minutes in vain for: " + what);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static List<String> java(String... args) {
    return EntryPoint.inNewJvm("256m", args);
  }

  /** The seeds as a table. */
  @SuppressWarnings("unchecked")
  public static void print(PrintWriter out, Map<String, Object> doc) {
    out.printf(Locale.ROOT, "%4s %9s %18s %6s %16s %10s %10s %8s %10s%n", "seed", "killed at", "on the master (s)",
        "exact", "units computed", "duplicate", "discarded", "chunks", "withdrawn");
    for (Map<String, Object> r : (List<Map<String, Object>>) doc.get("runs")) {
      out.printf(Locale.ROOT, "%4d %8.0f%% %18.2f %6s %16d %10.0f %10.0f %8d %10d%n", r.get("seed"),
          ((Number) r.get("killedAt")).doubleValue() * 100, ((Number) r.get("secondsToMaster")).doubleValue(),
          r.get("exact"), ((Number) r.get("unitsComputed")).longValue(),
          ((Number) r.get("duplicatePieces")).doubleValue(), ((Number) r.get("discardedPieces")).doubleValue(),
          ((Number) r.get("chunks")).longValue(), ((Number) r.get("withdrawnChunks")).longValue());
    }
    out.println("(the job: " + doc.get("units") + " units; chunks and withdrawn ones from the master's store, a"
        + " withdrawn chunk's unsaved units computed again elsewhere; processes still alive after the run: "
        + doc.get("alive") + ")");
  }
}
