package dev.gleaner.common.control.decide;

import dev.gleaner.common.plan.ChunkPlan;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongUnaryOperator;

/**
 * The ranges still to plan laid end to end as one range {@code [0, total)}, so any strategy can
 * plan them; plans made there are mapped back, a chunk that spans a gap becoming one chunk per
 * side.
 */
final class VirtualRanges {
  private final long[] realStart;
  private final long[] virtualStart;
  private final long total;

  VirtualRanges(List<long[]> ranges) {
    realStart = new long[ranges.size()];
    virtualStart = new long[ranges.size() + 1];
    long v = 0;
    for (int i = 0; i < ranges.size(); i++) {
      realStart[i] = ranges.get(i)[0];
      virtualStart[i] = v;
      v += ranges.get(i)[1] - ranges.get(i)[0];
    }
    virtualStart[ranges.size()] = v;
    total = v;
  }

  long total() {
    return total;
  }

  private int segment(long v) {
    int i = Arrays.binarySearch(virtualStart, 0, realStart.length, v);
    return i >= 0 ? i : -i - 2;
  }

  long toReal(long v) {
    int i = segment(v);
    return realStart[i] + (v - virtualStart[i]);
  }

  /** The workload's legal cuts, seen in virtual units; the ends of every range are legal cuts. */
  LongUnaryOperator align(LongUnaryOperator real, long jobStart, long jobEnd) {
    return v -> {
      int i = segment(v);
      if (v == virtualStart[i]) {
        return v;
      }
      long segEnd = virtualStart[i + 1];
      long r = toReal(v);
      long aligned = r > jobStart && r < jobEnd ? real.applyAsLong(r) : r;
      return Math.min(segEnd, virtualStart[i] + (aligned - realStart[i]));
    };
  }

  /** A virtual chunk as real chunks, checkpoints kept where they fall. */
  List<ChunkPlan> toReal(ChunkPlan c) {
    List<ChunkPlan> out = new ArrayList<>(1);
    long at = c.start();
    long[] cps = c.checkpoints();
    while (at < c.end()) {
      int i = segment(at);
      long segEnd = Math.min(c.end(), virtualStart[i + 1]);
      // a loop, not a stream: a plan maps 10,000 chunks back at every re-plan
      long[] inside = new long[cps.length];
      int n = 0;
      for (long x : cps) {
        if (x > at && x < segEnd) {
          inside[n++] = toReal(x);
        }
      }
      long realAt = toReal(at);
      out.add(new ChunkPlan(realAt, realAt + (segEnd - at), n == cps.length ? inside : Arrays.copyOf(inside, n)));
      at = segEnd;
    }
    return out;
  }
}
