package dev.gleaner.deploy.command;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.protocol.JobReply;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/** {@code gleaner cancel JOB}: ends a running job, keeping what is saved and what its workers computed. */
@Command(name = "cancel", mixinStandardHelpOptions = true,
    header = "End a running job, keeping what its workers computed.",
    description = {"End a running job: nothing more is handed out, each worker reports what it computed since its"
        + " last checkpoint (up to its current step, as when its owner comes back) and stops, and the job ends"
        + " CANCELLED with the saved units as its result and the rest listed as not done (`gleaner submit JOB.yaml"
        + " --resume JOB` computes them later). The job ends once every worker has reported, or after --grace;"
        + " --now skips the wait and keeps only what was already saved. `gleaner wait JOB` follows it to its end."})
public final class CancelCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "JOB", description = "The job's id (as `gleaner jobs` lists it).")
  String job;

  @Option(names = "--reason", paramLabel = "TEXT", description = "Why, for the job's message and the master's log.")
  String reason = "";

  @Option(names = "--grace", paramLabel = "DURATION", defaultValue = "10s",
      description = "How long the workers have to report what they computed since their last checkpoint"
          + " (default: ${DEFAULT-VALUE}; at most 10m).")
  String grace;

  @Option(names = "--now", description = "End the job at once, with what was already saved (also ends the wait of"
      + " an earlier cancel).")
  boolean now;

  @Option(names = "--json", description = "Print one JSON document on stdout.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    long graceMs = now ? 0 : dev.gleaner.master.web.Durations.parse("--grace", grace).toMillis();
    JobReply r;
    try (MasterClient c = client.connect("`gleaner cancel`")) {
      r = c.cancel(job, reason.isBlank() ? "gleaner cancel" : reason, graceMs);
    }
    if (json) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", r.getJobId());
      m.put("state", r.getState());
      m.put("message", r.getMessage());
      spec.commandLine().getOut().println(StatusView.json(m));
    } else {
      spec.commandLine().getOut().println(r.getState().equals("CANCELLED") ? r.getJobId() + " cancelled: " + r.getMessage()
          : r.getJobId() + " is being cancelled: " + (graceMs > 0
              ? "its workers report what they computed since their last checkpoints (within " + grace + ")"
              : "the pieces already received are being saved") + "; `gleaner wait " + r.getJobId()
              + "` follows it to its end");
    }
    return 0;
  }
}
