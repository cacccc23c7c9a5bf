package dev.gleaner.worker;

/**
 * The user's program failed (it exited with an error, or wrote more than a piece may hold), not the
 * worker: its chunk fails and goes elsewhere, and the worker logs one line without a stack trace.
 */
final class ProgramFailure extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  ProgramFailure(String message) {
    super(message);
  }
}
