package dev.gleaner.common.trace;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A trace as its owners' comings and goings, for a replay: the owner is present (the node is not
 * lent) whenever the trace does not have the node up.
 */
public final class OwnerSchedule {
  /**
   * At {@code at} seconds of trace time the owner of {@code node} arrives ({@code present}) or
   * leaves.
   */
  public record Change(double at, String node, boolean present) {}

  private OwnerSchedule() {}

  /**
   * Every change up to {@code horizon}, in time order (ties in the trace's node order): first, at
   * 0, each node's state at the start; then one change at each end of each up period before the
   * horizon.
   */
  public static List<Change> changes(AvailabilityTrace trace, double horizon) {
    if (!(horizon > 0)) {
      throw new IllegalArgumentException("the horizon must be positive seconds, got " + horizon);
    }
    List<Change> out = new ArrayList<>();
    int order = 0;
    Map<String, Integer> rank = new java.util.HashMap<>();
    for (String node : trace.nodes().keySet()) {
      rank.put(node, order++);
      List<AvailabilityTrace.Period> up = trace.up(node, horizon);
      boolean upAtStart = !up.isEmpty() && up.get(0).start() == 0;
      out.add(new Change(0, node, !upAtStart));
      for (AvailabilityTrace.Period p : up) {
        if (p.start() > 0) {
          out.add(new Change(p.start(), node, false));
        }
        if (p.end() < horizon) {
          out.add(new Change(p.end(), node, true));
        }
      }
    }
    out.sort(Comparator.comparingDouble(Change::at).thenComparing(c -> rank.get(c.node())));
    return out;
  }
}
