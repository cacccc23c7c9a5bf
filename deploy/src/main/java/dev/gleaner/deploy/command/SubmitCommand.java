package dev.gleaner.deploy.command;

import dev.gleaner.common.time.Backoff;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.client.Terminal;
import dev.gleaner.deploy.client.TextSink;
import dev.gleaner.deploy.format.JobFile;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.SubmitReply;
import java.io.IOException;
import java.time.Duration;
import java.util.SplittableRandom;
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
    header = "Submit a job file and follow it until it ends.",
    description = {"Submit a job file (YAML or JSON) to the master and follow it until it ends: the plan as soon as"
        + " it is planned, then the work saved so far with the master's forecast (when the job will end, or with a"
        + " deadline the units saved by then, each with its band); then its result on stdout. A result that is not the whole job's (its deadline came first, or it was cancelled) is"
        + " followed by a line that starts with `# partial result`.",
        "Job file keys: workload, params, name, strategy, chunk-units, checkpoints, min-workers, deadline, replication,"
        + " verify, priority.",
        "Owners share the workers fairly (weights: `gleaner share`); among your own jobs a higher priority goes first."
        + " A job that must give workers back keeps what they computed.",
        "Exit status: 0 DONE, 1 the command failed, 2 usage, 3 CANCELLED, 5 DONE_PARTIAL, 6 FAILED."})
public final class SubmitCommand implements Callable<Integer> {
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

  @Option(names = "--priority", paramLabel = "N",
      description = "Among your own jobs, a higher priority gets the workers first (default: the job file's, else 0).")
  Integer priority;

  @Option(names = "--json", description = "Print one JSON document (the final job status) on stdout.")
  boolean json;

  @Option(names = "--job-key", paramLabel = "KEY",
      description = "An idempotency key: a second submit with the same key returns the job the first made instead of"
          + " a new one (default: a fresh random key, so a submit this command sends again after losing the master"
          + " never makes a second job).")
  String key;

  @Option(names = "--reconnect-for", defaultValue = "600", paramLabel = "SECONDS",
      description = "How long to keep reconnecting to a master that went away while following the job; the job"
          + " goes on there either way (default: ${DEFAULT-VALUE} s).")
  long reconnectFor;

  @Option(names = "--poll-ms", defaultValue = "500", hidden = true, description = "Status polling period.")
  long pollMs;

  /** The job this command follows, for the Ctrl-C note; null before it is submitted or after it ended. */
  private volatile String followed;

  @Override
  public Integer call() throws Exception {
    // Ctrl-C stops following, not the job: say so, and how to stop it or follow it again
    Thread note = new Thread(() -> {
      String id = followed;
      if (id != null) {
        System.err.println("\n" + id + " goes on at the master: `gleaner cancel " + id + "` stops it, `gleaner wait "
            + id + "` follows it again");
      }
    }, "gleaner-submit-interrupted");
    Runtime.getRuntime().addShutdownHook(note);
    try {
      return submitAndFollow();
    } finally {
      followed = null;
      try {
        Runtime.getRuntime().removeShutdownHook(note);
      } catch (IllegalStateException shuttingDown) {
        // the JVM is exiting (Ctrl-C): the note runs
      }
    }
  }

  private int submitAndFollow() throws Exception {
    JobSpec job = JobFile.read(jobFile);
    if (resume != null) {
      job = job.toBuilder().setResume(resume).build();
    }
    if (priority != null) {
      job = job.toBuilder().setPriority(priority).build();
    }
    job = job.toBuilder().setKey(key != null ? key : java.util.UUID.randomUUID().toString()).build();
    String id = null;
    boolean reached = false;
    long lostSince = 0;
    Backoff backoff = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(5), new SplittableRandom());
    // bounded: each pass either ends the command or waits, and the waits end after reconnectFor
    while (true) {
      try (MasterClient c = client.connect("`gleaner submit`")) {
        reached = true;
        if (id == null) {
          // sent again after a lost reply, the same key gets the same job
          SubmitReply r = c.submitReply(job);
          id = r.getJobId();
          if (detach) {
            spec.commandLine().getOut().println(json ? StatusView.json(java.util.Map.of("id", id)) : id);
            return 0;
          }
          if (!json) {
            System.err.println(r.getExisting() ? "already submitted as " + id + " (same key); following it"
                : "submitted " + id);
          }
          followed = id;
        } else if (lostSince != 0) {
          System.err.println("reconnected to the master; following " + id);
        }
        lostSince = 0;
        backoff.reset();
        return report(c, follow(c, id, !json, pollMs));
      } catch (MasterClient.RefusedException e) {
        throw e;
      } catch (IOException e) {
        if (!reached) {
          throw e;
        }
        long now = System.nanoTime();
        if (lostSince == 0) {
          lostSince = now;
          System.err.println("\nlost the master (" + e.getMessage() + ")" + (id == null ? "" : "; " + id
              + " goes on there") + "; reconnecting for up to " + reconnectFor + " s");
        } else if (now - lostSince > TimeUnit.SECONDS.toNanos(reconnectFor)) {
          throw new IOException("the master has been unreachable for " + reconnectFor + " s"
              + (id == null ? "" : "; job " + id + " may still be running (gleaner status --job " + id + ")"), e);
        }
        TimeUnit.MILLISECONDS.sleep(backoff.next().toMillis());
      }
    }
  }

  /** Prints the job's end (a result too long for a status is streamed whole); the exit code. */
  private int report(MasterClient c, JobStatus j) throws IOException {
    if (json) {
      spec.commandLine().getOut().println(StatusView.json(StatusView.toMap(j)));
    } else if (j.getResultTruncated() && !j.getState().equals("FAILED")) {
      TextSink out = new TextSink(spec.commandLine().getOut());
      try (out) {
        c.result(j.getJobId(), out);
      } catch (IOException e) {
        // part of it is printed already: no reconnect that would print it again
        throw new IllegalStateException("lost the master while printing the result of " + j.getJobId() + " ("
            + e.getMessage() + "); gleaner result " + j.getJobId() + " prints it", e);
      }
      if (!out.endsLine()) {
        spec.commandLine().getOut().println();
      }
    } else if (j.getState().equals("FAILED")) {
      spec.commandLine().getOut().println(j.getState() + ": " + j.getMessage());
    } else {
      TextSink.printLines(spec.commandLine().getOut(), j.getResult());
    }
    String partial = JobExit.partialMarker(j);
    if (!json && partial != null) {
      spec.commandLine().getOut().println(partial);
      System.err.println("(gleaner submit " + jobFile + " --resume " + j.getJobId() + " computes the rest)");
    }
    return JobExit.of(j.getState());
  }

  /** Polls the job until it is DONE or FAILED, drawing a progress line on stderr if asked. */
  public static JobStatus follow(MasterClient c, String id, boolean progress, long pollMs) throws Exception {
    boolean tty = System.console() != null;
    int columns = tty && progress ? Terminal.columns() : Integer.MAX_VALUE;
    long lastLine = 0;
    boolean planShown = false;
    while (true) {
      long asked = System.nanoTime();
      // the master answers at the job's end, or after the poll period if it has not ended
      var reply = c.status(id, pollMs);
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
        // the figures first, then the forecast, then the master's message: a narrow terminal cuts the end
        String line = String.format(Locale.ROOT, "%s %s %6.2f%%  saved %s of %s  %s units/s", j.getJobId(),
            StatusView.bar(j.getUnitsDone(), j.getUnitsTotal(), Math.max(10, Math.min(30, columns - 60))),
            StatusView.percent(j),
            StatusView.human(j.getUnitsDone()), StatusView.human(j.getUnitsTotal()),
            StatusView.human(j.getUnitsPerSecond()))
            + (j.hasForecast() ? "  forecast: " + StatusView.forecast(j, System.currentTimeMillis()) : "")
            + (j.getMessage().isEmpty() ? "" : "  " + j.getMessage());
        long now = System.nanoTime();
        if (tty) {
          // the line's length changes (the forecast's text): clear what a longer one left
          System.err.print("\r" + Terminal.fit(line, columns) + "\033[K" + (ended ? "\n" : ""));
        } else if (ended || now - lastLine > TimeUnit.SECONDS.toNanos(5)) {
          System.err.println(line);
          lastLine = now;
        }
      }
      if (ended) {
        return j;
      }
      // a master that cannot wait answers at once: the period is kept all the same
      long left = pollMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
      if (left > 0) {
        TimeUnit.MILLISECONDS.sleep(left);
      }
    }
  }

  /**
   * The plan, for people: strategy, deadline, why. Not its one-round expectation, which is no
   * forecast (the progress line shows the forecast once the master has made one).
   */
  static String planLine(JobStatus j) {
    return "plan: " + j.getStrategy()
        + (j.getDeadlineMillis() > 0 ? " by the deadline " + java.time.Instant.ofEpochMilli(j.getDeadlineMillis()) : "")
        + (j.getPlanReason().isEmpty() ? "" : "; " + j.getPlanReason());
  }
}
