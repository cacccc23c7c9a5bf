package dev.gleaner.common.recovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.util.Permutations;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class OptimalSchemeTest {
  /** The branch and bound against every one of the (n-1)! regular schemes, ranked by the oracle. */
  @Test
  void equalsTheConsecutivelySmallestOfAllSequences() {
    for (int n = 3; n <= 9; n++) {
      int[] best = null;
      int[] perm = IntStream.range(1, n).toArray();
      do {
        int[] worst = Brute.worstCase(RecoveryScheme.regular("any", n, perm));
        if (best == null || Arrays.compare(worst, best) < 0) {
          best = worst;
        }
      } while (Permutations.next(perm));
      OptimalScheme.Result r = new OptimalScheme().search(n);
      assertTrue(r.exhaustive());
      assertArrayEquals(best, Brute.worstCase(r.scheme()), "n = " + n);
    }
  }

  /**
   * Above n = 9 the oracle is the plain branch and bound, which drops a prefix only when every
   * completion is lexicographically below the best: the rule that also drops prefixes tied with a
   * best that has reached MV must not change the answer. n = 10 is also checked against all 9!
   * sequences, ranked by the generic union search.
   */
  @Test
  void stoppingAtTiesKeepsTheOptimum() {
    for (int n = 10; n <= 14; n++) {
      OptimalScheme.Result plain = new OptimalScheme(OptimalScheme.DEFAULT_BUDGET, false).search(n);
      OptimalScheme.Result capped = new OptimalScheme().search(n);
      assertTrue(plain.exhaustive() && capped.exhaustive());
      assertArrayEquals(plain.unions(), capped.unions(), "n = " + n);
      assertArrayEquals(capped.unions(), OptimalScheme.unions(n, capped.scheme().sequence()), "n = " + n);
      assertTrue(capped.nodes() <= plain.nodes());
    }
    int[] best = null;
    int[] perm = IntStream.range(0, 10).toArray();
    do {
      int[] u = OptimalScheme.unions(10, perm);
      if (best == null || Arrays.compare(u, best) > 0) {
        best = u;
      }
    } while (Permutations.next(perm, 1));
    assertArrayEquals(best, new OptimalScheme().search(10).unions());
  }

  @Test
  void saysWhenTheBudgetEndsTheSearch() {
    OptimalScheme.Result r = new OptimalScheme(50).search(15);
    assertFalse(r.exhaustive());
    // still a valid scheme, at least as good as the generators it started from
    LoadProfile p = WorstCaseLoad.of(r.scheme());
    assertTrue(p.optimalUpTo() >= WorstCaseLoad.of(new GolombScheme().build(15)).optimalUpTo());
  }

  @Test
  void bestIsConsecutivelySmallestOfTheGenerators() {
    for (int n = 2; n <= 40; n += 3) {
      LoadProfile best = Schemes.bestProfile(n);
      for (SchemeGenerator g : Schemes.generators()) {
        if (g instanceof OptimalScheme) {
          if (n > Schemes.BEST_SEARCHES_UP_TO) {
            continue;
          }
          g = new OptimalScheme(Schemes.BEST_SEARCH_BUDGET);
        }
        assertFalse(WorstCaseLoad.of(g.build(n)).consecutivelySmallerThan(best), g.name() + " beats best at " + n);
      }
    }
  }
}
