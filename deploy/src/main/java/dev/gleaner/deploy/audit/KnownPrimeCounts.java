package dev.gleaner.deploy.audit;

import java.util.Map;

/** Published values of pi(x), the number of primes below x, to check the demo's answer against. */
public final class KnownPrimeCounts {
  public static final Map<Long, Long> PI = Map.of(
      10_000_000L, 664_579L,
      100_000_000L, 5_761_455L,
      1_000_000_000L, 50_847_534L,
      4_000_000_000L, 189_961_812L,
      10_000_000_000L, 455_052_511L,
      20_000_000_000L, 882_206_716L,
      30_000_000_000L, 1_300_005_926L);

  private KnownPrimeCounts() {}

  /** pi(x) if published here, else null. */
  public static Long pi(long x) {
    return PI.get(x);
  }
}
