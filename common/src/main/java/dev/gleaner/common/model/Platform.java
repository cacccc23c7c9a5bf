package dev.gleaner.common.model;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The workers available to a job, in no particular order; ids are unique.
 *
 * @param workers the workers
 * @param parents for workers (and relays) reached through another node (a sub-master or a relay),
 *     that node's id; the others hang off the master directly. A node's bandwidth is that of the
 *     link from its parent.
 * @param relays nodes that forward and do not compute (paper 002's inner nodes with no work of
 *     their own; {@code gleaner relay}), by id: the bandwidth of the link from their parent, in
 *     units per second
 */
public record Platform(List<Worker> workers, Map<String, String> parents, Map<String, Double> relays) {
  /** Every worker connected to the master directly. */
  public Platform(List<Worker> workers) {
    this(workers, Map.of(), Map.of());
  }

  /** A tree of workers, none a relay. */
  public Platform(List<Worker> workers, Map<String, String> parents) {
    this(workers, parents, Map.of());
  }

  public Platform {
    workers = List.copyOf(workers);
    parents = Map.copyOf(parents);
    relays = Map.copyOf(relays);
    if (workers.isEmpty()) {
      throw new IllegalArgumentException("a platform needs at least one worker");
    }
    Set<String> ids = new HashSet<>();
    for (Worker w : workers) {
      if (!ids.add(w.id())) {
        throw new IllegalArgumentException("duplicate worker id: " + w.id());
      }
    }
    for (Map.Entry<String, Double> r : relays.entrySet()) {
      if (!ids.add(r.getKey())) {
        throw new IllegalArgumentException("duplicate id: " + r.getKey() + " (a relay and a worker)");
      }
      if (!(r.getValue() > 0)) {
        throw new IllegalArgumentException("relay " + r.getKey() + ": bandwidth must be positive, got " + r.getValue());
      }
    }
    for (Map.Entry<String, String> e : parents.entrySet()) {
      if (!ids.contains(e.getKey()) || !ids.contains(e.getValue())) {
        throw new IllegalArgumentException(e.getKey() + " hangs off unknown node " + e.getValue());
      }
      // walking up must reach the master: no cycles
      String at = e.getValue();
      for (int steps = 0; at != null; steps++) {
        if (steps > parents.size()) {
          throw new IllegalArgumentException("worker " + e.getKey() + " is in a cycle of sub-masters");
        }
        at = parents.get(at);
      }
    }
  }

  /** Whether some worker is reached through another. */
  public boolean isTree() {
    return !parents.isEmpty();
  }

  /** The workers by id. */
  public Map<String, Worker> byId() {
    Map<String, Worker> byId = new HashMap<>();
    for (Worker w : workers) {
      byId.put(w.id(), w);
    }
    return byId;
  }

  public int size() {
    return workers.size();
  }

  public double totalSpeed() {
    double sum = 0;
    for (Worker w : workers) {
      sum += w.speed();
    }
    return sum;
  }
}
