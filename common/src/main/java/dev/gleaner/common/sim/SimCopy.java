package dev.gleaner.common.sim;

import dev.gleaner.common.control.Action;

/** A copy a simulated worker holds: its range, its checkpoints, how far it has saved, whether its input is there. */
final class SimCopy {
  final String job;
  final long id;
  long end;
  final long[] checkpoints;
  /** The end of its last saved piece. */
  long cursor;
  /** Its whole input has arrived (a copy without input is ready at once). */
  boolean ready;
  /** Finished, cancelled, or lost with its worker: its streams are dropped. */
  boolean gone;

  SimCopy(Action.Assign a) {
    job = a.job();
    id = a.copyId();
    end = a.end();
    checkpoints = a.checkpoints();
    cursor = a.start();
    ready = a.inputBytes() == 0;
  }
}
