package dev.gleaner.common.control.state;

import dev.gleaner.common.plan.ChunkPlan;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;

/**
 * Pieces waiting in order: one worker's planned queue, or a job's pool. It counts its units as it
 * changes and tells its {@link Queues} so, which keeps the queues ordered by backlog without
 * summing them again.
 */
public final class WorkQueue implements Iterable<ChunkPlan> {
  /** The worker it is planned for; null for a job's pool. */
  public final String owner;
  /** The job's queues it belongs to; null for a pool, or once taken away from them. */
  private Queues queues;
  private final ArrayDeque<ChunkPlan> items = new ArrayDeque<>();
  private long units;
  /** The backlog under which {@link Queues} has it sorted; NaN while it is not sorted. */
  double sortedAt = Double.NaN;
  /** Whether {@link Queues} is to sort it again. */
  boolean marked;

  WorkQueue(String owner, Queues queues) {
    this.owner = owner;
    this.queues = queues;
  }

  /** It no longer belongs to its job's queues (it was taken away whole). */
  void detach() {
    queues = null;
  }

  boolean attached() {
    return queues != null;
  }

  public long units() {
    return units;
  }

  public int size() {
    return items.size();
  }

  public boolean isEmpty() {
    return items.isEmpty();
  }

  public ChunkPlan peekFirst() {
    return items.peekFirst();
  }

  public void addFirst(ChunkPlan c) {
    items.addFirst(c);
    added(c.units(), 1);
  }

  public void addLast(ChunkPlan c) {
    items.addLast(c);
    added(c.units(), 1);
  }

  public void addAll(Collection<ChunkPlan> cs) {
    long u = 0;
    for (ChunkPlan c : cs) {
      items.addLast(c);
      u += c.units();
    }
    added(u, cs.size());
  }

  public ChunkPlan pollFirst() {
    ChunkPlan c = items.pollFirst();
    if (c != null) {
      added(-c.units(), -1);
    }
    return c;
  }

  public ChunkPlan pollLast() {
    ChunkPlan c = items.pollLast();
    if (c != null) {
      added(-c.units(), -1);
    }
    return c;
  }

  public void clear() {
    added(-units, -items.size());
    items.clear();
  }

  private void added(long u, int pieces) {
    units += u;
    if (queues != null) {
      queues.changed(this, pieces);
    }
  }

  /** Its pieces in order, a copy. */
  public java.util.List<ChunkPlan> toList() {
    return java.util.List.copyOf(items);
  }

  /** Its pieces in order, read-only. */
  @Override
  public Iterator<ChunkPlan> iterator() {
    return Collections.unmodifiableCollection(items).iterator();
  }

  @Override
  public String toString() {
    return (owner == null ? "pool" : owner) + items;
  }
}
