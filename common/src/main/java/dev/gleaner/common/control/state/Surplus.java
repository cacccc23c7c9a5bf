package dev.gleaner.common.control.state;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * A job's workers that hold more chunks than the window, by how many, each filed with its last
 * chunk if that chunk is of this job and may move: where a worker with nothing in hand takes a chunk
 * its holder has not started (a late arrival after the pool ran dry), in O(log n).
 */
public final class Surplus {
  /** A holder with more chunks than the window, and the chunk it would start last. */
  private record Entry(Chunk chunk, int held) {}

  private static final Comparator<Entry> MOST_FIRST = (x, y) -> x.held() != y.held()
      ? Integer.compare(y.held(), x.held()) : Long.compare(x.chunk().id, y.chunk().id);

  private final JobLedger job;
  private final Map<Member, Entry> byHolder = new HashMap<>();
  private final TreeSet<Entry> byHeld = new TreeSet<>(MOST_FIRST);

  Surplus(JobLedger job) {
    this.job = job;
  }

  /** Files the holder again from its chunks as they are now. */
  public void refile(Member m, int window) {
    Entry old = byHolder.remove(m);
    if (old != null) {
      byHeld.remove(old);
    }
    int n = m.chunks.size();
    if (n > window) {
      Chunk last = m.chunks.get(n - 1);
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

  /** The last chunk of the worker that holds most beyond the window, other than {@code except}; null if none. */
  public Chunk most(Member except) {
    for (Entry e : byHeld) {
      if (e.chunk().worker != except) {
        return e.chunk();
      }
    }
    return null;
  }
}
