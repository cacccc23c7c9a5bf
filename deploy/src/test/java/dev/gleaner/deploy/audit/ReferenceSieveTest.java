package dev.gleaner.deploy.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.PrimeSieve;
import dev.gleaner.deploy.audit.KnownPrimeCounts;
import dev.gleaner.deploy.audit.ReferenceSieve;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The chaos suite's own sieve against published counts and against the workload's sieve. */
class ReferenceSieveTest {
  @Test
  void countsThePublishedPiOfTenToTheSeven() {
    assertEquals(KnownPrimeCounts.pi(10_000_000L), ReferenceSieve.count(0, 10_000_000L));
  }

  @Test
  void smallRangesByHand() {
    assertEquals(4, ReferenceSieve.count(0, 10));
    assertEquals(0, ReferenceSieve.count(0, 2));
    assertEquals(1, ReferenceSieve.count(2, 3));
    assertEquals(0, ReferenceSieve.count(24, 29));
    assertEquals(1, ReferenceSieve.count(24, 30));
  }

  @Test
  void agreesWithTheWorkloadsSieveOnRandomRanges() {
    SplittableRandom r = new SplittableRandom(11);
    for (int i = 0; i < 20; i++) {
      long from = r.nextLong(0, 5_000_000_000L);
      long to = from + r.nextLong(0, 3_000_000);
      assertEquals(new PrimeSieve().count(from, to, ChunkComputation.Cancellation.NEVER), ReferenceSieve.count(from, to),
          "[" + from + ", " + to + ")");
    }
  }
}
