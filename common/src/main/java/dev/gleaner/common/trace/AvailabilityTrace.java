package dev.gleaner.common.trace;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * When each node of a trace was available: its up periods, in seconds from the trace's origin (the
 * earliest start of any event), sorted, disjoint, touching periods merged. A node is taken to be
 * unavailable whenever no event of type 1 covers it: in an explicit type-0 event, in a gap between
 * events, before its first event and after its last.
 *
 * @param nodes each node's up periods, in the order the nodes first appear
 * @param origin the time, in the events' own clock (epoch seconds in FTA files), that is 0 here
 * @param length seconds from the origin to the end of the last event: the trace's horizon
 */
public record AvailabilityTrace(Map<String, List<Period>> nodes, double origin, double length) {
  /** An up period, seconds from the origin, {@code start < end}. */
  public record Period(double start, double end) {
    public double length() {
      return end - start;
    }
  }

  public AvailabilityTrace {
    Map<String, List<Period>> copy = new LinkedHashMap<>();
    nodes.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    nodes = java.util.Collections.unmodifiableMap(copy);
  }

  /**
   * The trace the events describe.
   *
   * @param where what the events were read from, for the messages
   * @throws IllegalArgumentException if there are no events, or two events of one node overlap
   *     (naming both lines)
   */
  public static AvailabilityTrace of(List<TraceEvent> events, String where) {
    if (events.isEmpty()) {
      throw new IllegalArgumentException(where + ": the trace has no events");
    }
    double origin = Double.POSITIVE_INFINITY;
    double last = Double.NEGATIVE_INFINITY;
    Map<String, List<TraceEvent>> byNode = new LinkedHashMap<>();
    for (TraceEvent e : events) {
      origin = Math.min(origin, e.start());
      last = Math.max(last, e.stop());
      byNode.computeIfAbsent(e.node(), k -> new ArrayList<>()).add(e);
    }
    Map<String, List<Period>> nodes = new LinkedHashMap<>();
    for (Map.Entry<String, List<TraceEvent>> n : byNode.entrySet()) {
      List<TraceEvent> list = new ArrayList<>(n.getValue());
      list.sort(Comparator.comparingDouble(TraceEvent::start));
      List<Period> up = new ArrayList<>();
      for (int i = 0; i < list.size(); i++) {
        TraceEvent e = list.get(i);
        if (i > 0 && list.get(i - 1).stop() > e.start()) {
          TraceEvent p = list.get(i - 1);
          throw new IllegalArgumentException(where + ": node " + n.getKey() + " has overlapping events at lines "
              + p.line() + " and " + e.line() + " ([" + p.start() + ", " + p.stop() + ") and [" + e.start() + ", "
              + e.stop() + "); keep one component's rows per node)");
        }
        if (!e.available()) {
          continue;
        }
        double s = e.start() - origin;
        double t = e.stop() - origin;
        if (!up.isEmpty() && up.get(up.size() - 1).end() == s) {
          up.set(up.size() - 1, new Period(up.get(up.size() - 1).start(), t));
        } else {
          up.add(new Period(s, t));
        }
      }
      nodes.put(n.getKey(), up);
    }
    return new AvailabilityTrace(nodes, origin, last - origin);
  }

  /** The node's up periods. */
  public List<Period> up(String node) {
    List<Period> p = nodes.get(node);
    if (p == null) {
      throw new IllegalArgumentException("the trace has no node " + node + "; its nodes: " + nodes.keySet());
    }
    return p;
  }

  /** The node's up periods cut to {@code [0, horizon)}. */
  public List<Period> up(String node, double horizon) {
    List<Period> out = new ArrayList<>();
    for (Period p : up(node)) {
      if (p.start() < horizon) {
        out.add(new Period(p.start(), Math.min(p.end(), horizon)));
      }
    }
    return out;
  }

  /** Seconds the node is up within {@code [0, horizon)}. */
  public double upSeconds(String node, double horizon) {
    double sum = 0;
    for (Period p : up(node, horizon)) {
      sum += p.length();
    }
    return sum;
  }

  /**
   * The node's times down as the simulator takes them: {@code [down, up]} pairs between its up
   * periods, and after its last one {@code [end, infinity]} (it never comes back).
   */
  public List<double[]> outages(String node) {
    List<Period> up = up(node);
    List<double[]> out = new ArrayList<>();
    for (int i = 0; i < up.size(); i++) {
      double next = i + 1 < up.size() ? up.get(i + 1).start() : Double.POSITIVE_INFINITY;
      out.add(new double[] {up.get(i).end(), next});
    }
    return out;
  }
}
