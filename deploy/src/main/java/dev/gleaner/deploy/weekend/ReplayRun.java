package dev.gleaner.deploy.weekend;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.time.Ticker;
import dev.gleaner.common.trace.AvailabilityTrace;
import dev.gleaner.common.trace.OwnerSchedule;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.protocol.Forecast;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code gleaner replay --run}: a whole compressed weekend on this computer. A master JVM and one
 * worker JVM per trace node (speed capped at the platform's speed times K, owner file driven by the
 * trace) count primes on a range larger than the trace allows, with the deadline at the trace's end
 * (divided by K), after a short warm-up job that is not counted ({@link WarmUp}); then what was
 * saved is checked against the store (the committed pieces and the not-done ranges tile the range,
 * the count is the reference sieve's) and set beside the omniscient bound ({@link ReplayReport}).
 * Every process started ({@link ReplayProcesses}) is ended by its pid at the end, on failure and on
 * Ctrl-C.
 */
public final class ReplayRun {
  /** What the run is given; times in the trace's seconds unless said otherwise. */
  public record Settings(AvailabilityTrace trace, double horizon, double speedup, Platform platform, long work,
      double expectedUpTraceSeconds, double expectedDownTraceSeconds, String ownerPoll, String vacateGrace, boolean keep, String strategy,
      boolean crashes) {}

  /**
   * What a run found.
   *
   * @param quarter the first forecast the job's status showed that was made from a quarter of the
   *     run or later, or null for none
   */
  public record Outcome(String state, long saved, long bound, long boundNoEps, double epsReal, boolean exact,
      Forecast quarter) {}

  /** The first forecast made from a quarter of the run or later (see {@link #follow}). */
  private Forecast quarter;

  private final Settings s;
  private final PrintWriter out;
  private final Path dir;
  private final ReplayProcesses processes;

  public ReplayRun(Settings settings, PrintWriter out) throws IOException {
    this.s = settings;
    this.out = out;
    this.dir = Files.createTempDirectory("gleaner-replay-run-");
    this.processes = new ReplayProcesses(dir);
  }

  /** Runs the weekend; the processes are ended before it returns or throws. */
  public Outcome call() throws Exception {
    Thread hook = new Thread(processes::endAll, "gleaner-replay-cleanup");
    Runtime.getRuntime().addShutdownHook(hook);
    boolean ok = false;
    try {
      Outcome o = run();
      ok = o.exact();
      return o;
    } finally {
      processes.endAll();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // Ctrl-C: the hook is running or has run, and has ended the processes
      }
      if (ok && !s.keep()) {
        LocalRuns.deleteTree(dir, "replay");
      } else {
        out.printf("logs, store and owner files kept in %s%n", dir);
        out.flush();
      }
    }
  }

  private Outcome run() throws Exception {
    double k = s.speedup();
    Map<String, Worker> byId = s.platform().byId();
    for (String node : s.trace().nodes().keySet()) {
      if (!byId.containsKey(node)) {
        throw new IllegalArgumentException("--platform has no worker '" + node + "' (the trace's node ids are "
            + s.trace().nodes().keySet() + ")");
      }
    }
    byte[] secretBytes = new byte[32];
    new SecureRandom().nextBytes(secretBytes);
    Path secretFile = dir.resolve("secret");
    Files.writeString(secretFile, Base64.getEncoder().encodeToString(secretBytes));
    byte[] secret = Files.readString(secretFile).trim().getBytes(StandardCharsets.UTF_8);
    Path owners = Files.createDirectories(dir.resolve("owners"));
    OwnerFiles files = s.crashes() ? OwnerFiles.crashes(owners) : new OwnerFiles(owners);
    List<OwnerSchedule.Change> changes = OwnerSchedule.changes(s.trace(), s.horizon());
    // each owner file as the trace has it at time 0, before its worker looks: a worker whose owner is present
    // joins away, without an interruption (a crash file waits for the replay's start: a worker down from the start
    // must have joined first)
    Set<String> awayAtStart = new HashSet<>();
    for (OwnerSchedule.Change c : changes) {
      if (c.at() <= 0 && !s.crashes()) {
        files.set(c.node(), c.present());
        if (c.present()) {
          awayAtStart.add(c.node());
        }
      }
    }
    long expectedUpMillis = Math.max(1, Math.round(s.expectedUpTraceSeconds() / k * 1000));
    long expectedDownMillis = Math.max(1, Math.round(s.expectedDownTraceSeconds() / k * 1000));
    int port = processes.startMaster(secretFile, expectedUpMillis, expectedDownMillis);
    out.printf(Locale.ROOT, "master on 127.0.0.1:%d (prior: expected up %.2f trace hours = %d ms, down %.2f = %d ms);"
        + " starting %d workers; logs in %s%n", port, s.expectedUpTraceSeconds() / 3600, expectedUpMillis,
        s.expectedDownTraceSeconds() / 3600, expectedDownMillis, s.trace().nodes().size(), dir);
    out.flush();
    for (String node : s.trace().nodes().keySet()) {
      double speed = byId.get(node).speed() * k;
      String max = String.format(Locale.ROOT, "%.3f", speed);
      processes.workers().start(node, port, secretFile, 1, 1, "128m", s.crashes()
          ? List.of("--crash-file", files.path(node).toString(), "--max-speed", max)
          : List.of("--owner-file", files.path(node).toString(), "--idle-before-start", "0", "--owner-poll",
              s.ownerPoll(), "--vacate-grace", s.vacateGrace(), "--max-speed", max));
    }
    HostPort at = new HostPort("127.0.0.1", port);
    try (MasterClient client = MasterClient.connect(at, secret)) {
      // a worker whose owner is present at the start joins AWAY and takes no work until its owner leaves:
      // the wait is for the others, which the warm-up job runs on
      List<String> upAtStart = s.trace().nodes().keySet().stream().filter(n -> !awayAtStart.contains(n)).toList();
      WorkersJoined.awaitWorkers(() -> client.status(null, true), upAtStart, Duration.ofMinutes(2),
          processes.launched());
      WarmUp.run(client, s, awayAtStart, processes, out);
      ReplayReport report = new ReplayReport(s, dir.resolve("data"), processes.workers(), out);
      report.markEvents();
      long realMillis = Math.round(s.horizon() / k * 1000);
      long startMillis = System.currentTimeMillis();
      JobSpec spec = JobSpec.newBuilder().setName("replay-primes").setWorkload("primes")
          .putParams("from", "0").putParams("to", Long.toString(s.work())).setStrategy(s.strategy())
          .setDeadlineMillis(startMillis + realMillis).build();
      String jobId = client.submit(spec);
      out.printf(Locale.ROOT, "job %s (strategy %s, the trace's outages played as %s): the primes below %d, deadline in"
          + " %.1f s (%.2f trace hours at %sx)%n", jobId, s.strategy(), s.crashes() ? "crashes" : "owners' visits",
          s.work(), realMillis / 1000.0, s.horizon() / 3600, TraceFile.number(k));
      out.flush();
      OwnerReplay replay = new OwnerReplay(changes, k, c -> files.set(c.node(), c.present()), Ticker.SYSTEM);
      replay.start();
      JobStatus job = follow(client, jobId, replay, startMillis + realMillis, startMillis + realMillis / 4);
      StatusReply last = client.status(jobId);
      return report.of(job, last.getEps().getValue(), last.getWorkersList(), quarter);
    }
  }

  /**
   * Plays the owner changes and polls the job until it ends (its deadline, plus a minute at most);
   * keeps the first forecast its status shows that starts from {@code quarterMillis} or later (the
   * master makes one every 5 s at least, longer while each takes over half a second).
   */
  private JobStatus follow(MasterClient client, String jobId, OwnerReplay replay, long deadlineMillis,
      long quarterMillis) throws IOException {
    long nextPoll = 0;
    while (true) {
      replay.applyDue();
      long now = System.nanoTime();
      if (now >= nextPoll) {
        processes.requireAlive();
        JobStatus j = client.status(jobId).getJobs(0);
        if (StatusView.ended(j.getState())) {
          return j;
        }
        if (quarter == null && j.hasForecast() && j.getForecast().getAtMillis() >= quarterMillis) {
          quarter = j.getForecast();
        }
        if (System.currentTimeMillis() > deadlineMillis + 60_000) {
          throw new IllegalStateException("job " + jobId + " is still " + j.getState()
              + " a minute after its deadline");
        }
        nextPoll = now + TimeUnit.MILLISECONDS.toNanos(250);
      }
      long wait = replay.done() ? nextPoll - now : Math.min(replay.nanosToNext(), nextPoll - now);
      if (wait > 0) {
        LockSupport.parkNanos(wait);
        if (Thread.interrupted()) {
          throw new IllegalStateException("the replay was interrupted");
        }
      }
    }
  }
}
