package dev.gleaner.common.control.state;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * A job's workers that hold more copies than the window, by how many, each filed with its last
 * copy if that copy is of this job and may move: where a worker with nothing in hand takes a copy
 * its holder has not started (a late arrival after the pool ran dry), in O(log n).
 */
public final class Surplus {
  /** A holder with more copies than the window, and the copy it would start last. */
  private record Entry(Copy copy, int held) {}

  private static final Comparator<Entry> MOST_FIRST = (x, y) -> x.held() != y.held()
      ? Integer.compare(y.held(), x.held()) : Long.compare(x.copy().id, y.copy().id);

  private final JobLedger job;
  private final Map<Member, Entry> byHolder = new HashMap<>();
  private final TreeSet<Entry> byHeld = new TreeSet<>(MOST_FIRST);

  Surplus(JobLedger job) {
    this.job = job;
  }

  /** Files the holder again from its copies as they are now. */
  public void refile(Member m, int window) {
    Entry old = byHolder.remove(m);
    if (old != null) {
      byHeld.remove(old);
    }
    int n = m.copies.size();
    if (n > window) {
      Copy last = m.copies.get(n - 1);
      if (last.job == job && last.movable()) {
        Entry e = new Entry(last, n);
        byHolder.put(m, e);
        byHeld.add(e);
      }
    }
  }

  public void clear() {
    byHolder.clear();
    byHeld.clear();
  }

  /** The last copy of the worker that holds most beyond the window, other than {@code except}; null if none. */
  public Copy most(Member except) {
    for (Entry e : byHeld) {
      if (e.copy().worker != except) {
        return e.copy();
      }
    }
    return null;
  }
}
