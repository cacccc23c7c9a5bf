package dev.gleaner.common.sim;

import java.util.ArrayDeque;
import java.util.Deque;

/** A simulated worker as the run goes: up or not, the chunks it holds, and the piece it is computing. */
final class SimHost {
  final ClosedLoop.Host host;
  boolean up;
  double upSince;
  /** The chunks it holds, in the order it computes them. */
  final Deque<SimChunk> chunks = new ArrayDeque<>();
  /** The chunk of its piece under way (null: none), the piece's range and when it started. */
  SimChunk computing;
  long pieceFrom;
  long pieceTo;
  double pieceStart;
  /** Raised whenever the piece under way changes or stops, so that the end scheduled for it is ignored. */
  long token;

  SimHost(ClosedLoop.Host host) {
    this.host = host;
  }

  /** Units computed of its piece under way by {@code now} (a fraction of one included). */
  double computed(double now) {
    return Math.min(pieceTo - pieceFrom, Math.max(0, host.speed() * (now - pieceStart)));
  }

  /** The last whole unit it has reached in its piece under way by {@code now} (its start if none). */
  long reached(double now) {
    return pieceFrom + (long) Math.floor(computed(now));
  }

  SimChunk find(long chunkId) {
    for (SimChunk c : chunks) {
      if (c.id == chunkId) {
        return c;
      }
    }
    return null;
  }
}
