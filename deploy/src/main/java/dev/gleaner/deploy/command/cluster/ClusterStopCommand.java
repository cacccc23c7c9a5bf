package dev.gleaner.deploy.command.cluster;

import dev.gleaner.deploy.format.HostsFile;
import dev.gleaner.deploy.launch.RemoteWorkers;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gleaner cluster stop HOSTS}: drains and stops the workers {@code cluster start} started. */
@Command(name = "stop", mixinStandardHelpOptions = true,
    header = "Stop the workers that `gleaner cluster start` started, letting them drain.",
    description = {"For each host, in parallel: send SIGTERM to the worker by its recorded PID (or stop its systemd"
        + " unit), so that it reports what it computed and leaves the master, and wait for it to exit. Processes are"
        + " found by the PID or unit `cluster start` recorded, never by name.",
        "Prints a line per host and exits 1 if any worker could not be stopped or any host not reached."})
final class ClusterStopCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClusterOptions cluster;

  @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "40",
      description = "How long to wait for each worker to drain and exit (default: ${DEFAULT-VALUE}).")
  int waitSeconds;

  @Override
  public Integer call() throws Exception {
    if (waitSeconds < 1) {
      throw new IllegalArgumentException("--wait must be at least 1 s, got " + waitSeconds);
    }
    List<HostsFile.Host> hosts = cluster.hosts();
    RemoteWorkers remote = cluster.remote();
    List<RemoteWorkers.Outcome> outcomes = RemoteWorkers.forEach(hosts, cluster.parallel,
        h -> remote.stop(h, waitSeconds), spec.commandLine().getOut());
    return outcomes.stream().anyMatch(RemoteWorkers.Outcome::failed) ? 1 : 0;
  }
}
