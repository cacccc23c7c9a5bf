package dev.gleaner.common.control;

/**
 * A job's life in the controller.
 *
 * <pre>
 *   QUEUED --enough workers--> RUNNING --every unit committed--> DONE
 *                                 |  \--deadline--> ENDING --pending commits durable--> DONE_PARTIAL
 *                                 |                    \--they complete the job--> DONE
 *                                 |  \--cancelled--> ENDING --pending commits durable--> CANCELLED
 *                                 \--a chunk failed--> FAILED
 * </pre>
 */
public enum JobPhase {
  /** Fewer workers than the job asks for; nothing planned (the store and the status say QUEUED too). */
  QUEUED,
  /** Planned and handed out. */
  RUNNING,
  /** Its deadline has passed: chunks are cancelled, pieces already received are being made durable. */
  ENDING,
  /** Every unit is committed. */
  DONE,
  /** The deadline came first: committed units form the result, the rest is listed as not done. */
  DONE_PARTIAL,
  /** A chunk could not be computed, or the job could not be planned. */
  FAILED,
  /** Someone ended it: as at a deadline, committed units form the result, the rest is listed as not done. */
  CANCELLED;

  /** Whether its work is still handed out, and a lost worker's share of it rerouted: queued or running. */
  public boolean open() {
    return this == QUEUED || this == RUNNING;
  }

  /** Whether it has ended: done, done in part, failed or cancelled. */
  public boolean ended() {
    return this == DONE || this == DONE_PARTIAL || this == FAILED || this == CANCELLED;
  }
}
