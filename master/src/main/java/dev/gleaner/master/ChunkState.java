package dev.gleaner.master;

/** Where a chunk is in its life; see the diagram in {@code package-info.java}. */
enum ChunkState {
  /** Waiting for a worker, in a worker's planned queue or in the shared pool. */
  QUEUED,
  /** Assigned to a worker that is computing it; pieces may have been committed. */
  RUNNING,
  /** Every unit committed. */
  DONE,
  /** Its worker went down; the un-checkpointed rest lives on as a new chunk. */
  REROUTED
}
