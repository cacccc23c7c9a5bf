package dev.gleaner.master;

/**
 * A worker session's life; a session exists once its worker has authenticated.
 * <pre>
 *   (authenticated) READY --drain--> DRAINING --> GONE
 *                      |                           ^
 *                      +--closed / silent----------+  (counted as an interruption)
 * </pre>
 */
enum WorkerState {
  /** Authenticated; takes chunks. */
  READY,
  /** Finishing what it has, takes nothing new. */
  DRAINING,
  /** Disconnected or declared down; its unfinished units were given back. */
  GONE
}
