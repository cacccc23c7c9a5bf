package dev.gleaner.deploy.command;

import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.protocol.JobStatus;

/**
 * The exit codes of the commands that follow or read a job ({@code submit}, {@code wait},
 * {@code result}): one table for all of them, so that a script tells a whole result from a partial
 * one, and a job that failed from a command that could not ask (docs/job-files.md#exit-codes).
 */
public final class JobExit {
  /** The job is DONE: every unit computed. */
  public static final int DONE = 0;
  /** The command itself failed: the master unreachable, a refusal, a bad job file. */
  public static final int ERROR = 1;
  /** The command line is wrong (picocli's code). */
  public static final int USAGE = 2;
  /** The job was CANCELLED: its result is that of the units saved. */
  public static final int CANCELLED = 3;
  /** {@code gleaner wait --timeout} passed with the job still running. */
  public static final int STILL_RUNNING = 4;
  /** The job is DONE_PARTIAL (its deadline came first): its result is that of the units saved. */
  public static final int DONE_PARTIAL = 5;
  /** The job FAILED: no result. */
  public static final int FAILED = 6;

  private JobExit() {}

  /** The exit code of a job that ended in {@code state}. */
  public static int of(String state) {
    return switch (state) {
      case "DONE" -> DONE;
      case "DONE_PARTIAL" -> DONE_PARTIAL;
      case "CANCELLED" -> CANCELLED;
      case "FAILED" -> FAILED;
      default -> throw new IllegalArgumentException("job state " + state + " has not ended");
    };
  }

  /**
   * The line that follows a result on stdout when it is not the whole job's (DONE_PARTIAL or
   * CANCELLED), so that it cannot be taken for a whole one; null for any other state.
   */
  public static String partialMarker(JobStatus j) {
    if (!j.getState().equals("DONE_PARTIAL") && !j.getState().equals("CANCELLED")) {
      return null;
    }
    // one line whatever the message holds (a cancel's reason is free text)
    return "# partial result (" + j.getState() + "): " + j.getMessage().replaceAll("\\R", " ") + "; not done: "
        + StatusView.ranges(j.getNotDoneList());
  }
}
