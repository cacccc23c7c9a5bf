package dev.gleaner.deploy.bench.driver;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * The answers the drivers check Gleaner's results against, computed here in the plainest way
 * (not with the workloads' own code): a whole sieve of Eratosthenes, and a byte-by-byte count
 * of newlines.
 */
final class LocalCounts {
  /** The largest bound {@link #primesBelow} takes: the sieve holds one bit per number. */
  static final long MAX_SIEVE = 200_000_000L;

  private LocalCounts() {}

  /** The number of primes in [from, to), for {@code to <= MAX_SIEVE}. */
  static long primes(long from, long to) {
    return primesBelow(to) - primesBelow(from);
  }

  /** pi(n - 1): the number of primes below n. */
  static long primesBelow(long n) {
    if (n < 0 || n > MAX_SIEVE) {
      throw new IllegalArgumentException("the local sieve counts below 0.." + MAX_SIEVE + ", not " + n);
    }
    int limit = (int) n;
    BitSet composite = new BitSet(limit);
    long count = 0;
    for (int i = 2; i < limit; i++) {
      if (!composite.get(i)) {
        count++;
        for (long j = (long) i * i; j < limit; j += i) {
          composite.set((int) j);
        }
      }
    }
    return count;
  }

  /** {@code wc}'s answer for a file, as Gleaner's {@code wc} workload renders it: "L lines, B bytes". */
  static String wc(Path file) throws IOException {
    long lines = 0;
    long bytes = 0;
    byte[] buf = new byte[1 << 20];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
        bytes += n;
        for (int i = 0; i < n; i++) {
          if (buf[i] == '\n') {
            lines++;
          }
        }
      }
    }
    return lines + " lines, " + bytes + " bytes";
  }
}
