package dev.gleaner.common.workload;

/** The units {@code [start, end)}. */
public record UnitRange(long start, long end) {
  public UnitRange {
    if (end < start) {
      throw new IllegalArgumentException("range end " + end + " is before its start " + start);
    }
  }

  public long units() {
    return end - start;
  }
}
