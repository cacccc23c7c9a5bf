package dev.gleaner.deploy.command;

import dev.gleaner.common.sim.FailureSchedule;
import dev.gleaner.common.time.WeeklyWindows;
import dev.gleaner.deploy.launch.WorkerEventsFile;
import dev.gleaner.master.web.Deadlines;
import dev.gleaner.master.web.Durations;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Role;
import dev.gleaner.worker.WorkerConfig;
import dev.gleaner.worker.WorkerDaemon;
import dev.gleaner.worker.Workers;
import dev.gleaner.worker.owner.OwnerActivity;
import dev.gleaner.worker.owner.OwnerConfig;
import dev.gleaner.worker.owner.OwnerFile;
import dev.gleaner.worker.owner.OwnerSources;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gleaner worker}: the worker daemon. */
@Command(name = "worker", mixinStandardHelpOptions = true,
    description = {"Run a worker daemon: connect to the master, compute chunks, checkpoint, report.",
        "It reconnects by itself when the master goes away. SIGTERM (or Ctrl-C) drains: it reports what it"
            + " has computed, waits for the master to store it, then exits.",
        "On a lent computer, --available and --owner (or --owner-file) make it work only when its owner lets it: it"
            + " vacates within --vacate-grace when the owner comes back, stays connected, and takes work again once"
            + " the owner has left for --idle-before-start."})
public final class WorkerCommand implements Callable<Integer> {
  @Mixin
  ClientOptions client;

  @picocli.CommandLine.Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Option(names = "--id", description = "Stable worker id (default: the id of --token, else this host's name).")
  String id;

  @Option(names = "--cores", description = "Threads to compute with (default: all cores).")
  Integer cores;

  @Option(names = "--allow-exec", split = ",", paramLabel = "PROGRAM",
      description = "Programs the exec workload may run here (names or paths). Without it, exec is refused.")
  List<String> allowExec = List.of();

  @Option(names = "--exec-dir", paramLabel = "DIR",
      description = "The directory exec programs run in, where a job's relative paths (python3 simulate.py) are"
          + " found (default: the directory the worker was started in).")
  Path execDir;

  @Option(names = "--plugins", paramLabel = "DIR", description = "Directory of workload plugin jars.")
  Path plugins;

  @Option(names = "--available-until", paramLabel = "TIME",
      description = "This computer is surely gone then (2026-11-30T08:00, 08:00, or 62h from now): the master plans"
          + " with it and the worker drains then.")
  String availableUntil;

  @Option(names = "--available", paramLabel = "WINDOWS",
      description = "When this computer may work, in the local time zone: 'Fri 18:00-Mon 08:00' (from a day and time"
          + " to a day and time) or '18:00-08:00' (every day); several separated by commas, or the option repeated."
          + " Outside them the worker stays connected and takes nothing; inside, the window's end is declared to the"
          + " master as a certain interruption.")
  List<String> available = List.of();

  @Option(names = "--owner", split = ",", paramLabel = "SOURCE",
      description = "How the worker sees its computer's owner: " + OwnerSources.NAMES + " (default: none)."
          + " Owner input ends the work (--on-owner); work starts after --idle-before-start without it. Do not use"
          + " load with several workers on one computer: each would see the others as the owner.")
  List<String> owner = List.of();

  @Option(names = "--owner-file", paramLabel = "FILE",
      description = "Also see the owner through FILE: " + OwnerFile.FORM + ". For tests, replays and scripts.")
  Path ownerFile;

  @Option(names = "--idle-before-start", paramLabel = "TIME", defaultValue = "15m",
      description = "How long the owner must have left the computer (no input, other load at most --owner-load)"
          + " before the worker takes work (default: ${DEFAULT-VALUE}).")
  String idleBeforeStart;

  @Option(names = "--owner-load", paramLabel = "CORES", defaultValue = "0.3",
      description = "Cores other processes may keep busy (smoothed over a minute) without counting as the owner"
          + " (default: ${DEFAULT-VALUE}).")
  double ownerLoad;

  @Option(names = "--vacate-grace", paramLabel = "TIME", defaultValue = "30s",
      description = "When the owner comes back, the worker reports what it has computed, tells the master why it"
          + " leaves and when it may be back, and stops computing within this time; a chunk that has not reached"
          + " a checkpoint by then is stopped and its unsaved units go to others (default: ${DEFAULT-VALUE}).")
  String vacateGrace;

  @Option(names = "--on-owner", paramLabel = "vacate|suspend", defaultValue = "vacate",
      description = "What the worker does when the owner comes back: vacate (give its chunks back, stay connected,"
          + " take nothing until the owner has left again), or suspend (pause keeping its chunks, go on after"
          + " --idle-before-resume without input, vacate after --max-suspend; the master takes back a chunk that"
          + " outlives its lease meanwhile) (default: ${DEFAULT-VALUE}).")
  String onOwner;

  @Option(names = "--idle-before-resume", paramLabel = "TIME", defaultValue = "5m",
      description = "Suspend mode: how long a short visit must be over before computing goes on (default: ${DEFAULT-VALUE}).")
  String idleBeforeResume;

  @Option(names = "--max-suspend", paramLabel = "TIME", defaultValue = "10m",
      description = "Suspend mode: how long the worker stays suspended before it vacates (default: ${DEFAULT-VALUE}).")
  String maxSuspend;

  @Option(names = "--owner-poll", paramLabel = "TIME", defaultValue = "1s",
      description = "How often the worker looks at its owner (default: ${DEFAULT-VALUE}).")
  String ownerPoll;

  @Option(names = "--slowdown", defaultValue = "1",
      description = "Testing: make every piece take this many times longer (a slower computer; default: ${DEFAULT-VALUE}).")
  double slowdown;

  @Option(names = "--max-speed", paramLabel = "UNITS/s",
      description = "Testing: compute at most this many units per second (a computer of that speed, whatever this one's).")
  Double maxSpeed;

  @Option(names = "--recv-rate", paramLabel = "BYTES/s",
      description = "Testing: read from the master at most this fast (e.g. 2M, 500k), so TCP flow control slows the"
          + " master's sends to this worker: a thin link on one machine.")
  String recvRate;

  @Option(names = "--interrupt", paramLabel = "SPEC",
      description = "Testing: die without draining at drawn times and come back after drawn downtimes; SPEC is"
          + " linear:KAPPA, exponential:RATE or weibull:SHAPE,SCALE_SECONDS.")
  String interrupt;

  @Option(names = "--interrupt-trace", paramLabel = "FILE",
      description = "Testing: die and come back at the times of FILE (lines 'DOWN_SECONDS UP_SECONDS', from the start).")
  Path interruptTrace;

  @Option(names = "--crash-file", paramLabel = "FILE",
      description = "Testing: while FILE exists, be down as after a crash (what was not reported is lost); come back"
          + " when it goes. `gleaner replay --run --interruptions crash` plays a failure trace this way.")
  Path crashFile;

  @Option(names = "--interrupt-seed", paramLabel = "N", defaultValue = "1",
      description = "Seed of the drawn interruptions (default: ${DEFAULT-VALUE}); `gleaner simulate` draws the same ones.")
  long interruptSeed;

  @Option(names = "--downtime", paramLabel = "SECONDS", defaultValue = "30",
      description = "Mean seconds down after a drawn interruption (default: ${DEFAULT-VALUE}).")
  double downtime;

  @Option(names = "--events-file", paramLabel = "FILE",
      description = "Append to FILE, one JSON object a line, what the tools that start workers measure against:"
          + " when the clock of --interrupt started, each down of --interrupt or --crash-file, each vacate for the"
          + " owner and how long it took (`gleaner bench` and `gleaner replay --run` read it, not the log).")
  Path eventsFile;

  @Option(names = "--log-file", paramLabel = "FILE",
      description = "Also log to FILE, rolled daily and at 50 MB into FILE.DATE.N.gz (14 days, 1 GB at most kept).")
  Path logFile;

  @Option(names = "--metrics-port", paramLabel = "PORT",
      description = "Serve this worker's meters for Prometheus at http://127.0.0.1:PORT/metrics (0: any free port).")
  Integer metricsPort;

  @Option(names = "--metrics-from-anywhere",
      description = "Serve --metrics-port on every address, not only loopback.")
  boolean metricsFromAnywhere;

  @Override
  public Integer call() throws Exception {
    if (logFile != null) {
      LogFile.install(logFile);
    }
    PeerCredential credential = client.credential(Role.WORKER, "`gleaner worker`");
    String workerId = id == null || id.isBlank() ? hostName() : id;
    if (credential.isToken()) {
      if (id != null && !id.equals(credential.id())) {
        throw new IllegalArgumentException("--id " + id + " disagrees with " + client.tokenFile + ", which is the token of"
            + " worker '" + credential.id() + "'; leave out --id (a worker takes its token's id)");
      }
      workerId = credential.id();
    }
    WorkerConfig config = WorkerConfig.defaults(client.master.host(), client.master.port(), credential, workerId,
            Workers.workloads(Plugins.loader(plugins), new LinkedHashSet<>(allowExec), execDir))
        .withSlowdown(slowdown)
        .withTls(client.tls())
        .withAlternates(client.alternates.stream()
            .map(h -> java.net.InetSocketAddress.createUnresolved(h.host(), h.port())).toList());
    if (cores != null) {
      config = config.withCores(cores);
    }
    if (availableUntil != null) {
      config = config.withAvailableUntil(Deadlines.parse(availableUntil));
    }
    OwnerConfig policy = ownerPolicy();
    if (policy != null) {
      config = config.withOwner(policy);
    }
    if (recvRate != null) {
      config = config.withReceiveRate(bytes(recvRate));
    }
    if (maxSpeed != null) {
      if (!(maxSpeed > 0) || maxSpeed.isInfinite()) {
        throw new IllegalArgumentException("--max-speed must be a positive number of units per second, got " + maxSpeed);
      }
      config = config.withMaxSpeed(maxSpeed);
    }
    if (interrupt != null && interruptTrace != null) {
      throw new IllegalArgumentException("--interrupt and --interrupt-trace exclude each other");
    }
    if (interrupt != null) {
      config = config.withInterruptions(FailureSchedule.parse(interrupt, downtime), interruptSeed);
    }
    if (interruptTrace != null) {
      config = config.withInterruptions(FailureSchedule.trace(readText(interruptTrace), interruptTrace.toString()), 0);
    }
    if (crashFile != null) {
      if (interrupt != null || interruptTrace != null) {
        throw new IllegalArgumentException("--crash-file and --interrupt or --interrupt-trace exclude each other");
      }
      config = config.withCrashFile(crashFile);
    }
    if (eventsFile != null) {
      config = config.withEvents(WorkerEventsFile.appendingTo(eventsFile));
    }
    if (metricsPort == null && metricsFromAnywhere) {
      throw new IllegalArgumentException("--metrics-from-anywhere needs --metrics-port");
    }
    if (metricsPort != null && (metricsPort < 0 || metricsPort > 65535)) {
      throw new IllegalArgumentException("--metrics-port must be a port number (0 to 65535), got " + metricsPort);
    }
    WorkerMetrics metrics = metricsPort == null ? null : WorkerMetrics.bind(metricsPort, metricsFromAnywhere);
    WorkerDaemon daemon;
    try {
      daemon = WorkerDaemon.start(config);
    } catch (RuntimeException e) {
      if (metrics != null) {
        metrics.close();
      }
      throw e;
    }
    if (metrics != null) {
      metrics.serve(daemon, workerId);
    }
    Thread hook = new Thread(() -> daemon.drain("the worker was asked to stop"), "gleaner-worker-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    while (!daemon.awaitStop(Duration.ofDays(1))) {
      // wait for a stop; bounded by the JVM's life
    }
    if (metrics != null) {
      metrics.close();
    }
    if (daemon.fatalError() != null) {
      System.err.println("gleaner worker: " + daemon.fatalError());
      return 1;
    }
    return 0;
  }

  /** The owner policy the options ask for; null when none asks for one. */
  OwnerConfig ownerPolicy() {
    WeeklyWindows windows = available.isEmpty() ? null : WeeklyWindows.parse(available, ZoneId.systemDefault());
    List<OwnerActivity> sources = OwnerSources.of(owner.isEmpty() ? List.of("none") : owner, ownerFile);
    OwnerConfig.OnOwner mode = switch (onOwner.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "vacate" -> OwnerConfig.OnOwner.VACATE;
      case "suspend" -> OwnerConfig.OnOwner.SUSPEND;
      default -> throw new IllegalArgumentException("--on-owner must be vacate or suspend, got '" + onOwner + "'");
    };
    if (windows == null && sources.isEmpty()) {
      for (String o : List.of("--idle-before-start", "--owner-load", "--vacate-grace", "--on-owner",
          "--idle-before-resume", "--max-suspend", "--owner-poll")) {
        if (spec != null && spec.commandLine().getParseResult().hasMatchedOption(o)) {
          throw new IllegalArgumentException(o + " applies to an owner policy: give --owner, --owner-file or --available"
              + " with it");
        }
      }
      return null;
    }
    if (!(ownerLoad >= 0) || Double.isInfinite(ownerLoad)) {
      throw new IllegalArgumentException("--owner-load must be a number of cores >= 0, got " + ownerLoad);
    }
    Duration poll = Durations.parse("--owner-poll", ownerPoll);
    if (poll.isZero()) {
      throw new IllegalArgumentException("--owner-poll must be longer than 0");
    }
    return OwnerConfig.defaults(windows, sources)
        .withIdleBeforeStart(Durations.parse("--idle-before-start", idleBeforeStart))
        .withIdleBeforeResume(Durations.parse("--idle-before-resume", idleBeforeResume))
        .withOwnerLoad(ownerLoad)
        .withVacateGrace(Durations.parse("--vacate-grace", vacateGrace))
        .withOnOwner(mode, Durations.parse("--max-suspend", maxSuspend))
        .withPoll(poll);
  }

  /** A byte rate like {@code 2M}, {@code 500k} or {@code 123456}. */
  static long bytes(String text) {
    return bytes(text, "--recv-rate");
  }

  /** A byte count or rate like {@code 2M}, {@code 500k} or {@code 123456}, given as {@code option}. */
  static long bytes(String text, String option) {
    String t = text.trim();
    long unit = 1;
    char last = t.isEmpty() ? ' ' : Character.toLowerCase(t.charAt(t.length() - 1));
    if (last == 'k' || last == 'm' || last == 'g') {
      unit = last == 'k' ? 1_000 : last == 'm' ? 1_000_000 : 1_000_000_000;
      t = t.substring(0, t.length() - 1);
    }
    try {
      double v = Double.parseDouble(t) * unit;
      if (!(v >= 1) || Double.isInfinite(v)) {
        throw new NumberFormatException();
      }
      return (long) v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " must be a number of bytes like 2M, 500k or 123456, got '" + text + "'",
          e);
    }
  }

  private static String readText(Path file) {
    try {
      return java.nio.file.Files.readString(file);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static String hostName() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      return "worker-" + ProcessHandle.current().pid();
    }
  }
}
