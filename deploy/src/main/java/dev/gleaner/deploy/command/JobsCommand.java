package dev.gleaner.deploy.command;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gleaner jobs}: one line per job. */
@Command(name = "jobs", mixinStandardHelpOptions = true,
    header = "List the jobs, one line each.",
    description = {"List the master's jobs (the latest 200), one line each: id, state, units saved of the total,"
        + " workload and name, and a running job's forecast (see `gleaner status`). --state keeps the jobs in those states."})
public final class JobsCommand implements Callable<Integer> {
  /** In the order of a job's life (a set in this order, so that the error lists them so). */
  private static final Set<String> STATES = new java.util.LinkedHashSet<>(
      java.util.List.of("QUEUED", "RUNNING", "ENDING", "DONE", "DONE_PARTIAL", "FAILED", "CANCELLED"));

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Option(names = "--state", split = ",", paramLabel = "STATE",
      description = "Only jobs in these states: QUEUED, RUNNING, ENDING, DONE, DONE_PARTIAL, FAILED, CANCELLED;"
          + " or `running` (not ended) and `ended`.")
  List<String> states = new ArrayList<>();

  @Option(names = "--json", description = "Print one JSON document on stdout.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    for (String s : states) {
      String u = s.toUpperCase(Locale.ROOT);
      if (!STATES.contains(u) && !u.equals("ENDED") && !u.equals("RUNNING")) {
        throw new IllegalArgumentException("--state " + s + " is not a state; known: " + String.join(", ", STATES)
            + ", running, ended");
      }
    }
    StatusReply reply;
    try (MasterClient c = client.connect("`gleaner jobs`")) {
      reply = c.status(null);
    }
    List<JobStatus> shown = new ArrayList<>();
    for (JobStatus j : reply.getJobsList()) {
      if (keep(j.getState())) {
        shown.add(j);
      }
    }
    if (json) {
      List<Map<String, Object>> list = new ArrayList<>();
      for (JobStatus j : shown) {
        list.add(StatusView.toMap(j));
      }
      spec.commandLine().getOut().println(StatusView.json(Map.of("jobs", list, "omitted", reply.getJobsOmitted())));
      return 0;
    }
    for (JobStatus j : shown) {
      spec.commandLine().getOut().println(String.format(Locale.ROOT, "%-10s %-12s %9s of %-9s %-8s %s%s", j.getJobId(),
          j.getState(), StatusView.human(j.getUnitsDone()), StatusView.human(j.getUnitsTotal()), j.getWorkload(),
          j.getName(), j.getOwner().isEmpty() ? "" : (j.getName().isEmpty() ? "" : " ") + "(" + ownerText(j.getOwner()) + ")")
          .stripTrailing() + (j.hasForecast() ? "; forecast: " + StatusView.forecast(j, System.currentTimeMillis()) : ""));
    }
    if (reply.getJobsOmitted() > 0) {
      spec.commandLine().getOut().println("(" + reply.getJobsOmitted() + " older jobs not listed)");
    }
    return 0;
  }

  /** "client alice" for "client:alice". */
  private static String ownerText(String owner) {
    return owner.replaceFirst(":", " ");
  }

  private boolean keep(String state) {
    if (states.isEmpty()) {
      return true;
    }
    for (String s : states) {
      String u = s.toUpperCase(Locale.ROOT);
      if (u.equals(state) || u.equals("ENDED") && StatusView.ended(state)
          || u.equals("RUNNING") && !StatusView.ended(state) && !state.equals("QUEUED")) {
        return true;
      }
    }
    return false;
  }
}
