package dev.gleaner.common.util;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A set of units kept as disjoint, non-adjacent half-open ranges {@code [from, to)}, in order.
 * Adding and removing cost O(log n + ranges touched); {@link #size()} is kept up to date.
 */
public final class RangeSet {
  /** Range start to range end; ranges are disjoint and never touch. */
  private final TreeMap<Long, Long> ranges = new TreeMap<>();
  private long size;

  public RangeSet() {}

  /** The set holding exactly {@code [from, to)}. */
  public static RangeSet of(long from, long to) {
    RangeSet s = new RangeSet();
    s.add(from, to);
    return s;
  }

  public RangeSet copy() {
    RangeSet s = new RangeSet();
    s.ranges.putAll(ranges);
    s.size = size;
    return s;
  }

  /** Units in the set. */
  public long size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** Adds {@code [from, to)}; returns how many units were not in the set before. */
  public long add(long from, long to) {
    if (to <= from) {
      return 0;
    }
    long before = size;
    long lo = from;
    long hi = to;
    Map.Entry<Long, Long> left = ranges.floorEntry(from);
    if (left != null && left.getValue() >= from) {
      lo = left.getKey();
      hi = Math.max(hi, left.getValue());
      remove(left);
    }
    for (Map.Entry<Long, Long> e = ranges.ceilingEntry(lo); e != null && e.getKey() <= hi; e = ranges.ceilingEntry(lo)) {
      hi = Math.max(hi, e.getValue());
      remove(e);
    }
    ranges.put(lo, hi);
    size += hi - lo;
    return size - before;
  }

  public void addAll(RangeSet other) {
    for (Map.Entry<Long, Long> e : other.ranges.entrySet()) {
      add(e.getKey(), e.getValue());
    }
  }

  /** Removes {@code [from, to)}; returns how many units were in the set. */
  public long remove(long from, long to) {
    if (to <= from) {
      return 0;
    }
    long before = size;
    Map.Entry<Long, Long> left = ranges.lowerEntry(from);
    if (left != null && left.getValue() > from) {
      long end = left.getValue();
      remove(left);
      put(left.getKey(), from);
      if (end > to) {
        put(to, end);
        return before - size;
      }
    }
    for (Map.Entry<Long, Long> e = ranges.ceilingEntry(from); e != null && e.getKey() < to; e = ranges.ceilingEntry(from)) {
      long end = e.getValue();
      remove(e);
      if (end > to) {
        put(to, end);
      }
    }
    return before - size;
  }

  /** Removes every unit. */
  public void clear() {
    ranges.clear();
    size = 0;
  }

  public void removeAll(RangeSet other) {
    if (other == this) {
      clear();
      return;
    }
    for (Map.Entry<Long, Long> e : other.ranges.entrySet()) {
      remove(e.getKey(), e.getValue());
    }
  }

  /** Whether every unit of {@code [from, to)} is in the set. */
  public boolean containsAll(long from, long to) {
    if (to <= from) {
      return true;
    }
    Map.Entry<Long, Long> e = ranges.floorEntry(from);
    return e != null && e.getValue() >= to;
  }

  /** Whether some unit of {@code [from, to)} is in the set. */
  public boolean intersects(long from, long to) {
    if (to <= from) {
      return false;
    }
    Map.Entry<Long, Long> e = ranges.floorEntry(from);
    if (e != null && e.getValue() > from) {
      return true;
    }
    Long next = ranges.ceilingKey(from);
    return next != null && next < to;
  }

  /** Units of {@code [from, to)} in the set. */
  public long overlap(long from, long to) {
    long n = 0;
    for (long[] r : within(from, to)) {
      n += r[1] - r[0];
    }
    return n;
  }

  /** The parts of {@code [from, to)} that are in the set, in order. */
  public List<long[]> within(long from, long to) {
    List<long[]> out = new ArrayList<>();
    if (to <= from) {
      return out;
    }
    Map.Entry<Long, Long> e = ranges.floorEntry(from);
    if (e == null || e.getValue() <= from) {
      e = ranges.higherEntry(from);
    }
    for (; e != null && e.getKey() < to; e = ranges.higherEntry(e.getKey())) {
      out.add(new long[] {Math.max(from, e.getKey()), Math.min(to, e.getValue())});
    }
    return out;
  }

  /** The parts of {@code [from, to)} that are not in the set, in order. */
  public List<long[]> gaps(long from, long to) {
    List<long[]> out = new ArrayList<>();
    long at = from;
    for (long[] r : within(from, to)) {
      if (r[0] > at) {
        out.add(new long[] {at, r[0]});
      }
      at = r[1];
    }
    if (at < to) {
      out.add(new long[] {at, to});
    }
    return out;
  }

  /** The ranges, in order. */
  public List<long[]> ranges() {
    List<long[]> out = new ArrayList<>(ranges.size());
    for (Map.Entry<Long, Long> e : ranges.entrySet()) {
      out.add(new long[] {e.getKey(), e.getValue()});
    }
    return out;
  }

  /** Number of disjoint ranges. */
  public int rangeCount() {
    return ranges.size();
  }

  private void remove(Map.Entry<Long, Long> e) {
    ranges.remove(e.getKey());
    size -= e.getValue() - e.getKey();
  }

  private void put(long from, long to) {
    if (to > from) {
      ranges.put(from, to);
      size += to - from;
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RangeSet other && other.ranges.equals(ranges);
  }

  @Override
  public int hashCode() {
    return ranges.hashCode();
  }

  /**
   * Reads what {@link #toString()} writes.
   *
   * @throws IllegalArgumentException if the text is not ranges written that way
   */
  public static RangeSet parse(String text) {
    RangeSet s = new RangeSet();
    String t = text.trim();
    if (t.isEmpty() || t.equals("{}")) {
      return s;
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\[\\s*(-?\\d+)\\s*,\\s*(-?\\d+)\\s*\\)").matcher(t);
    int at = 0;
    while (m.find()) {
      if (!t.substring(at, m.start()).isBlank()) {
        break;
      }
      s.add(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
      at = m.end();
    }
    if (at != t.length()) {
      throw new IllegalArgumentException("not unit ranges like '[0, 10) [20, 30)': '" + text + "'");
    }
    return s;
  }

  /** As people write it: {@code [0, 10) [20, 30)}. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<Long, Long> e : ranges.entrySet()) {
      if (sb.length() > 0) {
        sb.append(' ');
      }
      sb.append('[').append(e.getKey()).append(", ").append(e.getValue()).append(')');
    }
    return sb.length() == 0 ? "{}" : sb.toString();
  }
}
