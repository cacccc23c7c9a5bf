package dev.gleaner.common.model;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The workers available to a job, in no particular order; ids are unique. */
public record Platform(List<Worker> workers) {
  public Platform {
    workers = List.copyOf(workers);
    if (workers.isEmpty()) {
      throw new IllegalArgumentException("a platform needs at least one worker");
    }
    Set<String> ids = new HashSet<>();
    for (Worker w : workers) {
      if (!ids.add(w.id())) {
        throw new IllegalArgumentException("duplicate worker id: " + w.id());
      }
    }
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
