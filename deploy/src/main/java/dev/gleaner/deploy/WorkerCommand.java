package dev.gleaner.deploy;

import dev.gleaner.common.sim.FailureSchedule;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Role;
import dev.gleaner.worker.WorkerConfig;
import dev.gleaner.worker.WorkerDaemon;
import dev.gleaner.worker.Workers;
import java.nio.file.Path;
import java.time.Duration;
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
            + " has computed, waits for the master to store it, then exits."})
final class WorkerCommand implements Callable<Integer> {
  @Mixin
  ClientOptions client;

  @Option(names = "--id", description = "Stable worker id (default: the id of --token, else this host's name).")
  String id;

  @Option(names = "--cores", description = "Threads to compute with (default: all cores).")
  Integer cores;

  @Option(names = "--allow-exec", split = ",", paramLabel = "PROGRAM",
      description = "Programs the exec workload may run here (names or paths). Without it, exec is refused.")
  List<String> allowExec = List.of();

  @Option(names = "--plugins", paramLabel = "DIR", description = "Directory of workload plugin jars.")
  Path plugins;

  @Option(names = "--available-until", paramLabel = "TIME",
      description = "This computer is surely gone then (2026-11-30T08:00, 08:00, or 62h from now): the master plans"
          + " with it and the worker drains then.")
  String availableUntil;

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

  @Option(names = "--interrupt-seed", paramLabel = "N", defaultValue = "1",
      description = "Seed of the drawn interruptions (default: ${DEFAULT-VALUE}); `gleaner simulate` draws the same ones.")
  long interruptSeed;

  @Option(names = "--downtime", paramLabel = "SECONDS", defaultValue = "30",
      description = "Mean seconds down after a drawn interruption (default: ${DEFAULT-VALUE}).")
  double downtime;

  @Override
  public Integer call() throws Exception {
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
            Workers.workloads(Plugins.loader(plugins), new LinkedHashSet<>(allowExec)))
        .withSlowdown(slowdown)
        .withTls(client.tls());
    if (cores != null) {
      config = config.withCores(cores);
    }
    if (availableUntil != null) {
      config = config.withAvailableUntil(Deadlines.parse(availableUntil));
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
    WorkerDaemon daemon = WorkerDaemon.start(config);
    Thread hook = new Thread(() -> daemon.drain("the worker was asked to stop"), "gleaner-worker-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    while (!daemon.awaitStop(Duration.ofDays(1))) {
      // wait for a stop; bounded by the JVM's life
    }
    if (daemon.fatalError() != null) {
      System.err.println("gleaner worker: " + daemon.fatalError());
      return 1;
    }
    return 0;
  }

  /** A byte rate like {@code 2M}, {@code 500k} or {@code 123456}. */
  static long bytes(String text) {
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
      throw new IllegalArgumentException("--recv-rate must be a rate like 2M, 500k or 123456 bytes/s, got '" + text + "'", e);
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
