package dev.gleaner.common.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.BitSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class PrimeSieveTest {
  private static final int LIMIT = 3_000_000;
  private static final BitSet COMPOSITE = new BitSet(LIMIT);

  static {
    COMPOSITE.set(0);
    COMPOSITE.set(1);
    for (int i = 2; (long) i * i < LIMIT; i++) {
      if (!COMPOSITE.get(i)) {
        for (int j = i * i; j < LIMIT; j += i) {
          COMPOSITE.set(j);
        }
      }
    }
  }

  /** Reference: a plain sieve over the whole prefix. */
  private static long reference(long from, long to) {
    long n = 0;
    for (long x = from; x < to; x++) {
      if (!COMPOSITE.get((int) x)) {
        n++;
      }
    }
    return n;
  }

  @Property(tries = 300)
  void countsLikeThePlainSieveOnAnyRange(@ForAll @LongRange(min = 0, max = LIMIT) long a,
      @ForAll @LongRange(min = 0, max = 700_000) long length) {
    long from = Math.min(a, LIMIT);
    long to = Math.min(LIMIT, from + length);
    assertEquals(reference(from, to), new PrimeSieve().count(from, to, ChunkComputation.Cancellation.NEVER));
  }

  @Test
  void smallEdgesAreExact() {
    PrimeSieve s = new PrimeSieve();
    assertEquals(0, s.count(0, 2, ChunkComputation.Cancellation.NEVER));
    assertEquals(1, s.count(0, 3, ChunkComputation.Cancellation.NEVER));
    assertEquals(1, s.count(2, 3, ChunkComputation.Cancellation.NEVER));
    assertEquals(4, s.count(0, 10, ChunkComputation.Cancellation.NEVER));
    assertEquals(0, s.count(24, 29, ChunkComputation.Cancellation.NEVER));
    assertEquals(1, s.count(29, 30, ChunkComputation.Cancellation.NEVER));
  }

  @Test
  void matchesPublishedPrimeCounts() {
    // pi(10^k) from the standard tables
    PrimeSieve s = new PrimeSieve();
    assertEquals(25, s.count(0, 100, ChunkComputation.Cancellation.NEVER));
    assertEquals(78_498, s.count(0, 1_000_000, ChunkComputation.Cancellation.NEVER));
    assertEquals(5_761_455, s.count(0, 100_000_000, ChunkComputation.Cancellation.NEVER));
  }

  @Test
  void splitRangesAddUpToTheWhole() throws Exception {
    PrimesWorkload w = new PrimesWorkload();
    long whole = new PrimeSieve().count(1_000_000_000L, 1_002_000_000L, ChunkComputation.Cancellation.NEVER);
    byte[] acc = w.empty();
    for (long lo = 1_000_000_000L; lo < 1_002_000_000L; lo += 333_333) {
      long hi = Math.min(1_002_000_000L, lo + 333_333);
      ChunkComputation c = w.open(java.util.Map.of(), lo, hi);
      c.compute(lo, hi, null, ChunkComputation.Cancellation.NEVER);
      acc = w.merge(acc, c.take());
    }
    assertEquals(whole, LongResult.decode(acc));
  }
}
