package dev.gleaner.common.control;

/**
 * A worker's state as the controller keeps it, in the words {@code gleaner status} shows.
 *
 * <pre>
 *   (joins) --> READY --drains--> DRAINING --leaves--> GONE
 *                 |  \--its owner is back--> AWAY --available again--> READY
 *                 \--lost, refused, left--> GONE --joins again--> READY
 * </pre>
 */
public enum WorkerState {
  /** Connected and taking work. */
  READY,
  /** Finishing what it holds, taking nothing new. */
  DRAINING,
  /** It vacated (its owner came back): it takes nothing until it says it is available again. */
  AWAY,
  /** Lost or left; may come back. */
  GONE;

  /** Whether it takes work. */
  public boolean ready() {
    return this == READY;
  }

  /** Whether it holds no chunks and takes nothing: away or gone. */
  public boolean down() {
    return this == AWAY || this == GONE;
  }
}
