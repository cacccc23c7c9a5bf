package dev.gleaner.common.recovery;

import java.util.Arrays;

/**
 * The modulo scheme (Paper IV): the longest sequence R_1, R_2, ..., R_x found whose differences
 * R_j - R_i (0 <= i < j <= x, R_0 = 0) are all distinct and non-zero modulo n, then the remaining
 * computers. Such a head makes the first x chains disjoint even when routes wrap around the ring, so
 * the scheme is optimal while at most x computers are down (Theorem 1).
 *
 * <p>The sequence is found by depth-first search, longest length first beyond what the greedy
 * sequence already gives, within a budget of search nodes per length, so the result is the same on
 * every machine. Scaling by a unit mod n keeps the property, so the first entry is taken among the
 * divisors of n.
 */
public final class ModuloScheme implements SchemeGenerator {
  /** Search nodes tried per target length by default. */
  public static final long DEFAULT_BUDGET = 2_000_000;

  private final long budget;
  /** Heads found so far, by n: the search is the costly part and both build and guaranteed need it. */
  private final java.util.concurrent.ConcurrentHashMap<Integer, int[]> heads = new java.util.concurrent.ConcurrentHashMap<>();

  public ModuloScheme() {
    this(DEFAULT_BUDGET);
  }

  public ModuloScheme(long budgetPerLength) {
    if (budgetPerLength < 1) {
      throw new IllegalArgumentException("search budget must be positive, got " + budgetPerLength);
    }
    this.budget = budgetPerLength;
  }

  @Override
  public String name() {
    return "modulo";
  }

  @Override
  public String summary() {
    return "longest head found with all differences distinct mod n, then the remaining computers";
  }

  @Override
  public RecoveryScheme build(int n) {
    return RecoveryScheme.regular(name(), n, head(n));
  }

  @Override
  public int guaranteed(int n) {
    return head(n).length;
  }

  /** Whether every difference R_j - R_i (i < j, R_0 = 0) of the head is distinct and non-zero mod n. */
  public static boolean isModular(int n, int[] head) {
    boolean[] seen = new boolean[n];
    int[] marks = new int[head.length + 1];
    System.arraycopy(head, 0, marks, 1, head.length);
    for (int j = 1; j < marks.length; j++) {
      for (int i = 0; i < j; i++) {
        int d = Math.floorMod(marks[j] - marks[i], n);
        if (d == 0 || seen[d]) {
          return false;
        }
        seen[d] = true;
      }
    }
    return true;
  }

  int[] head(int n) {
    return heads.computeIfAbsent(n, this::search).clone();
  }

  private int[] search(int n) {
    int[] best = GreedyScheme.head(n);
    for (int target = best.length + 1; target * (target + 1) / 2 <= n - 1; target++) {
      int[] found = new Search(n, target, budget).run();
      if (found == null) {
        break;
      }
      best = found;
    }
    return best;
  }

  private static final class Search {
    final int n;
    final int target;
    long nodes;
    final int[] marks;
    final boolean[] usedDiff;
    final boolean[] usedMark;
    final int[] added;

    Search(int n, int target, long budget) {
      this.n = n;
      this.target = target;
      this.nodes = budget;
      this.marks = new int[target + 1];
      this.usedDiff = new boolean[n];
      this.usedMark = new boolean[n];
      this.usedMark[0] = true;
      this.added = new int[target + 1];
    }

    int[] run() {
      for (int first = 1; first < n && nodes > 0; first++) {
        if (n % first != 0 || !place(1, first)) {
          continue;
        }
        if (dfs(2)) {
          return Arrays.copyOfRange(marks, 1, target + 1);
        }
        unplace(1);
      }
      return null;
    }

    private boolean dfs(int depth) {
      if (depth > target) {
        return true;
      }
      for (int v = 1; v < n && nodes > 0; v++) {
        if (usedMark[v]) {
          continue;
        }
        nodes--;
        if (place(depth, v)) {
          if (dfs(depth + 1)) {
            return true;
          }
          unplace(depth);
        }
      }
      return false;
    }

    /** Puts v at position depth if all its new differences are free; otherwise leaves all unchanged. */
    private boolean place(int depth, int v) {
      int i = 0;
      for (; i < depth; i++) {
        int d = Math.floorMod(v - marks[i], n);
        if (d == 0 || usedDiff[d]) {
          break;
        }
        usedDiff[d] = true;
      }
      if (i < depth) {
        for (int k = 0; k < i; k++) {
          usedDiff[Math.floorMod(v - marks[k], n)] = false;
        }
        return false;
      }
      marks[depth] = v;
      usedMark[v] = true;
      return true;
    }

    private void unplace(int depth) {
      int v = marks[depth];
      for (int i = 0; i < depth; i++) {
        usedDiff[Math.floorMod(v - marks[i], n)] = false;
      }
      usedMark[v] = false;
    }
  }
}
