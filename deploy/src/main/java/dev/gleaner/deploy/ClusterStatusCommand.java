package dev.gleaner.deploy;

import dev.gleaner.protocol.WorkerStatus;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

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

  @Mixin
  ClientOptions client;

  @Override
  public Integer call() throws Exception {
    List<HostsFile.Host> hosts = cluster.hosts();
    RemoteWorkers remote = cluster.remote();
    boolean askMaster = spec.commandLine().getParseResult().hasMatchedOption("--master");
    Map<String, String> seen = new HashMap<>();
    if (askMaster) {
      // asked first, so that a wrong secret or address fails before any ssh
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
          + (state == null ? "does not know worker '" + h.workerId() + "'" : state), o.pid());
    }, spec.commandLine().getOut());
    return outcomes.stream().anyMatch(RemoteWorkers.Outcome::failed) ? 1 : 0;
  }
}
