package dev.gleaner.common.sim;

import dev.gleaner.common.control.Action;

/** A chunk a simulated worker holds: its range, its checkpoints, how far it has saved, how far its input is there. */
final class SimChunk {
  final String job;
  final long id;
  long end;
  final long[] checkpoints;
  /** The end of its last saved piece. */
  long cursor;
  /**
   * The unit up to which its input has arrived (the stream sends it in order); {@link Long#MAX_VALUE}
   * once it is all there, and at once for a chunk without input.
   */
  long arrived;
  /** Finished, cancelled, or lost with its worker: its streams are dropped. */
  boolean gone;

  SimChunk(Action.Assign a) {
    job = a.job();
    id = a.chunkId();
    end = a.end();
    checkpoints = a.checkpoints();
    cursor = a.start();
    arrived = a.inputBytes() == 0 ? Long.MAX_VALUE : a.start();
  }

  /** Whether the input of its units up to {@code to} is there: a piece starts only then, as on a real worker. */
  boolean inputThere(long to) {
    return arrived >= to;
  }

  /** The input is there up to unit {@code at}. */
  void arrivedTo(long at) {
    arrived = Math.max(arrived, at);
  }

  /**
   * Where the next piece boundary past unit {@code after} is (a checkpoint), or {@code limit} if none
   * comes before it: the next moment a stream's progress lets a piece start.
   */
  long nextBoundary(long after, long limit) {
    int i = java.util.Arrays.binarySearch(checkpoints, after);
    i = i >= 0 ? i + 1 : -i - 1;
    return i < checkpoints.length && checkpoints[i] < limit ? checkpoints[i] : limit;
  }
}
