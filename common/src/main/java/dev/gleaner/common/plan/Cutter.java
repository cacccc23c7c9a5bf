package dev.gleaner.common.plan;

import java.util.ArrayList;
import java.util.List;

/** Cuts unit ranges into chunks and checkpoints, honouring the workload's legal cut points. */
final class Cutter {
  private Cutter() {}

  /**
   * Cuts {@code [start, end)} at the given proposed sizes (the last piece takes the remainder),
   * aligning each cut; empty pieces after alignment disappear.
   */
  static List<long[]> cut(long start, long end, long[] sizes, java.util.function.LongUnaryOperator align) {
    List<long[]> ranges = new ArrayList<>();
    long at = start;
    for (int i = 0; i < sizes.length && at < end; i++) {
      long cut = i == sizes.length - 1 ? end : Math.min(end, at + Math.max(1, sizes[i]));
      if (cut < end) {
        cut = Math.min(end, align.applyAsLong(cut));
      }
      if (cut > at) {
        ranges.add(new long[] {at, cut});
        at = cut;
      }
    }
    if (at < end) {
      ranges.add(new long[] {at, end});
    }
    return ranges;
  }

  /** Splits {@code total} into {@code parts} sizes that differ by at most one. */
  static long[] even(long total, int parts) {
    long[] sizes = new long[parts];
    for (int i = 0; i < parts; i++) {
      sizes[i] = total / parts + (i < total % parts ? 1 : 0);
    }
    return sizes;
  }

  /** A chunk over [start, end) with {@code checkpoints} evenly spaced, aligned checkpoints. */
  static ChunkPlan chunk(long start, long end, int checkpoints, java.util.function.LongUnaryOperator align) {
    int pieces = (int) Math.min(checkpoints + 1L, end - start);
    List<long[]> parts = cut(start, end, even(end - start, Math.max(1, pieces)), align);
    long[] cps = new long[parts.size() - 1];
    for (int i = 0; i < cps.length; i++) {
      cps[i] = parts.get(i)[1];
    }
    return new ChunkPlan(start, end, cps);
  }
}
