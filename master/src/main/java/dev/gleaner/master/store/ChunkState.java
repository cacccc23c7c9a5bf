package dev.gleaner.master.store;

/**
 * A chunk record's state, the word the {@code chunks} table holds.
 *
 * <pre>
 *   ASSIGNED --its final piece committed--> DONE
 *       |  \--its copy cancelled--> CANCELLED
 *        \--its worker lost, its unsaved units gone to others--> WITHDRAWN
 * </pre>
 */
public enum ChunkState {
  /** Handed out to a worker (recorded before it is sent): a restarted master knows the worker holds it. */
  ASSIGNED,
  /** Its final piece is committed (a chunk first seen in its final piece is recorded as DONE at once). */
  DONE,
  /** Its copy was cancelled: what its worker reports from then on is not counted. */
  CANCELLED,
  /** Its worker was lost or set aside and its unsaved units went to others: a restart reserves nothing for it. */
  WITHDRAWN
}
