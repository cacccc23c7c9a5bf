package dev.gleaner.deploy.command;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.protocol.JobReply;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gleaner cancel JOB}: ends a running job now, keeping what is saved. */
@Command(name = "cancel", mixinStandardHelpOptions = true,
    header = "End a running job now, keeping what it has saved.",
    description = {"End a running job now: its chunks are cancelled on the workers, the pieces already received are"
        + " saved, and it ends CANCELLED with the saved units as its result and the rest listed as not done"
        + " (`resume:` in a job file, or `gleaner submit --resume JOB`, computes them later)."})
public final class CancelCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "JOB", description = "The job's id (as `gleaner jobs` lists it).")
  String job;

  @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the job's message and the master's log.")
  String reason = "";

  @Option(names = "--json", description = "Print one JSON document on stdout.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    JobReply r;
    try (MasterClient c = client.connect("`gleaner cancel`")) {
      r = c.cancel(job, reason.isBlank() ? "gleaner cancel" : reason);
    }
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", r.getJobId());
      m.put("state", r.getState());
      m.put("message", r.getMessage());
      spec.commandLine().getOut().println(StatusView.json(m));
    } else {
      spec.commandLine().getOut().println(r.getJobId() + " " + (r.getState().equals("CANCELLED") ? "cancelled"
          : "is being cancelled (its last pieces are being saved)") + ": " + r.getMessage());
    }
    return 0;
  }
}
