package dev.gleaner.common.sim;

import dev.gleaner.common.control.Action;

/** A chunk a simulated worker holds: its range, its checkpoints, how far it has saved, whether its input is there. */
final class SimChunk {
  final String job;
  final long id;
  long end;
  final long[] checkpoints;
  /** The end of its last saved piece. */
  long cursor;
  /** Its whole input has arrived (a chunk without input is ready at once). */
  boolean ready;
  /** Finished, cancelled, or lost with its worker: its streams are dropped. */
  boolean gone;

  SimChunk(Action.Assign a) {
    job = a.job();
    id = a.chunkId();
    end = a.end();
    checkpoints = a.checkpoints();
    cursor = a.start();
    ready = a.inputBytes() == 0;
  }
}
