package dev.gleaner.master.loop;

/**
 * What a cancel or a forget did: the job's state after it, or why it could not be done.
 *
 * @param state CANCELLED, ENDING (its last pieces are being saved), FORGOTTEN; null when refused
 * @param notAllowed refused because the job is another client's
 */
public record JobOutcome(String state, String message, boolean notAllowed) {
  static JobOutcome refused(String why) {
    return new JobOutcome(null, why, false);
  }
}
