package dev.gleaner.common.plan;

import java.util.Arrays;

/**
 * The units {@code [start, end)} handed out as one piece of work, with the positions where the
 * worker checkpoints (strictly inside the range, increasing).
 */
public record ChunkPlan(long start, long end, long[] checkpoints) {
  public ChunkPlan {
    if (end <= start) {
      throw new IllegalArgumentException("empty chunk [" + start + ", " + end + ")");
    }
    checkpoints = checkpoints.clone();
    long previous = start;
    for (long c : checkpoints) {
      if (c <= previous || c >= end) {
        throw new IllegalArgumentException("checkpoints " + Arrays.toString(checkpoints)
            + " must increase strictly inside [" + start + ", " + end + ")");
      }
      previous = c;
    }
  }

  public long units() {
    return end - start;
  }

  @Override
  public long[] checkpoints() {
    return checkpoints.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ChunkPlan other && other.start == start && other.end == end
        && Arrays.equals(other.checkpoints, checkpoints);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(start) * 31 + Long.hashCode(end) * 17 + Arrays.hashCode(checkpoints);
  }

  @Override
  public String toString() {
    return "[" + start + ", " + end + ")" + (checkpoints.length == 0 ? "" : " cp=" + Arrays.toString(checkpoints));
  }
}
