package dev.gleaner.common.recovery;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * The chains that end at one computer y (Paper VI, Section 5): for every process that could come to
 * y, the set of computers that must all be down for it to get there (its own computer and every
 * computer before y on its list). After k crashes y holds its own processes plus the largest number
 * of chains whose union has at most k computers (Paper VI, Theorem 1), so everything follows from
 * {@link #minUnion}: the fewest computers whose crash brings t processes to y.
 *
 * <p>Sets are bit sets over the n computers, sorted by size.
 */
final class ChainFamily {
  private final int words;
  private final int count;
  private final long[] sets;
  private final int[] sizes;

  private ChainFamily(int words, long[][] chains) {
    this.words = words;
    Integer[] order = IntStream.range(0, chains.length).boxed().toArray(Integer[]::new);
    int[] raw = new int[chains.length];
    for (int i = 0; i < chains.length; i++) {
      raw[i] = cardinality(chains[i], 0, words);
    }
    Arrays.sort(order, Comparator.comparingInt(i -> raw[i]));
    this.count = chains.length;
    this.sets = new long[count * words];
    this.sizes = new int[count];
    for (int i = 0; i < count; i++) {
      System.arraycopy(chains[order[i]], 0, sets, i * words, words);
      sizes[i] = raw[order[i]];
    }
  }

  /** The chains ending at computer y under the scheme. */
  static ChainFamily endingAt(RecoveryScheme scheme, int y) {
    int n = scheme.n();
    int p = scheme.processes();
    int words = (n + 63) >>> 6;
    int[][] lists = scheme.rawLists();
    long[][] chains = new long[(n - 1) * p][];
    int c = 0;
    for (int x = 0; x < n; x++) {
      if (x == y) {
        continue;
      }
      for (int j = 0; j < p; j++) {
        long[] set = new long[words];
        set[x >>> 6] |= 1L << x;
        for (int v : lists[x * p + j]) {
          if (v == y) {
            break;
          }
          set[v >>> 6] |= 1L << v;
        }
        chains[c++] = set;
      }
    }
    return new ChainFamily(words, chains);
  }

  /** Chains C_1..C_m of a regular sequence prefix R_0 = 0, R_1..R_m (mod n), as offsets y - c. */
  static ChainFamily ofPrefix(int n, int[] r, int m) {
    int words = (n + 63) >>> 6;
    long[][] chains = new long[m][];
    for (int j = 1; j <= m; j++) {
      long[] set = new long[words];
      for (int i = 0; i < j; i++) {
        int d = Math.floorMod(r[j] - r[i], n);
        set[d >>> 6] |= 1L << d;
      }
      chains[j - 1] = set;
    }
    return new ChainFamily(words, chains);
  }

  int count() {
    return count;
  }

  /**
   * The smallest union of t chains, if it has at most cap computers; otherwise {@code cap + 1}.
   * Branch and bound over chains in size order; only canonical branches (a union is reached through
   * every chain it contains) are explored, and a branch stops when even its r cheapest additions
   * cannot beat the best union found.
   */
  int minUnion(int t, int cap) {
    if (t < 1 || t > count) {
      throw new IllegalArgumentException("t must be in 1.." + count + ", got " + t);
    }
    Search s = new Search(t, Math.min(cap + 1, greedy(t)));
    s.run();
    return s.best > cap ? cap + 1 : s.best;
  }

  /** The union of the t chains a greedy choice of the cheapest next chain gives (an upper bound). */
  private int greedy(int t) {
    long[] u = new long[words];
    boolean[] used = new boolean[count];
    int size = 0;
    for (int step = 0; step < t; step++) {
      int bestJ = -1;
      int bestAdd = Integer.MAX_VALUE;
      for (int j = 0; j < count; j++) {
        if (!used[j]) {
          int add = marginal(u, j);
          if (add < bestAdd) {
            bestAdd = add;
            bestJ = j;
          }
        }
      }
      used[bestJ] = true;
      or(u, bestJ);
      size += bestAdd;
    }
    return size;
  }

  private int marginal(long[] u, int j) {
    int base = j * words;
    int m = 0;
    for (int w = 0; w < words; w++) {
      m += Long.bitCount(sets[base + w] & ~u[w]);
    }
    return m;
  }

  private void or(long[] u, int j) {
    int base = j * words;
    for (int w = 0; w < words; w++) {
      u[w] |= sets[base + w];
    }
  }

  private static int cardinality(long[] a, int from, int words) {
    int c = 0;
    for (int w = 0; w < words; w++) {
      c += Long.bitCount(a[from + w]);
    }
    return c;
  }

  private final class Search {
    final int t;
    int best;
    final long[][] unions;
    final int[][] margins;
    final boolean[] chosen;
    final int[] scratch;

    Search(int t, int best) {
      this.t = t;
      this.best = best;
      this.unions = new long[t + 1][words];
      this.margins = new int[t + 1][count];
      this.chosen = new boolean[count];
      this.scratch = new int[count];
    }

    void run() {
      dfs(0, 0, 0);
    }

    private void dfs(int depth, int start, int size) {
      if (depth == t) {
        best = Math.min(best, size);
        return;
      }
      long[] u = unions[depth];
      int[] marg = margins[depth];
      int limit = 0;
      while (limit < count && sizes[limit] < best) {
        limit++;
      }
      // A chain skipped earlier that the union already covers means another branch reaches this union.
      for (int j = 0; j < Math.min(start, limit); j++) {
        if (!chosen[j] && marginal(u, j) == 0) {
          return;
        }
      }
      int need = t - depth;
      int n = 0;
      for (int j = start; j < limit; j++) {
        marg[j] = marginal(u, j);
        scratch[n++] = marg[j];
      }
      if (n < need) {
        return;
      }
      if (size + kth(scratch, n, need) >= best) {
        return;
      }
      for (int j = start; j <= limit - need; j++) {
        int m = marg[j];
        if (size + m < best) {
          long[] next = unions[depth + 1];
          System.arraycopy(u, 0, next, 0, words);
          or(next, j);
          chosen[j] = true;
          dfs(depth + 1, j + 1, size + m);
          chosen[j] = false;
        }
        if (m == 0) {
          return; // a covered chain cannot be skipped: every branch that skips it is not canonical
        }
      }
    }
  }

  /** The k-th smallest (1-based) of a[0..n). Reorders a. */
  private static int kth(int[] a, int n, int k) {
    if (k == 1) {
      int min = Integer.MAX_VALUE;
      for (int i = 0; i < n; i++) {
        min = Math.min(min, a[i]);
      }
      return min;
    }
    Arrays.sort(a, 0, n);
    return a[k - 1];
  }
}
