package dev.gleaner.deploy.command;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.protocol.JobReply;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code gleaner forget JOB}: drops an ended job and everything stored of it. */
@Command(name = "forget", mixinStandardHelpOptions = true,
    header = "Drop an ended job and everything stored of it.",
    description = {"Drop an ended job (DONE, DONE_PARTIAL, FAILED or CANCELLED) from the master: its result, its"
        + " pieces and its chunks are deleted from the store, and it is no longer listed. A running job is refused:"
        + " cancel it first. A job resumed from this one keeps its own copy of the pieces."})
public final class ForgetCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "JOB", description = "The job's id (as `gleaner jobs` lists it).")
  String job;

  @Override
  public Integer call() throws Exception {
    JobReply r;
    try (MasterClient c = client.connect("`gleaner forget`")) {
      r = c.forget(job);
    }
    spec.commandLine().getOut().println(r.getJobId() + " forgotten (" + r.getMessage() + ")");
    return 0;
  }
}
