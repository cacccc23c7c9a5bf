package dev.gleaner.master.net;

/**
 * What a chunk's input transfer measured, as the port judges it when the worker says it all arrived:
 * {@code clean}, its link (it did not share a bound egress, nor wait on a worker that did not read);
 * {@code alone}, no other worker's stream was on the wire beside it; {@code seconds}, how long its
 * bytes took.
 */
record InputArrival(boolean clean, boolean alone, double seconds) {
  /**
   * A worker's span this much shorter than the port's says the worker read the first bytes late: they
   * waited in its socket buffer, and the span leaves out the time they took to get there.
   */
  static final double LATE_READ = 0.9;
  /**
   * And at least this much shorter, seconds: the port's time holds a round trip and the handling of
   * the worker's word beside the transfer, which on a short transfer is more than a tenth.
   */
  static final double LATE_READ_SECONDS = 0.02;

  /** Whether a worker's span of {@code workerSeconds}, beside the port's {@code portSeconds}, says it read late. */
  static boolean readLate(double workerSeconds, double portSeconds) {
    return workerSeconds < LATE_READ * portSeconds && portSeconds - workerSeconds > LATE_READ_SECONDS;
  }

  /** A transfer the port does not know (its stream ended already): the worker's own time, measuring nothing. */
  static InputArrival unknown(double seconds) {
    return new InputArrival(false, false, seconds);
  }
}
