package dev.gleaner.master;

/** A job's life. */
enum JobState {
  /** Accepted and stored; waiting for enough workers to be planned. */
  QUEUED,
  /** Planned; chunks are being computed. */
  RUNNING,
  /** Every unit committed and the results merged. */
  DONE,
  /** Stopped by an error that retrying cannot fix (a workload that rejects its input, a store failure). */
  FAILED
}
