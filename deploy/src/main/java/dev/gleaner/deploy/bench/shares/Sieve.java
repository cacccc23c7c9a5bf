package dev.gleaner.deploy.bench.shares;

import java.util.BitSet;

/** The reference the bench checks each primes job against: Eratosthenes' sieve, on one thread. */
final class Sieve {
  private Sieve() {}

  /** How many primes are below {@code n} (at most 2^31 - 1). */
  static long primesBelow(long n) {
    if (n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("the sieve counts primes below 2^31 at most, not below " + n);
    }
    int m = (int) n;
    if (m < 3) {
      return 0;
    }
    BitSet composite = new BitSet(m);
    for (int i = 2; (long) i * i < m; i++) {
      if (!composite.get(i)) {
        for (long k = (long) i * i; k < m; k += i) {
          composite.set((int) k);
        }
      }
    }
    return m - 2 - composite.cardinality();
  }
}
