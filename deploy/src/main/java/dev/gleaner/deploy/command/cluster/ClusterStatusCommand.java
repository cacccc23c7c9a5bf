package dev.gleaner.deploy.command.cluster;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.command.ClientOptions;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.format.HostsFile;
import dev.gleaner.deploy.launch.RemoteWorkers;
import dev.gleaner.protocol.WorkerStatus;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gleaner cluster status HOSTS}: each host's worker, and what the master sees of it. */
@Command(name = "status", mixinStandardHelpOptions = true,
    header = "Say for each host whether its worker runs, and whether the master sees it.",
    description = {"For each host: running (pid), stopped, or unreachable (why); with --master, also the worker's"
        + " state at the master (READY, AWAY, GONE, ...) or that the master does not know it.",
        "Exits 1 if a host could not be reached."})
final class ClusterStatusCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClusterOptions cluster;

  @Option(names = "--master", paramLabel = "HOST:PORT", converter = HostPort.Converter.class,
      description = "Also ask this master which of the workers it sees.")
  HostPort master;

  @Option(names = "--secret-file", paramLabel = "FILE",
      defaultValue = "${env:GLEANER_SECRET_FILE:-${sys:user.home}/.gleaner/secret}",
      description = "With --master: the shared cluster secret (default: $GLEANER_SECRET_FILE or ~/.gleaner/secret).")
  Path secretFile;

  @Option(names = "--token", paramLabel = "FILE", defaultValue = "${env:GLEANER_TOKEN_FILE}",
      description = "With --master: log in with this client token instead (default: $GLEANER_TOKEN_FILE).")
  Path tokenFile;

  @Option(names = "--ca", paramLabel = "FILE", defaultValue = "${env:GLEANER_CA}",
      description = "With --master: speak TLS, trusting the cluster CA in FILE (default: $GLEANER_CA).")
  Path caFile;

  @Override
  public Integer call() throws Exception {
    List<HostsFile.Host> hosts = cluster.hosts();
    RemoteWorkers remote = cluster.remote();
    boolean askMaster = master != null;
    Map<String, String> seen = new HashMap<>();
    if (askMaster) {
      // asked first, so that a wrong secret or address fails before any ssh
      ClientOptions client = new ClientOptions();
      client.master = master;
      client.secretFile = secretFile;
      client.tokenFile = tokenFile;
      client.caFile = caFile;
      try (MasterClient c = client.connect("`gleaner cluster status`")) {
        for (WorkerStatus w : c.status(null).getWorkersList()) {
          seen.put(w.getWorkerId(), w.getState());
        }
      }
    }
    List<RemoteWorkers.Outcome> outcomes = RemoteWorkers.forEach(hosts, cluster.parallel, h -> {
      RemoteWorkers.Outcome o = remote.status(h);
      if (!askMaster || o.kind() == RemoteWorkers.Kind.UNREACHABLE) {
        return o;
      }
      String state = seen.get(h.workerId());
      return new RemoteWorkers.Outcome(h, o.kind(), o.text() + "; master: "
          + (state == null ? "not connected" : state), o.pid());
    }, spec.commandLine().getOut());
    return outcomes.stream().anyMatch(RemoteWorkers.Outcome::failed) ? 1 : 0;
  }
}
