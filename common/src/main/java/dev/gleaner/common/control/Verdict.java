package dev.gleaner.common.control;

/** What to do with a piece a worker reported. */
public enum Verdict {
  /** New units: make them durable, then acknowledge and tell the controller they are committed. */
  COMMIT,
  /** Units already committed (a retransmission, or another chunk's): acknowledge, count nothing. */
  DUPLICATE,
  /** Units that cannot count (a chunk that was cancelled, a job that ended, a partial overlap): acknowledge, count nothing. */
  DISCARD,
  /** Not a piece of a chunk this worker holds, or not the next one: a protocol error. */
  REFUSE,
  /**
   * The whole of a check: units committed before, computed again by another worker. Compare its
   * result with the committed one, acknowledge it, and tell {@link Controller#checked}.
   */
  CHECK,
  /**
   * The whole of a tie-break: a third result for units whose check disagreed. Compare it with the
   * committed result and with the dissenting check's; if it agrees with the dissent, the committed
   * result is replaced by it; then acknowledge it and tell {@link Controller#checked}.
   */
  TIE_BREAK
}
