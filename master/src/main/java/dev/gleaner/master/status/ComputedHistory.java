package dev.gleaner.master.status;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The units all workers computed per second over the last hour, a point every
 * {@link #STEP_MILLIS}: what the web page's chart starts from, so that a page opened in the middle
 * of a job does not start empty. Made from the counts the workers send in their heartbeats (work
 * between checkpoints included). Used on the control loop's thread only.
 */
final class ComputedHistory {
  static final long STEP_MILLIS = 10_000;
  /** An hour of points. */
  static final int POINTS = 360;

  /** A point: the rate over the step that ends at {@code atMillis}. */
  record Point(long atMillis, double unitsPerSecond) {}

  private final ArrayDeque<Point> points = new ArrayDeque<>();
  private final Map<String, Long> last = new HashMap<>();
  private long lastAt = Long.MIN_VALUE;

  /** Whether a sample taken now would make a point (or start the series): cheap, for the loop's ticks. */
  boolean due(long atMillis) {
    return lastAt == Long.MIN_VALUE || atMillis - lastAt >= STEP_MILLIS;
  }

  /**
   * The workers' counts now (worker id to units its process computed so far). A worker that was not
   * in the last sample, or whose count went down (a restarted process), adds nothing to this step.
   */
  void sample(long atMillis, Map<String, Long> counts) {
    if (!due(atMillis)) {
      return;
    }
    if (lastAt != Long.MIN_VALUE && atMillis > lastAt) {
      long delta = 0;
      for (Map.Entry<String, Long> e : counts.entrySet()) {
        Long before = last.get(e.getKey());
        if (before != null && e.getValue() >= before) {
          delta += e.getValue() - before;
        }
      }
      points.addLast(new Point(atMillis, delta * 1000.0 / (atMillis - lastAt)));
      if (points.size() > POINTS) {
        points.removeFirst();
      }
    }
    last.clear();
    last.putAll(counts);
    lastAt = atMillis;
  }

  List<Point> points() {
    return List.copyOf(points);
  }
}
