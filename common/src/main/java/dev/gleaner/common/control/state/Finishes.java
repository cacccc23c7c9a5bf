package dev.gleaner.common.control.state;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * A job's running chunks by when their holders would finish them: the chunk an idle worker splits
 * (the one that would finish last) in O(log n), without scanning every chunk.
 *
 * <p>A holder computes its chunks in order, and only the first one progresses with time (see
 * {@link Chunk#secondsLeft}). The chunk of a holder that would finish last is its last one that
 * may be split; with {@code s} the holder's speed, {@code R} the seconds of the chunks between its
 * first and that one, and {@code E} the instant its first chunk would be done
 * ({@code progressAt + (end - cursor) / s}), that chunk is done {@code max(0, E - now) + R} seconds
 * from now, that is {@code max(A, B - now)} with {@code A = R} and {@code B = E + R}. (A first
 * chunk not started yet counts whole in {@code A}, and {@code B} is then minus infinity.) Neither
 * {@code A} nor {@code B} moves with the clock; they change only when the holder's chunks or its
 * speed do, which is when the holder is re-filed. The chunk that finishes last over all holders is
 * then the holder with the largest {@code A} or the one with the largest {@code B}, whichever
 * gives more: {@code max_h max(A_h, B_h - now) = max(max_h A_h, max_h B_h - now)}.
 */
public final class Finishes {
  /** A holder's chunk that would finish last, filed under its two keys. */
  private record Entry(Chunk chunk, double a, double b) {}

  private static final Comparator<Entry> BY_A = (x, y) -> x.a() != y.a() ? Double.compare(y.a(), x.a())
      : Long.compare(x.chunk().id, y.chunk().id);
  private static final Comparator<Entry> BY_B = (x, y) -> x.b() != y.b() ? Double.compare(y.b(), x.b())
      : Long.compare(x.chunk().id, y.chunk().id);

  private final JobLedger job;
  private final Map<Member, Entry> byHolder = new HashMap<>();
  private final TreeSet<Entry> byA = new TreeSet<>(BY_A);
  private final TreeSet<Entry> byB = new TreeSet<>(BY_B);

  Finishes(JobLedger job) {
    this.job = job;
  }

  /** Files the holder again from its chunks as they are now, at its speed {@code s} for this job. */
  public void refile(Member m, double s) {
    Entry old = byHolder.remove(m);
    if (old != null) {
      byA.remove(old);
      byB.remove(old);
    }
    Entry e = entry(m, s);
    if (e != null) {
      byHolder.put(m, e);
      byA.add(e);
      byB.add(e);
    }
  }

  public void clear() {
    byHolder.clear();
    byA.clear();
    byB.clear();
  }

  /** The chunk that would finish last, if it finishes more than {@code threshold} seconds from now; else null. */
  public Chunk latest(double now, double threshold) {
    Entry a = byA.isEmpty() ? null : byA.first();
    Entry b = byB.isEmpty() ? null : byB.first();
    double va = a == null ? Double.NEGATIVE_INFINITY : a.a();
    double vb = b == null ? Double.NEGATIVE_INFINITY : b.b() - now;
    Entry best = va > vb || va == vb && a != null && (b == null || a.chunk().id <= b.chunk().id) ? a : b;
    double v = Math.max(va, vb);
    return best != null && v > threshold ? best.chunk() : null;
  }

  /** The holder's entry for this job: its last chunk that may be split, with its keys; null if none. */
  private Entry entry(Member m, double s) {
    if (!(s > 0) || m.chunks.isEmpty()) {
      return null;
    }
    int last = -1;
    for (int i = m.chunks.size() - 1; i >= 0; i--) {
      Chunk k = m.chunks.get(i);
      if (k.job == job && k.splittable()) {
        last = i;
        break;
      }
    }
    if (last < 0) {
      return null;
    }
    Chunk first = m.chunks.get(0);
    boolean computing = first.computing();
    double rest = 0;
    for (int i = computing ? 1 : 0; i <= last; i++) {
      Chunk k = m.chunks.get(i);
      rest += (k.end - k.cursor) / s;
    }
    double b = computing ? first.progressAt + (first.end - first.cursor) / s + rest : Double.NEGATIVE_INFINITY;
    return new Entry(m.chunks.get(last), rest, b);
  }
}
