package dev.gleaner.master.net.port;

/**
 * What a chunk's input transfer measured, as the port judges it when the worker says it all arrived:
 * {@code clean}, its link (it did not share a bound egress, nor wait on a worker that did not read);
 * {@code own}, its rate is its link's own (no other worker's stream was on the wire beside it, or it
 * came well below its fair share of the egress beside them: its link held it), so that a rate far
 * below what the link did shows it dropped; {@code seconds}, how long its bytes took.
 */
public record InputArrival(boolean clean, boolean own, double seconds) {
  /**
   * A worker's span this much shorter than the port's says the worker read the first bytes late: they
   * waited in its socket buffer, and the span leaves out the time they took to get there.
   */
  static final double LATE_READ = 0.9;
  /**
   * Whether a worker's span of {@code workerSeconds}, beside the port's {@code portSeconds}, says it
   * read late. The port's time holds a round trip and the handling of the worker's word beside the
   * transfer (a few milliseconds here); on a transfer so short that they pass a tenth of it, the
   * port's time is taken too, a little long, rather than a span that may be a late read's: a link
   * measured high makes the egress look bound (links seemingly faster than what went), and the plan
   * then keeps them apart.
   */
  static boolean readLate(double workerSeconds, double portSeconds) {
    return workerSeconds < LATE_READ * portSeconds;
  }

  /** A transfer the port does not know (its stream ended already): the worker's own time, measuring nothing. */
  static InputArrival unknown(double seconds) {
    return new InputArrival(false, false, seconds);
  }
}
