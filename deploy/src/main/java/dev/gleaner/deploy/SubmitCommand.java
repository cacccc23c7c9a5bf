package dev.gleaner.deploy;

import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.JobSpec;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gleaner submit JOB.yaml}: submit a job and, unless detached, follow it to its result. */
@Command(name = "submit", mixinStandardHelpOptions = true,
    description = {"Submit a job file (YAML or JSON) to the master and follow it until it ends: the plan and the",
        "work it expects (by the deadline, if any) as soon as it is planned, then the work saved so far.",
        "Job file keys: workload, params, name, strategy, chunk-units, checkpoints, min-workers, deadline, replication."})
final class SubmitCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "JOB.yaml", description = "The job file.")
  Path jobFile;

  @Option(names = "--detach", description = "Print the job id and return without waiting.")
  boolean detach;

  @Option(names = "--resume", paramLabel = "JOB",
      description = "Compute only what JOB (which ended at its deadline) did not finish; its saved pieces are kept.")
  String resume;

  @Option(names = "--json", description = "Print one JSON document (the final job status) on stdout.")
  boolean json;

  @Option(names = "--poll-ms", defaultValue = "500", hidden = true, description = "Status polling period.")
  long pollMs;

  @Override
  public Integer call() throws Exception {
    JobSpec job = JobFile.read(jobFile);
    if (resume != null) {
      job = job.toBuilder().setResume(resume).build();
    }
    try (MasterClient c = client.connect("`gleaner submit`")) {
      String id = c.submit(job);
      if (detach) {
        spec.commandLine().getOut().println(json ? StatusView.json(java.util.Map.of("id", id)) : id);
        return 0;
      }
      if (!json) {
        System.err.println("submitted " + id);
      }
      JobStatus j = follow(c, id, !json, pollMs);
      if (json) {
        spec.commandLine().getOut().println(StatusView.json(StatusView.toMap(j)));
      } else {
        spec.commandLine().getOut().println(j.getState().equals("FAILED") ? j.getState() + ": " + j.getMessage() : j.getResult());
        if (j.getState().equals("DONE_PARTIAL")) {
          System.err.println(j.getMessage() + "; not done: " + StatusView.ranges(j.getNotDoneList())
              + "\n(gleaner submit " + jobFile + " --resume " + j.getJobId() + " computes them)");
        }
      }
      return j.getState().equals("FAILED") ? 1 : 0;
    }
  }

  /** Polls the job until it is DONE or FAILED, drawing a progress line on stderr if asked. */
  static JobStatus follow(MasterClient c, String id, boolean progress, long pollMs) throws Exception {
    boolean tty = System.console() != null;
    long lastLine = 0;
    boolean planShown = false;
    while (true) {
      var reply = c.status(id);
      if (reply.getJobsCount() == 0) {
        throw new IllegalStateException("the master does not know job " + id);
      }
      JobStatus j = reply.getJobs(0);
      boolean ended = StatusView.ended(j.getState());
      if (progress && !planShown && !j.getStrategy().isEmpty()) {
        planShown = true;
        System.err.println((tty ? "\r" : "") + planLine(j));
      }
      if (progress) {
        String line = String.format(Locale.ROOT, "%s %s %6.2f%%  saved %s of %s  %s units/s  %s", j.getJobId(),
            StatusView.bar(j.getUnitsDone(), j.getUnitsTotal(), 30), StatusView.percent(j),
            StatusView.human(j.getUnitsDone()), StatusView.human(j.getUnitsTotal()),
            StatusView.human(j.getUnitsPerSecond()), j.getMessage());
        long now = System.nanoTime();
        if (tty) {
          System.err.print("\r" + line + (ended ? "\n" : ""));
        } else if (ended || now - lastLine > TimeUnit.SECONDS.toNanos(5)) {
          System.err.println(line);
          lastLine = now;
        }
      }
      if (ended) {
        return j;
      }
      TimeUnit.MILLISECONDS.sleep(pollMs);
    }
  }

  /** What the plan expects, for people: strategy, expected work, deadline. */
  static String planLine(JobStatus j) {
    String expects = Double.isFinite(j.getExpectedWork())
        ? String.format(Locale.ROOT, " expects %s of %s units (%.1f%%)", StatusView.human(j.getExpectedWork()),
            StatusView.human(j.getUnitsTotal()), 100 * j.getExpectedWork() / Math.max(1, j.getUnitsTotal()))
        : "";
    return "plan: " + j.getStrategy() + expects
        + (j.getDeadlineMillis() > 0 ? " by the deadline " + java.time.Instant.ofEpochMilli(j.getDeadlineMillis()) : "")
        + (j.getPlanReason().isEmpty() ? "" : "; " + j.getPlanReason());
  }
}
