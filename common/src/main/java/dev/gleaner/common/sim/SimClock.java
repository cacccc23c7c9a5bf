package dev.gleaner.common.sim;

import java.util.PriorityQueue;

/**
 * The closed loop's discrete-event clock: events run in order of time, and in the order they were
 * scheduled at the same time.
 *
 * <p>One sequence numbers both the events and the port's streams (which queue by rank, then by
 * that number), so that a run is the same, event for event, however the loop is laid out: the same
 * seed gives the same figures.
 */
final class SimClock {
  private record Event(double at, long seq, Runnable run) {}

  private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) ->
      a.at != b.at ? Double.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
  private long seq;
  private double now;

  /** The time of the event being run, seconds. */
  double now() {
    return now;
  }

  /** Runs {@code r} at time {@code t}, after everything scheduled before it for that time. */
  void at(double t, Runnable r) {
    events.add(new Event(t, next(), r));
  }

  /** The next number of the sequence events and streams share. */
  long next() {
    return seq++;
  }

  /**
   * Runs the next event if there is one due by {@code horizon}, its time becoming now.
   *
   * @return false if none is left or the next is past the horizon (it is dropped)
   */
  boolean step(double horizon) {
    Event e = events.poll();
    if (e == null || e.at > horizon) {
      return false;
    }
    now = e.at;
    e.run.run();
    return true;
  }
}
