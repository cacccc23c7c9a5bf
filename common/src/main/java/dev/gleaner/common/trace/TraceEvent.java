package dev.gleaner.common.trace;

/**
 * One row of an availability trace: a node was available (or not) from {@code start} to
 * {@code stop}, seconds.
 *
 * @param node the node's id (the FTA's {@code node_id}); the worker id it is simulated and replayed as
 * @param available the FTA's {@code event_type}: 1 (true) available, 0 (false) not
 * @param start seconds, the FTA's {@code event_start_time}
 * @param stop seconds, the FTA's {@code event_stop_time}, after {@code start}
 * @param line the line of the text it was read from (1-based), 0 for an event that was not read
 */
public record TraceEvent(String node, boolean available, double start, double stop, int line) {
  public TraceEvent {
    if (node == null || node.isBlank()) {
      throw new IllegalArgumentException("a trace event needs a node id");
    }
    if (!Double.isFinite(start) || !Double.isFinite(stop) || !(stop > start)) {
      throw new IllegalArgumentException("trace event of node " + node + ": stop " + stop
          + " must be a finite time after start " + start);
    }
  }
}
