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
 * m + 1, since every later chain has more than m computers. No scheme has u(t) above the fewest
 * crashes k with MV(k) > t, so the bounds are capped there, and where the best scheme known reaches
 * that cap it cannot be improved. A prefix is dropped as soon as every completion is either
 * lexicographically below the best, or equal to it up to the last t where the best is below its cap.
 * The second rule is what makes n = 17..24 take seconds rather than hours. The search starts from
 * the best of the other generators, takes R_1 among the divisors of n (scaling by a unit mod n keeps
 * every union's size), and stops after a budget of nodes, saying whether it finished.
 */
public final class OptimalScheme implements SchemeGenerator {
  /** Search nodes by default: enough to finish every n up to 24 (see the README's figures). */
  public static final long DEFAULT_BUDGET = 2_000_000_000L;

  private final long budget;
  private final boolean capped;

  public OptimalScheme() {
    this(DEFAULT_BUDGET);
  }

  public OptimalScheme(long nodeBudget) {
    this(nodeBudget, true);
  }

  /** With {@code capped} false, the search uses only the first pruning rule (for tests). */
  OptimalScheme(long nodeBudget, boolean capped) {
    if (nodeBudget < 1) {
      throw new IllegalArgumentException("search budget must be positive, got " + nodeBudget);
    }
    this.budget = nodeBudget;
    this.capped = capped;
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
    Search s = new Search(n, bestR, bestU, budget, capped);
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
    /** most[t]: no scheme has u(t) above it, because L(k) >= MV(k) for every scheme. */
    final int[] most;
    /** The largest t with bestU(t) < most[t]: beyond it the best cannot be improved. */
    int improvable;
    // forced-union search state
    int found;
    final int[][] marg;
    final boolean[] chosen;

    Search(int n, int[] bestR, int[] bestU, long budget, boolean capped) {
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
      this.most = new int[n];
      for (int t = 1; t < n; t++) {
        int k = 1;
        while (k < n - 1 && Bounds.mv(n, k, 1) < t + 1) {
          k++;
        }
        most[t] = capped ? k : n;
      }
      updateImprovable();
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

    private void updateImprovable() {
      improvable = 0;
      for (int t = 1; t < n; t++) {
        if (bestU[t - 1] < most[t]) {
          improvable = t;
        }
      }
    }

    private void dfs(int m) {
      if (m == n) {
        int[] u = Arrays.copyOfRange(ub[n - 1], 1, n);
        if (Arrays.compare(u, bestU) > 0) {
          bestU = u;
          bestR = r.clone();
          updateImprovable();
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
      ub[m][m] = Math.min(Long.bitCount(all), most[m]);
      // Compare with the best in order of t while equal: a loss is found before the costly unions
      // of many chains are computed. A branch that survives computes them all for its children.
      int t = 1;
      int verdict = 0;
      for (; t <= m && verdict == 0; t++) {
        if (t < m) {
          int parent = ub[m - 1][t];
          ub[m][t] = Math.min(parent, forcedMin(m, t, parent - 1));
        }
        verdict = Integer.compare(ub[m][t], bestU[t - 1]);
      }
      if (verdict < 0 || (verdict == 0 && m >= improvable)) {
        // every completion is below the best, or equal to it wherever the best can still improve
        return false;
      }
      for (; t < m; t++) {
        int parent = ub[m - 1][t];
        ub[m][t] = Math.min(parent, forcedMin(m, t, parent - 1));
      }
      return true;
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
