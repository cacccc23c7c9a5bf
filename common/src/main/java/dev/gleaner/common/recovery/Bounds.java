package dev.gleaner.common.recovery;

/**
 * Lower bounds on the worst-case load of any recovery scheme (Papers III-VI), in processes on the
 * most loaded computer (divide by p for the load normalised to one when all computers are up).
 *
 * <p>BV: with p = 1, the j-th extra process that reaches a computer needs a chain of j crashed
 * computers, so after k crashes some computer can be forced to hold {@code 1 + e} processes where
 * {@code 1 + 2 + ... + e <= k}: BV = 2, 2, 3, 3, 3, 4, 4, 4, 4, ... (k entries equal to k for k >= 2;
 * the thesis's closed form {@code floor(sqrt(2(k+1)) + 1/2)}). With p processes per computer the
 * extra processes come in levels of p chains, level l costing l crashes each: the bound vectors of
 * type p of the appendices (type 2: 3/2, 4/2, 4/2, 5/2, 5/2, 6/2, ...).
 *
 * <p>MV(k) = max(BV(k), ceil(p n / (n - k))): k computers down leave n p processes on n - k
 * computers.
 */
public final class Bounds {
  private Bounds() {}

  /** BV(k) for one process per computer (k >= 1), in processes. */
  public static int bv(int k) {
    return bv(k, 1);
  }

  /** The type-p bound vector's entry k (k >= 1), in processes (divide by p for the load). */
  public static int bv(int k, int p) {
    requireK(k);
    int extras = 0;
    long cost = 0;
    for (int level = 1; ; level++) {
      for (int c = 0; c < p; c++) {
        cost += level;
        if (cost > k) {
          return p + extras;
        }
        extras++;
      }
    }
  }

  /** MV(k) for n computers and p processes per computer, in processes; 1 <= k < n. */
  public static int mv(int n, int k, int p) {
    requireK(k);
    if (k >= n) {
      throw new IllegalArgumentException("at most n - 1 = " + (n - 1) + " computers can be down, got " + k);
    }
    int even = (int) ((long) p * n / (n - k) + (((long) p * n) % (n - k) == 0 ? 0 : 1));
    return Math.max(bv(k, p), even);
  }

  /** MV(1..n-1) for n computers, p processes each. */
  public static int[] mv(int n, int p) {
    int[] out = new int[n - 1];
    for (int k = 1; k < n; k++) {
      out[k - 1] = mv(n, k, p);
    }
    return out;
  }

  private static void requireK(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("the number of crashed computers must be at least 1, got " + k);
    }
  }
}
