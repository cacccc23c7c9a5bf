package dev.gleaner.common.control.state;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;

/**
 * A job's planned queues, one per worker, kept sorted by backlog (units over the worker's speed,
 * a speed unknown counting as 1 unit/s): an idle worker steals from the longest one in O(log n)
 * instead of summing every queue.
 *
 * <p>A queue that changes, or whose worker's speed changes, is only marked; the marked ones are
 * sorted again before the next question, so a hand-out that moves one piece costs one re-sort.
 */
public final class Queues {
  private static final Comparator<WorkQueue> LONGEST_FIRST = (a, b) -> a.sortedAt != b.sortedAt
      ? Double.compare(b.sortedAt, a.sortedAt) : a.owner.compareTo(b.owner);

  private final Map<String, WorkQueue> byWorker = new HashMap<>();
  private final TreeSet<WorkQueue> byBacklog = new TreeSet<>(LONGEST_FIRST);
  /**
   * Queues to sort again, each once (see {@link WorkQueue#marked}): a list, since a hash set keeps
   * the table it grew to, and clearing or walking an empty one after a plan of 100,000 queues
   * costs the whole table on every question.
   */
  private final List<WorkQueue> marked = new ArrayList<>();
  private final ToDoubleFunction<String> speed;
  /** Pieces in all queues together. */
  private long pieces;

  /** @param speed a worker's speed for the job's workload (units/s), NaN when unknown */
  Queues(ToDoubleFunction<String> speed) {
    this.speed = speed;
  }

  /** The worker's queue, or null if it has none. */
  public WorkQueue get(String worker) {
    return byWorker.get(worker);
  }

  /** The worker's queue, made empty if it has none. */
  public WorkQueue of(String worker) {
    return byWorker.computeIfAbsent(worker, k -> new WorkQueue(k, this));
  }

  /** Takes the worker's queue away (null if it has none); it no longer counts here. */
  public WorkQueue remove(String worker) {
    WorkQueue q = byWorker.remove(worker);
    if (q != null) {
      unsort(q);
      // a marked queue stays in the list, detached: sortMarked passes over it
      pieces -= q.size();
      q.detach();
    }
    return q;
  }

  public void clear() {
    for (WorkQueue q : byWorker.values()) {
      q.detach();
    }
    byWorker.clear();
    byBacklog.clear();
    for (WorkQueue q : marked) {
      q.marked = false;
    }
    marked.clear();
    pieces = 0;
  }

  public Collection<WorkQueue> all() {
    return byWorker.values();
  }

  /** Whether some queue holds a piece. */
  public boolean anyQueued() {
    return pieces > 0;
  }

  /** The queue with the longest backlog other than {@code except}'s, or null if all others are empty. */
  public WorkQueue longest(String except) {
    sortMarked();
    for (WorkQueue q : byBacklog) {
      if (!q.owner.equals(except)) {
        return q;
      }
    }
    return null;
  }

  /** The worker's speed changed: its queue's backlog did. */
  public void speedChanged(String worker) {
    WorkQueue q = byWorker.get(worker);
    if (q != null) {
      mark(q);
    }
  }

  /** Called by a queue of this job when its pieces changed. */
  void changed(WorkQueue q, int piecesAdded) {
    pieces += piecesAdded;
    mark(q);
  }

  private void mark(WorkQueue q) {
    if (!q.marked) {
      q.marked = true;
      marked.add(q);
    }
  }

  /** The backlog a queue is sorted by: seconds of its units at its worker's speed (1 unit/s if unknown). */
  double backlog(WorkQueue q) {
    double s = speed.applyAsDouble(q.owner);
    return q.units() / (s > 0 ? s : 1);
  }

  private void sortMarked() {
    if (marked.isEmpty()) {
      return;
    }
    for (WorkQueue q : marked) {
      q.marked = false;
      if (!q.attached()) {
        continue;
      }
      unsort(q);
      double key = backlog(q);
      if (key > 0) {
        q.sortedAt = key;
        byBacklog.add(q);
      }
    }
    marked.clear();
  }

  private void unsort(WorkQueue q) {
    if (!Double.isNaN(q.sortedAt)) {
      byBacklog.remove(q);
      q.sortedAt = Double.NaN;
    }
  }
}
