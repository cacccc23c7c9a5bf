package dev.gleaner.master.loop;

/**
 * What a cancel or a forget did: the job's state after it, or why it could not be done.
 *
 * @param state CANCELLED, ENDING (its last pieces are being saved), FORGOTTEN; null when refused
 * @param notAllowed refused because the job is another client's
 * @param unknownJob refused because the master knows no such job
 */
public record JobOutcome(String state, String message, boolean notAllowed, boolean unknownJob) {
  JobOutcome(String state, String message, boolean notAllowed) {
    this(state, message, notAllowed, false);
  }

  static JobOutcome refused(String why) {
    return new JobOutcome(null, why, false);
  }

  static JobOutcome unknown(String why) {
    return new JobOutcome(null, why, false, true);
  }

  /** A request about a job the master does not know (a result read, say): its message names the id. */
  public static final class UnknownJob extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    UnknownJob(String message) {
      super(message);
    }
  }
}
