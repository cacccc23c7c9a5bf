package dev.gleaner.deploy.command;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.protocol.StatusReply;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gleaner status}: jobs, workers, progress and throughput. */
@Command(name = "status", mixinStandardHelpOptions = true, description = {"Show jobs, workers, progress and throughput.",
    "A running job's forecast is the master's simulator run forward from where the job stands, 20 times, each"
        + " drawing what the master does not know yet (how fast the rest goes, how often and how long workers are"
        + " away): when the job will end or, with a deadline, the share of it saved by then, with the lowest and"
        + " highest runs as its band. The plan's own figure (expectedWork in --json) is a one-round expectation, not"
        + " a forecast."})
public final class StatusCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Option(names = "--job", description = "Only this job.")
  String job;

  @Option(names = "--json", description = "Print one JSON document on stdout.")
  boolean json;

  @Option(names = "--all-workers", description = "List every worker; without it, the first 200 to have joined are "
      + "listed and the others counted by state.")
  boolean allWorkers;

  @Override
  public Integer call() throws Exception {
    try (MasterClient c = client.connect("`gleaner status`")) {
      StatusReply reply = c.status(job, allWorkers);
      if (job != null && reply.getJobsCount() == 0) {
        throw new IllegalArgumentException("the master knows no job '" + job + "'");
      }
      if (json) {
        spec.commandLine().getOut().println(StatusView.json(StatusView.toMap(reply)));
      } else {
        StatusView.table(reply, spec.commandLine().getOut());
      }
    }
    return 0;
  }
}
