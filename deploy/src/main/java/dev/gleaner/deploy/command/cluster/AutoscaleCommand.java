package dev.gleaner.deploy.command.cluster;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.launch.Autoscaler;
import dev.gleaner.deploy.launch.Slurm;
import dev.gleaner.deploy.launch.SlurmScript;
import dev.gleaner.master.web.Durations;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.SecretFile;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerStatus;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * {@code gleaner cluster autoscale --slurm}: keeps enough Slurm worker jobs for the work the master has
 * queued (a decision of {@link Autoscaler} every --poll), submitting single-node jobs and cancelling
 * surplus ones. It only touches jobs it submitted itself (their name carries a tag of this run, and
 * it keeps their ids). On Ctrl-C or SIGTERM it cancels them (their workers drain first), unless
 * --keep-workers, which leaves them to run until their time limit.
 */
@Command(name = "autoscale", mixinStandardHelpOptions = true,
    description = {"Keep enough Slurm worker jobs for the master's queued work, within --min and --max.",
        "Every --poll it reads the master's status (units queued and held, workers and their speed), wants enough"
            + " workers to finish within --target-time, submits single-node worker jobs (sbatch) and cancels surplus"
            + " ones (scancel: pending first, then workers idle for --cooldown), its own jobs only.",
        "Ctrl-C or SIGTERM stops it and cancels its jobs (the workers drain), unless --keep-workers."})
final class AutoscaleCommand implements Callable<Integer> {
  /** Worker jobs ending in a row before their worker reached the master that stop autoscaling. */
  static final int EARLY_ENDS = 3;

  /** The log, in a holder: building the command (for {@code gleaner --help}) must not start the logging. */
  private static final class Log {
    static final Logger LOG = LoggerFactory.getLogger(AutoscaleCommand.class);
  }

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Option(names = "--slurm", required = true, description = "Start workers as Slurm jobs (the one batch system for now).")
  boolean slurmBackend;

  @Mixin
  SlurmOptions slurm;

  @Option(names = "--min", paramLabel = "N", defaultValue = "0", description = "Workers kept at least (default: ${DEFAULT-VALUE}).")
  int min;

  @Option(names = "--max", paramLabel = "N", required = true, description = "Workers at most.")
  int max;

  @Option(names = "--target-time", paramLabel = "TIME", defaultValue = "10m",
      description = "Enough workers to finish the queued work within this time at their measured speed"
          + " (default: ${DEFAULT-VALUE}).")
  String targetTime;

  @Option(names = "--poll", paramLabel = "TIME", defaultValue = "15s", description = "How often it looks (default: ${DEFAULT-VALUE}).")
  String poll;

  @Option(names = "--cooldown", paramLabel = "TIME", defaultValue = "2m",
      description = "No cancelling within this time of a submission, and only workers idle this long"
          + " (default: ${DEFAULT-VALUE}).")
  String cooldown;

  @Option(names = "--max-submit", paramLabel = "N", defaultValue = "10",
      description = "Jobs submitted at most per poll (default: ${DEFAULT-VALUE}).")
  int maxSubmit;

  @Option(names = "--for", paramLabel = "TIME", description = "Stop after this long (default: until Ctrl-C or SIGTERM).")
  String runFor;

  @Option(names = "--keep-workers", description = "On stopping, leave the worker jobs running until their time limit.")
  boolean keepWorkers;

  @Option(names = "--job-name", paramLabel = "NAME", defaultValue = "gleaner-autoscale",
      description = "The start of its jobs' names; a tag of this run follows (default: ${DEFAULT-VALUE}).")
  String jobName;

  private final CountDownLatch stop = new CountDownLatch(1);
  private final CountDownLatch stopped = new CountDownLatch(1);
  /** Whether the polling loop runs (guarded by {@code stop}): only then does a stop interrupt it. */
  private boolean inLoop = true;

  @Override
  public Integer call() throws Exception {
    if (slurm.tokenFile != null) {
      throw new IllegalArgumentException("autoscale starts many workers, and a token names one: give --secret-file"
          + " (the shared secret), not --token-file");
    }
    Duration pollEvery = positive("--poll", poll);
    double cool = Durations.parse("--cooldown", cooldown).toMillis() / 1000.0;
    double target = positive("--target-time", targetTime).toMillis() / 1000.0;
    long endNanos = runFor == null ? Long.MAX_VALUE : System.nanoTime() + positive("--for", runFor).toNanos();
    // checks min, max and max-submit before anything is submitted
    new Autoscaler.Inputs(min, max, 0, Double.NaN, target, List.of(), Double.POSITIVE_INFINITY, cool, maxSubmit);
    String name = jobName + "-" + String.format("%08x", new java.security.SecureRandom().nextInt());
    SlurmScript script = slurm.script(name, 1, "gleaner-autoscale:" + slurm.master.host() + ":" + slurm.master.port());
    PeerCredential credential = PeerCredential.sharedSecret(SecretFile.read(slurm.secretFile));
    var tls = slurm.caFile == null ? null : dev.gleaner.protocol.tls.ClientTls.trusting(slurm.caFile);
    PrintWriter out = spec.commandLine().getOut();
    say(out, "autoscaling Slurm workers for " + slurm.master + " between " + min + " and " + max + "; jobs named "
        + name + " (" + (keepWorkers ? "left running" : "cancelled") + " when this stops)");

    Thread looping = Thread.currentThread();
    Thread hook = new Thread(() -> {
      synchronized (stop) {
        stop.countDown();
        if (inLoop) {
          // a Slurm command waiting on a slow controller gives up at once
          looping.interrupt();
        }
      }
      try {
        if (!stopped.await(Slurm.COMMAND_SECONDS + 10, TimeUnit.SECONDS)) {
          Log.LOG.warn("autoscale did not finish stopping in time; its jobs are named {}", name);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "gleaner-autoscale-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    Set<String> mine = new LinkedHashSet<>();
    try {
      loop(out, name, script, credential, tls, mine, pollEvery, target, cool, endNanos);
    } finally {
      boolean interrupted;
      synchronized (stop) {
        inLoop = false;
        // an interrupt that came with a stop is spent (and no other comes now): scancel must run
        interrupted = Thread.interrupted();
      }
      try {
        finish(out, name, mine);
      } finally {
        stopped.countDown();
        if (interrupted && stop.getCount() > 0) {
          Thread.currentThread().interrupt();
        }
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // the JVM is already shutting down: the hook is what brought us here
          Log.LOG.debug("shutting down", e);
        }
      }
    }
    return 0;
  }

  private void loop(PrintWriter out, String name, SlurmScript script, PeerCredential credential,
      dev.gleaner.protocol.tls.ClientTls tls, Set<String> mine, Duration pollEvery, double target, double cool,
      long endNanos) {
    Map<String, Long> idleSince = new HashMap<>();
    long lastSubmit = Long.MIN_VALUE;
    int submitted = 0;
    String lastReason = "";
    // Slurm jobs whose worker reached the master; jobs ending in a row without one stop the loop
    Set<String> reached = new java.util.HashSet<>();
    int endedUnseen = 0;
    while (stop.getCount() > 0 && System.nanoTime() - endNanos < 0) {
      try {
        List<Slurm.Job> listed = Slurm.jobsNamed(name);
        Map<String, Slurm.Job> alive = new HashMap<>();
        for (Slurm.Job j : listed) {
          if (mine.contains(j.id()) && !j.state().equals("COMPLETING")) {
            alive.put(j.id(), j);
          }
        }
        Set<String> ended = new java.util.HashSet<>(mine);
        ended.removeAll(alive.keySet());
        mine.retainAll(alive.keySet());
        StatusReply status;
        try (MasterClient c = MasterClient.connect(slurm.master, credential, tls)) {
          status = c.status(null);
        }
        for (WorkerStatus w : status.getWorkersList()) {
          String job = Slurm.jobOfWorker(w.getWorkerId());
          if (job != null) {
            reached.add(job);
          }
        }
        for (String id : ended) {
          endedUnseen = reached.contains(id) ? 0 : endedUnseen + 1;
          if (endedUnseen >= EARLY_ENDS) {
            // submitting more would only fail the same way, forever
            throw new IllegalStateException(EARLY_ENDS + " worker jobs in a row ended before their worker reached the"
                + " master (the last: Slurm job " + id + "); its output (slurm-" + id + ".out where sbatch ran) says"
                + " why: a secret file or a java missing on the nodes, a --master they cannot reach, a bad --worker-arg");
          }
        }
        long now = System.nanoTime();
        Autoscaler.Inputs in = inputs(status, mine, alive, idleSince, now, lastSubmit, target, cool);
        Autoscaler.Decision d = Autoscaler.decide(in);
        // a line when the decision changes, not at every change of the units waiting
        String key = (in.remainingUnits() > 0) + d.reason().substring(d.reason().indexOf(": "));
        if (!key.equals(lastReason)) {
          say(out, d.reason());
          lastReason = key;
        }
        for (int i = 0; i < d.submit() && stop.getCount() > 0; i++) {
          String id = Slurm.submit(script.text(), slurm.sbatchArgs);
          submitted++;
          mine.add(id);
          lastSubmit = System.nanoTime();
          say(out, "submitted Slurm job " + id);
        }
        if (!d.cancel().isEmpty()) {
          Slurm.cancel(d.cancel());
          d.cancel().forEach(mine::remove);
          say(out, "cancelled Slurm job" + (d.cancel().size() == 1 ? " " : "s ") + String.join(", ", d.cancel()));
        }
      } catch (IllegalStateException | java.io.IOException e) {
        if (stop.getCount() == 0) {
          // interrupted by the stop: nothing to report
          Log.LOG.debug("poll ended by the stop", e);
          break;
        }
        if (e instanceof Slurm.Unavailable || endedUnseen >= EARLY_ENDS
            || e instanceof Slurm.Refused && submitted == 0 && e.getMessage().startsWith("sbatch")) {
          // no Slurm here, or a first job refused: the options are wrong, not the moment
          throw (IllegalStateException) e;
        }
        // the master away (restarting) or Slurm busy: say so, keep the jobs, look again at the next poll
        say(out, "this poll failed, the next will try again: " + e.getMessage());
        Log.LOG.debug("autoscale poll failed", e);
      }
      try {
        stop.await(Math.max(1, Math.min(pollEvery.toMillis(), (endNanos - System.nanoTime()) / 1_000_000)),
            TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        // the stop's interrupt: the loop's condition ends it
        Log.LOG.debug("interrupted by the stop", e);
      }
    }
  }

  private Autoscaler.Inputs inputs(StatusReply status, Set<String> mine, Map<String, Slurm.Job> alive,
      Map<String, Long> idleSince, long now, long lastSubmit, double target, double cool) {
    long remaining = 0;
    for (JobStatus j : status.getJobsList()) {
      if (j.getState().equals("RUNNING") || j.getState().equals("QUEUED")) {
        remaining += Math.max(j.getUnitsQueued() + j.getUnitsHeld(), j.getUnitsTotal() - j.getUnitsDone());
      }
    }
    double speedSum = 0;
    int speeds = 0;
    Map<String, WorkerStatus> byJob = new HashMap<>();
    for (WorkerStatus w : status.getWorkersList()) {
      if (w.getState().equals("GONE")) {
        continue;
      }
      if (w.getUnitsPerSecond() > 0) {
        speedSum += w.getUnitsPerSecond();
        speeds++;
      }
      String job = Slurm.jobOfWorker(w.getWorkerId());
      if (job != null) {
        byJob.put(job, w);
      }
    }
    List<Autoscaler.WorkerJob> jobs = new ArrayList<>();
    for (String id : mine) {
      WorkerStatus w = byJob.get(id);
      boolean pending = alive.get(id).pending();
      boolean connected = w != null;
      boolean busy = connected && !w.getCurrentChunk().isEmpty();
      double idle = 0;
      if (connected && !busy) {
        idle = (now - idleSince.computeIfAbsent(id, k -> now)) / 1e9;
      } else {
        idleSince.remove(id);
      }
      jobs.add(new Autoscaler.WorkerJob(id, pending, connected, busy, idle));
    }
    idleSince.keySet().retainAll(mine);
    double since = lastSubmit == Long.MIN_VALUE ? Double.POSITIVE_INFINITY : (now - lastSubmit) / 1e9;
    return new Autoscaler.Inputs(min, max, remaining, speeds == 0 ? Double.NaN : speedSum / speeds, target, jobs,
        since, cool, maxSubmit);
  }

  private void finish(PrintWriter out, String name, Set<String> mine) {
    try {
      // a job whose sbatch the stop cut short may be there without its id: the name (with this run's tag) says it is ours
      Slurm.jobsNamed(name).stream().filter(j -> !j.state().equals("COMPLETING")).forEach(j -> mine.add(j.id()));
    } catch (IllegalStateException e) {
      Log.LOG.warn("cannot list the jobs named {}: {}", name, e.getMessage());
      Log.LOG.debug("squeue failed", e);
    }
    if (mine.isEmpty()) {
      say(out, "stopped; no worker jobs of " + name + " left");
      return;
    }
    if (keepWorkers) {
      say(out, "stopped; left Slurm jobs " + String.join(", ", mine) + " running (scancel --name=" + name
          + " ends them)");
      return;
    }
    try {
      Slurm.cancel(new ArrayList<>(mine));
      say(out, "stopped; cancelled Slurm jobs " + String.join(", ", mine) + " (their workers drain)");
    } catch (IllegalStateException e) {
      say(out, "stopped, but cannot cancel Slurm jobs " + String.join(", ", mine) + ": " + e.getMessage()
          + " (scancel --name=" + name + " ends them)");
      Log.LOG.warn("cannot cancel the autoscaled jobs", e);
    }
  }

  private static Duration positive(String option, String text) {
    Duration d = Durations.parse(option, text);
    if (d.isZero()) {
      throw new IllegalArgumentException(option + " must be longer than 0");
    }
    return d;
  }

  private static void say(PrintWriter out, String line) {
    out.println(LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + " " + line);
    out.flush();
  }
}
