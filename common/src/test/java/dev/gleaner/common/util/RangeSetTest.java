package dev.gleaner.common.util;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

/** The range set against a boolean array over a small universe. */
class RangeSetTest {
  private static final int UNIVERSE = 64;

  @Property(tries = 500)
  void behavesLikeASetOfUnits(@ForAll @Size(max = 40) List<@IntRange(min = 0, max = UNIVERSE * 3 - 1) Integer> ops) {
    RangeSet set = new RangeSet();
    boolean[] ref = new boolean[UNIVERSE];
    for (int op : ops) {
      int kind = op / UNIVERSE;
      int from = op % UNIVERSE;
      int to = Math.min(UNIVERSE, from + 1 + (op * 31 % 9));
      long before = count(ref, from, to);
      if (kind == 0) {
        assertEquals((to - from) - before, set.add(from, to));
        fill(ref, from, to, true);
      } else if (kind == 1) {
        assertEquals(before, set.remove(from, to));
        fill(ref, from, to, false);
      }
      assertEquals(count(ref, from, to) == to - from, set.containsAll(from, to));
      assertEquals(count(ref, from, to) > 0, set.intersects(from, to));
      assertEquals(count(ref, from, to), set.overlap(from, to));
      assertEquals(count(ref, 0, UNIVERSE), set.size());
      assertEquals(ranges(ref), toText(set.ranges()));
      long gapUnits = 0;
      for (long[] g : set.gaps(from, to)) {
        for (long u = g[0]; u < g[1]; u++) {
          assertEquals(false, ref[(int) u]);
        }
        gapUnits += g[1] - g[0];
      }
      assertEquals((to - from) - count(ref, from, to), gapUnits);
    }
  }

  @Test
  void rangesThatTouchMerge() {
    RangeSet s = new RangeSet();
    s.add(0, 10);
    s.add(10, 20);
    s.add(30, 40);
    assertEquals("[0, 20) [30, 40)", s.toString());
    s.remove(5, 35);
    assertEquals("[0, 5) [35, 40)", s.toString());
    assertEquals(s, RangeSet.parse(s.toString()));
    s.removeAll(s);
    assertEquals(0, s.size());
    assertEquals(s, RangeSet.parse(s.toString()));
  }

  private static long count(boolean[] ref, int from, int to) {
    long n = 0;
    for (int i = from; i < to; i++) {
      n += ref[i] ? 1 : 0;
    }
    return n;
  }

  private static void fill(boolean[] ref, int from, int to, boolean v) {
    for (int i = from; i < to; i++) {
      ref[i] = v;
    }
  }

  private static String ranges(boolean[] ref) {
    List<long[]> out = new ArrayList<>();
    for (int i = 0; i < ref.length; i++) {
      if (ref[i] && (i == 0 || !ref[i - 1])) {
        int j = i;
        while (j < ref.length && ref[j]) {
          j++;
        }
        out.add(new long[] {i, j});
      }
    }
    return toText(out);
  }

  private static String toText(List<long[]> ranges) {
    StringBuilder sb = new StringBuilder();
    for (long[] r : ranges) {
      sb.append(r[0]).append('-').append(r[1]).append(' ');
    }
    return sb.toString();
  }
}
