package dev.gleaner.common.recovery;

import java.util.Arrays;
import java.util.BitSet;

/**
 * The trapezium scheme (Paper V): an optimal Golomb ruler with l differences, whose first l crash
 * routes are therefore disjoint, extended by l(l+1)/2 - l further steps, each the smallest that
 * leaves its crash route at least l computers not on an earlier route; then the remaining computers.
 * Theorem 1 guarantees L = MV for up to l(l+1)/2 + l - 1 crashes. The largest l whose construction
 * stays below n is used.
 *
 * <p>Crash route C_y = (s_1 + ... + s_y, s_2 + ... + s_y, ..., s_y): the offsets of the computers
 * that must be down for the process y steps away to arrive. For n = 19 the construction gives the
 * paper's own example S = (1, 3, 2, 5, 2, 5).
 */
public final class TrapeziumScheme implements SchemeGenerator {
  @Override
  public String name() {
    return "trapezium";
  }

  @Override
  public String summary() {
    return "Golomb ruler with l steps, extended so each later crash route has l fresh computers";
  }

  @Override
  public RecoveryScheme build(int n) {
    return RecoveryScheme.regular(name(), n, head(n));
  }

  @Override
  public int guaranteed(int n) {
    int l = ruler(n);
    return l == 0 ? 0 : l * (l + 1) / 2 + l - 1;
  }

  /** The l of the construction used for n (0 when n is too small for any). */
  static int ruler(int n) {
    for (int l = GolombRulers.longest(); l >= 1; l--) {
      if (steps(n, l) != null) {
        return l;
      }
    }
    return 0;
  }

  static int[] head(int n) {
    int l = ruler(n);
    return l == 0 ? new int[0] : SchemeGenerator.partialSumsBelow(n, steps(n, l));
  }

  /** Search nodes per l when looking for extension steps that fit below n. */
  static final int SEARCH_BUDGET = 200_000;

  /**
   * The trapezium steps built on the l-difference ruler, or null if none were found below n: a
   * depth-first search, smallest step first, so the first extension found is the greedy one when it
   * fits and a tighter one (like the paper's 1, 3, 2, 6, 1, 3 for n = 17) when it does not.
   */
  static int[] steps(int n, int l) {
    int[] ruler = GolombRulers.differences(l);
    int routes = l * (l + 1) / 2;
    int[] s = Arrays.copyOf(ruler, routes);
    int total = 0;
    BitSet covered = new BitSet();
    for (int y = 0; y < l; y++) {
      total += s[y];
      if (total >= n) {
        return null;
      }
      addRoute(s, y, covered);
    }
    int[] budget = {SEARCH_BUDGET};
    return extend(s, l, l, total, n, covered, budget) ? s : null;
  }

  private static boolean extend(int[] s, int l, int y, int total, int n, BitSet covered, int[] budget) {
    if (y == s.length) {
      return true;
    }
    int allowed = (y + 1) - l; // |C_y ∩ earlier routes| <= y - l, routes counted from 1
    int left = s.length - y - 1; // every later step is at least 1
    for (int cand = 1; total + cand + left < n && budget[0] > 0; cand++) {
      budget[0]--;
      s[y] = cand;
      if (overlap(s, y, covered) <= allowed) {
        BitSet next = (BitSet) covered.clone();
        addRoute(s, y, next);
        if (extend(s, l, y + 1, total + cand, n, next, budget)) {
          return true;
        }
      }
    }
    return false;
  }

  private static int overlap(int[] s, int y, BitSet covered) {
    int sum = 0;
    int count = 0;
    for (int i = y; i >= 0; i--) {
      sum += s[i];
      if (covered.get(sum)) {
        count++;
      }
    }
    return count;
  }

  private static void addRoute(int[] s, int y, BitSet covered) {
    int sum = 0;
    for (int i = y; i >= 0; i--) {
      sum += s[i];
      covered.set(sum);
    }
  }

  /** Whether steps satisfy the conditions of Paper V, Theorem 1 for l (used to check Table 2). */
  public static boolean isTrapezium(int[] steps, int l) {
    BitSet covered = new BitSet();
    for (int y = 0; y < steps.length; y++) {
      int over = overlap(steps, y, covered);
      int allowed = y < l ? 0 : (y + 1) - l;
      if (over > allowed) {
        return false;
      }
      // within one route the offsets are distinct because steps are positive
      addRoute(steps, y, covered);
    }
    return true;
  }
}
