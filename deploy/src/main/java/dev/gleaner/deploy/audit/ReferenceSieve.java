package dev.gleaner.deploy.audit;

import java.util.BitSet;

/**
 * The number of primes in [from, to), computed here without the workload's sieve: the chaos suite's
 * reference answer. A plain segmented sieve of Eratosthenes (base primes up to sqrt(to), then
 * windows of 2^20 numbers), kept simple on purpose so that it shares no cleverness, and no bug,
 * with {@code PrimeSieve}.
 */
public final class ReferenceSieve {
  private static final int WINDOW = 1 << 20;

  private ReferenceSieve() {}

  public static long count(long from, long to) {
    if (from < 0 || to < from) {
      throw new IllegalArgumentException("need 0 <= from <= to, got [" + from + ", " + to + ")");
    }
    int root = (int) Math.sqrt((double) to) + 1;
    while ((long) root * root < to) {
      root++;
    }
    BitSet composite = new BitSet(root + 1);
    for (int i = 2; (long) i * i <= root; i++) {
      if (!composite.get(i)) {
        for (int j = i * i; j <= root; j += i) {
          composite.set(j);
        }
      }
    }
    long count = 0;
    boolean[] marked = new boolean[WINDOW];
    for (long lo = Math.max(from, 2); lo < to; lo += WINDOW) {
      int n = (int) Math.min(WINDOW, to - lo);
      java.util.Arrays.fill(marked, 0, n, false);
      for (int p = 2; p <= root && (long) p * p < lo + n; p = composite.nextClearBit(p + 1)) {
        long first = Math.max((long) p * p, (lo + p - 1) / p * p);
        for (long m = first; m < lo + n; m += p) {
          marked[(int) (m - lo)] = true;
        }
      }
      for (int i = 0; i < n; i++) {
        if (!marked[i]) {
          count++;
        }
      }
    }
    return count;
  }
}
