package dev.gleaner.deploy;

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

  @Option(names = "--id", description = "Stable worker id (default: this host's name).")
  String id;

  @Option(names = "--cores", description = "Threads to compute with (default: all cores).")
  Integer cores;

  @Option(names = "--allow-exec", split = ",", paramLabel = "PROGRAM",
      description = "Programs the exec workload may run here (names or paths). Without it, exec is refused.")
  List<String> allowExec = List.of();

  @Option(names = "--plugins", paramLabel = "DIR", description = "Directory of workload plugin jars.")
  Path plugins;

  @Option(names = "--slowdown", defaultValue = "1", hidden = true,
      description = "Make every piece take this many times longer (demos and tests of heterogeneous platforms).")
  double slowdown;

  @Override
  public Integer call() throws Exception {
    WorkerConfig config = WorkerConfig.defaults(client.master.host(), client.master.port(), client.secret(),
            id == null || id.isBlank() ? hostName() : id,
            Workers.workloads(Plugins.loader(plugins), new LinkedHashSet<>(allowExec)))
        .withSlowdown(slowdown);
    if (cores != null) {
      config = config.withCores(cores);
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

  private static String hostName() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      return "worker-" + ProcessHandle.current().pid();
    }
  }
}
