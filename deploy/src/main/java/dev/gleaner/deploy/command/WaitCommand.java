package dev.gleaner.deploy.command;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.master.web.Deadlines;
import dev.gleaner.protocol.JobStatus;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/** {@code gleaner wait JOB}: follows a job until it ends. */
@Command(name = "wait", mixinStandardHelpOptions = true,
    header = "Wait until a job ends, showing its progress.",
    description = {"Follow a job already submitted (by `gleaner submit --detach`, or one whose `gleaner submit` was"
        + " stopped) until it ends, with its progress on stderr, then print its state and message.",
        "Exit status: 0 DONE, 1 the command failed, 2 usage, 3 CANCELLED, 4 still running when --timeout passed,"
            + " 5 DONE_PARTIAL, 6 FAILED."})
public final class WaitCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "JOB", description = "The job's id (as `gleaner jobs` lists it).")
  String job;

  @Option(names = "--timeout", paramLabel = "DURATION",
      description = "Give up waiting after this long (10m, 2h); the job goes on. Default: wait until it ends.")
  String timeout;

  @Option(names = "--quiet", description = "No progress line on stderr.")
  boolean quiet;

  @Option(names = "--poll-ms", defaultValue = "500", description = "How often to ask (default: ${DEFAULT-VALUE} ms).")
  long pollMs;

  @Override
  public Integer call() throws Exception {
    double seconds = timeout == null ? Double.POSITIVE_INFINITY : Deadlines.seconds(timeout);
    long until = Double.isInfinite(seconds) ? Long.MAX_VALUE : System.nanoTime() + (long) (seconds * 1e9);
    if (pollMs < 10) {
      throw new IllegalArgumentException("--poll-ms must be at least 10, got " + pollMs);
    }
    try (MasterClient c = client.connect("`gleaner wait`")) {
      // bounded by --timeout, or by the job's end
      while (true) {
        long asked = System.nanoTime();
        // the master answers at the job's end, or after the poll period if it has not ended
        long wait = until == Long.MAX_VALUE ? pollMs
            : Math.min(pollMs, Math.max(0, TimeUnit.NANOSECONDS.toMillis(until - asked)));
        var reply = c.status(job, wait);
        if (reply.getJobsCount() == 0) {
          throw new IllegalArgumentException("the master knows no job '" + job + "' (gleaner jobs lists them)");
        }
        JobStatus j = reply.getJobs(0);
        if (!quiet) {
          System.err.print(String.format(java.util.Locale.ROOT, "\r%s %s %6.2f%%  saved %s of %s  %s",
              j.getJobId(), StatusView.bar(j.getUnitsDone(), j.getUnitsTotal(), 30), StatusView.percent(j),
              StatusView.human(j.getUnitsDone()), StatusView.human(j.getUnitsTotal()), j.getMessage()));
        }
        if (StatusView.ended(j.getState())) {
          if (!quiet) {
            System.err.println();
          }
          spec.commandLine().getOut().println(j.getJobId() + " " + j.getState()
              + (j.getMessage().isEmpty() ? "" : ": " + j.getMessage()));
          return JobExit.of(j.getState());
        }
        if (System.nanoTime() - until > 0) {
          if (!quiet) {
            System.err.println();
          }
          spec.commandLine().getOut().println(j.getJobId() + " is still " + j.getState() + " after " + timeout);
          return JobExit.STILL_RUNNING;
        }
        // a master that cannot wait answers at once: the period is kept all the same
        long left = pollMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
        if (left > 0) {
          TimeUnit.MILLISECONDS.sleep(left);
        }
      }
    }
  }
}
