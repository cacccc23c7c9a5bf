package dev.gleaner.common.workload;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * {@code primes}: counts the primes in {@code [from, to)}. CPU-bound, no input, exact answers.
 * One unit is one integer of the range.
 */
public final class PrimesWorkload implements Workload {
  @Override
  public String name() {
    return "primes";
  }

  @Override
  public String summary() {
    return "count primes in [from, to) with a segmented sieve; params: from (default 0), to";
  }

  @Override
  public UnitRange range(Map<String, String> params, InputSource input) {
    Params p = new Params(name(), params);
    p.onlyKnown("from", "to");
    long from = p.longValue("from", 0);
    long to = p.longValue("to");
    if (from < 0) {
      throw new IllegalArgumentException("primes: 'from' must not be negative, got " + from);
    }
    if (to <= from) {
      throw new IllegalArgumentException("primes: 'to' (" + to + ") must be above 'from' (" + from + ")");
    }
    if (to > PrimeSieve.MAX) {
      throw new IllegalArgumentException("primes: 'to' must be at most 2^62, got " + to);
    }
    return new UnitRange(from, to);
  }

  @Override
  public ChunkComputation open(Map<String, String> params, long start, long end) {
    return new ChunkComputation() {
      private final PrimeSieve sieve = new PrimeSieve();
      private long count;

      @Override
      public void compute(long from, long to, ByteBuffer input, Cancellation cancel) {
        count += sieve.count(from, to, cancel);
      }

      @Override
      public byte[] take() {
        byte[] r = LongResult.encode(count);
        count = 0;
        return r;
      }
    };
  }

  @Override
  public byte[] empty() {
    return LongResult.encode(0);
  }

  @Override
  public byte[] merge(byte[] left, byte[] right) {
    return LongResult.add(left, right);
  }

  @Override
  public String render(byte[] result) {
    return LongResult.decode(result) + " primes";
  }

  @Override
  public Calibration calibration() {
    return new Calibration(Map.of(), 1_000_000_000L, 1_000_000_000L + 8_000_000L);
  }
}
