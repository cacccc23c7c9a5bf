package dev.gleaner.common.recovery;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The greedy scheme (Paper III, Section 4): each step r(x) is the smallest positive integer that keeps
 * all sums of consecutive steps distinct (1, 2, 4, 5, 8, 10, 14, 21, ...); computer 0's list is the
 * partial sums below n (1, 3, 7, 12, 20, ...) followed by the remaining computers. Optimal while at
 * most that many computers are down (Theorem 3).
 */
public final class GreedyScheme implements SchemeGenerator {
  @Override
  public String name() {
    return "greedy";
  }

  @Override
  public String summary() {
    return "smallest steps with distinct consecutive sums, then the remaining computers";
  }

  @Override
  public RecoveryScheme build(int n) {
    return RecoveryScheme.regular(name(), n, head(n));
  }

  @Override
  public int guaranteed(int n) {
    return head(n).length;
  }

  /** The greedy steps whose partial sums stay below n. */
  static int[] steps(int n) {
    List<Integer> steps = new ArrayList<>();
    BitSet sums = new BitSet();
    int total = 0;
    while (true) {
      int r = 1;
      while (!fits(steps, sums, r)) {
        r++;
      }
      if (total + r >= n) {
        break;
      }
      // record the new consecutive sums ending at the new step
      int s = r;
      sums.set(s);
      for (int i = steps.size() - 1; i >= 0; i--) {
        s += steps.get(i);
        sums.set(s);
      }
      steps.add(r);
      total += r;
    }
    return steps.stream().mapToInt(Integer::intValue).toArray();
  }

  private static boolean fits(List<Integer> steps, BitSet sums, int r) {
    int s = r;
    if (sums.get(s)) {
      return false;
    }
    BitSet fresh = new BitSet();
    fresh.set(s);
    for (int i = steps.size() - 1; i >= 0; i--) {
      s += steps.get(i);
      if (sums.get(s) || fresh.get(s)) {
        return false;
      }
      fresh.set(s);
    }
    return true;
  }

  static int[] head(int n) {
    return SchemeGenerator.partialSumsBelow(n, steps(n));
  }
}
