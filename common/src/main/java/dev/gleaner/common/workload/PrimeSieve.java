package dev.gleaner.common.workload;

import java.util.Arrays;

/**
 * Counts primes in {@code [from, to)} with a segmented sieve of Eratosthenes over odd numbers.
 *
 * <p>How: the odd primes up to sqrt(to) are sieved once (and memoised, growing as needed); the range
 * is then swept in segments of {@link #SEGMENT} odd numbers (256 KiB, which stays in the L2 cache),
 * each cleared and crossed off by every base prime p from max(p*p, first odd multiple of p in the
 * segment). Memory is O(sqrt(to) + SEGMENT) whatever the range; time is O(n log log n).
 */
public final class PrimeSieve {
  static final int SEGMENT = 1 << 18;
  /** Largest {@code to} accepted: base primes up to sqrt stay within an int array of modest size. */
  public static final long MAX = 1L << 62;

  private static volatile int[] basePrimes = {3, 5, 7};
  private static volatile long basePrimesLimit = 8;

  private byte[] segment = new byte[0];

  /** Number of primes p with from <= p < to. */
  public long count(long from, long to, ChunkComputation.Cancellation cancel) {
    if (from < 0 || to > MAX) {
      throw new IllegalArgumentException("primes: range must lie within [0, 2^62), got [" + from + ", " + to + ")");
    }
    if (to <= from || to <= 2) {
      return 0;
    }
    long count = from <= 2 ? 1 : 0;
    long lo = Math.max(from, 3);
    if ((lo & 1) == 0) {
      lo++;
    }
    int[] base = basePrimesUpTo(isqrt(to - 1));
    int needed = (int) Math.min(SEGMENT, ((to - lo) >>> 1) + 1);
    if (segment.length < needed) {
      segment = new byte[needed];
    }
    for (long segLo = lo; segLo < to; segLo += 2L * SEGMENT) {
      if (cancel.cancelled()) {
        throw new java.util.concurrent.CancellationException("primes computation cancelled");
      }
      long segHi = Math.min(to, segLo + 2L * SEGMENT);
      int n = (int) ((segHi - segLo + 1) >>> 1);
      Arrays.fill(segment, 0, n, (byte) 0);
      for (int p : base) {
        long pp = (long) p * p;
        if (pp >= segHi) {
          break;
        }
        long first = Math.max(pp, ((segLo + p - 1) / p) * p);
        if ((first & 1) == 0) {
          first += p;
        }
        for (long j = (first - segLo) >>> 1; j < n; j += p) {
          segment[(int) j] = 1;
        }
      }
      int zeros = 0;
      for (int i = 0; i < n; i++) {
        zeros += 1 - segment[i];
      }
      count += zeros;
    }
    return count;
  }

  static long isqrt(long x) {
    long r = (long) Math.sqrt((double) x);
    while (r * r > x) {
      r--;
    }
    while ((r + 1) * (r + 1) <= x) {
      r++;
    }
    return r;
  }

  /** Odd primes up to {@code limit} inclusive (possibly more), memoised across calls. */
  static int[] basePrimesUpTo(long limit) {
    if (limit < basePrimesLimit) {
      return basePrimes;
    }
    synchronized (PrimeSieve.class) {
      if (limit >= basePrimesLimit) {
        int n = (int) Math.max(limit + 1, basePrimesLimit * 2);
        boolean[] composite = new boolean[n + 1];
        int[] primes = new int[Math.max(16, (int) (1.3 * n / Math.max(1, Math.log(n))) + 16)];
        int k = 0;
        for (int i = 3; i <= n; i += 2) {
          if (!composite[i]) {
            primes[k++] = i;
            for (long j = (long) i * i; j <= n; j += 2L * i) {
              composite[(int) j] = true;
            }
          }
        }
        basePrimes = Arrays.copyOf(primes, k);
        basePrimesLimit = n + 1L;
      }
      return basePrimes;
    }
  }
}
