package dev.gleaner.common.recovery;

import java.util.Arrays;
import java.util.List;

/**
 * Consecutively optimal regular schemes by branch and bound (Paper VI, Section 6): among all (n-1)!
 * sequences R = (0, R_1, ..., R_{n-1}), one whose worst-case vector is consecutively smallest.
 *
 * <p>A scheme's worst-case vector follows from u(t), the fewest crashes that bring t processes to one
 * computer (the smallest union of t chains); a consecutively smaller L is a lexicographically larger
 * u. The search builds R entry by entry. A prefix R_0..R_m fixes chains C_1..C_m, and the smallest
 * union of t of them bounds u(t) of every completion from above; it is exact when it is at most
 * m + 1, since every later chain has more than m computers. A prefix is dropped as soon as these
 * values prove every completion lexicographically below the best scheme known. The search starts
 * from the best of the other generators, takes R_1 among the divisors of n (scaling by a unit mod n
 * keeps every union's size), and stops after a budget of nodes, saying whether it finished.
 */
public final class OptimalScheme implements SchemeGenerator {
  /** Search nodes by default: enough to finish n = 21 (see the README's figures). */
  public static final long DEFAULT_BUDGET = 2_000_000_000L;

  private final long budget;

  public OptimalScheme() {
    this(DEFAULT_BUDGET);
  }

  public OptimalScheme(long nodeBudget) {
    if (nodeBudget < 1) {
      throw new IllegalArgumentException("search budget must be positive, got " + nodeBudget);
    }
    this.budget = nodeBudget;
  }

  /**
   * The result of a search.
   *
   * @param scheme the best scheme found
   * @param unions its u(1..n-1): the fewest crashes that bring t processes to one computer
   * @param exhaustive whether the search finished, so the scheme is consecutively optimal
   * @param nodes prefixes examined
   */
  public record Result(RecoveryScheme scheme, int[] unions, boolean exhaustive, long nodes) {}

  @Override
  public String name() {
    return "optimal";
  }

  @Override
  public String summary() {
    return "consecutively optimal sequence by branch and bound (exhaustive within a node budget)";
  }

  @Override
  public RecoveryScheme build(int n) {
    return search(n).scheme();
  }

  @Override
  public int guaranteed(int n) {
    return WorstCaseLoad.of(build(n)).optimalUpTo();
  }

  public Result search(int n) {
    if (n < 2) {
      throw new IllegalArgumentException("a recovery scheme needs at least 2 computers, got " + n);
    }
    int[] bestR = null;
    int[] bestU = null;
    for (SchemeGenerator g : List.of(new ModuloScheme(), new TrapeziumScheme(), new GolombScheme(),
        new GreedyScheme())) {
      int[] r = g.build(n).sequence();
      int[] u = unions(n, r);
      if (bestU == null || Arrays.compare(u, bestU) > 0) {
        bestU = u;
        bestR = r;
      }
    }
    if (n > 63) {
      throw new IllegalArgumentException("the exhaustive search is for n <= 63 computers, got " + n);
    }
    Search s = new Search(n, bestR, bestU, budget);
    s.run();
    RecoveryScheme scheme = RecoveryScheme.regular(name(), n, Arrays.copyOfRange(s.bestR, 1, n));
    return new Result(scheme, s.bestU.clone(), s.finished, s.nodes);
  }

  /** u(1..n-1) of the regular sequence r (r[0] = 0). */
  static int[] unions(int n, int[] r) {
    ChainFamily f = ChainFamily.ofPrefix(n, r, n - 1);
    int[] u = new int[n - 1];
    for (int t = 1; t < n; t++) {
      u[t - 1] = f.minUnion(t, n);
    }
    return u;
  }

  /**
   * The search over sequences for n <= 63, with chains as 64-bit masks of offsets. Each node keeps,
   * for t = 1..m, the exact smallest union of t of its chains C_1..C_m; a child only has to look at
   * the unions that contain its new chain C_m.
   */
  private static final class Search {
    final int n;
    final long budget;
    long nodes;
    boolean finished;
    int[] bestR;
    int[] bestU;
    final int[] r;
    final boolean[] used;
    final long[] chains;
    final int[][] ub;
    // forced-union search state
    int found;
    final int[][] marg;
    final boolean[] chosen;

    Search(int n, int[] bestR, int[] bestU, long budget) {
      this.n = n;
      this.bestR = bestR.clone();
      this.bestU = bestU.clone();
      this.budget = budget;
      this.r = new int[n];
      this.used = new boolean[n];
      this.chains = new long[n];
      this.ub = new int[n][n];
      this.marg = new int[n][n];
      this.chosen = new boolean[n];
      used[0] = true;
    }

    void run() {
      if (n == 2) {
        finished = true;
        return;
      }
      for (int first = 1; first < n && nodes < budget; first++) {
        if (n % first != 0) {
          continue;
        }
        if (place(1, first)) {
          dfs(2);
        }
        used[first] = false;
      }
      finished = nodes < budget;
    }

    private void dfs(int m) {
      if (m == n) {
        int[] u = Arrays.copyOfRange(ub[n - 1], 1, n);
        if (Arrays.compare(u, bestU) > 0) {
          bestU = u;
          bestR = r.clone();
        }
        return;
      }
      for (int v = 1; v < n && nodes < budget; v++) {
        if (used[v]) {
          continue;
        }
        if (place(m, v)) {
          dfs(m + 1);
        }
        used[v] = false;
      }
    }

    /** Puts v at R_m, updates the smallest unions, and says whether the branch is still worth it. */
    private boolean place(int m, int v) {
      r[m] = v;
      used[v] = true;
      nodes++;
      long c = 0;
      for (int i = 0; i < m; i++) {
        c |= 1L << Math.floorMod(v - r[i], n);
      }
      chains[m] = c;
      long all = c;
      for (int j = 1; j < m; j++) {
        all |= chains[j];
      }
      ub[m][m] = Long.bitCount(all);
      for (int t = 1; t < m; t++) {
        int parent = ub[m - 1][t];
        ub[m][t] = Math.min(parent, forcedMin(m, t, parent - 1));
      }
      for (int t = 1; t <= m; t++) {
        if (ub[m][t] < bestU[t - 1]) {
          return false; // every completion is lexicographically below the best
        }
        if (ub[m][t] > bestU[t - 1]) {
          return true;
        }
      }
      return m < n - 1; // a complete sequence equal to the best is no improvement
    }

    /** The smallest union of C_m with t - 1 of C_1..C_{m-1}, if at most cap; otherwise cap + 1. */
    private int forcedMin(int m, int t, int cap) {
      found = cap + 1;
      if (Long.bitCount(chains[m]) <= cap) {
        chosen[m] = true;
        search(m, 1, t - 1, chains[m], 0);
        chosen[m] = false;
      }
      return found;
    }

    private void search(int m, int start, int need, long u, int depth) {
      int size = Long.bitCount(u);
      if (size >= found) {
        return;
      }
      if (need == 0) {
        found = size;
        return;
      }
      // chain j has j offsets, so only chains below the best union found can help
      int limit = Math.min(m, found);
      for (int j = 1; j < Math.min(start, limit); j++) {
        if (!chosen[j] && (chains[j] & ~u) == 0) {
          return; // reached through a chain skipped earlier: another branch covers this union
        }
      }
      int[] mg = marg[depth];
      int cnt = 0;
      for (int j = start; j < limit; j++) {
        mg[j] = Long.bitCount(chains[j] & ~u);
        cnt++;
      }
      if (cnt < need) {
        return;
      }
      if (size + kthSmallest(mg, start, limit, need) >= found) {
        return;
      }
      for (int j = start; j <= limit - need; j++) {
        int add = mg[j];
        if (size + add < found) {
          chosen[j] = true;
          search(m, j + 1, need - 1, u | chains[j], depth + 1);
          chosen[j] = false;
        }
        if (add == 0) {
          return;
        }
      }
    }

    private final int[] scratch = new int[64];

    private int kthSmallest(int[] a, int from, int to, int k) {
      int len = to - from;
      System.arraycopy(a, from, scratch, 0, len);
      Arrays.sort(scratch, 0, len);
      return scratch[k - 1];
    }
  }
}
