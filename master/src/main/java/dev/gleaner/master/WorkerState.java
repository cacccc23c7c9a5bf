package dev.gleaner.master;

/**
 * A worker session's life.
 * <pre>
 *   HANDSHAKE --authenticated--> READY --drain--> DRAINING --> GONE
 *                                  |                            ^
 *                                  +--closed / silent-----------+  (counted as an interruption)
 * </pre>
 */
enum WorkerState {
  /** Connected, not yet authenticated. */
  HANDSHAKE,
  /** Authenticated; takes chunks. */
  READY,
  /** Finishing what it has, takes nothing new. */
  DRAINING,
  /** Disconnected or declared down; its unfinished units were given back. */
  GONE
}
