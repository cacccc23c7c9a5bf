package dev.gleaner.common.recovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class WorstCaseLoadTest {
  @Test
  void matchesEveryCrashSetOnRandomRegularSchemes() {
    SplittableRandom rnd = new SplittableRandom(20261122);
    for (int n = 2; n <= 11; n++) {
      for (int trial = 0; trial < 25; trial++) {
        RecoveryScheme s = RecoveryScheme.regular("random", n, shuffled(rnd, n));
        assertArrayEquals(Brute.worstCase(s), WorstCaseLoad.of(s).worst(), s.toString());
      }
    }
  }

  @Test
  void matchesEveryCrashSetOnEachGenerator() {
    for (int n = 2; n <= 11; n++) {
      for (SchemeGenerator g : Schemes.generators()) {
        RecoveryScheme s = g.build(n);
        LoadProfile p = WorstCaseLoad.of(s);
        assertArrayEquals(Brute.worstCase(s), p.worst(), s.toString());
        if (g instanceof TrapeziumScheme) {
          continue; // Paper V's Theorem 1 can promise more than the scheme keeps: see SchemeTablesTest
        }
        int promised = Math.min(g.guaranteed(n), n - 1);
        assertTrue(p.optimalUpTo() >= promised,
            () -> s + " keeps L = MV only up to " + p.optimalUpTo() + " crashes, its theorem says " + promised);
      }
    }
  }

  @Test
  void matchesEveryCrashSetOnIrregularSchemes() {
    SplittableRandom rnd = new SplittableRandom(7);
    for (int n = 3; n <= 9; n++) {
      for (int trial = 0; trial < 15; trial++) {
        int[][] lists = new int[n][];
        for (int i = 0; i < n; i++) {
          int self = i;
          int[] others = IntStream.range(0, n).filter(c -> c != self).toArray();
          shuffle(rnd, others);
          lists[i] = others;
        }
        RecoveryScheme s = RecoveryScheme.general("irregular", lists);
        assertArrayEquals(Brute.worstCase(s), WorstCaseLoad.of(s).worst(), s.toString());
      }
    }
  }

  @Test
  void matchesEveryCrashSetWithSeveralProcessesPerComputer() {
    SplittableRandom rnd = new SplittableRandom(11);
    for (int n = 4; n <= 10; n++) {
      for (int p = 2; p <= 3; p++) {
        for (int trial = 0; trial < 8; trial++) {
          RecoveryScheme s = RecoveryScheme.regular("random", n, shuffled(rnd, n)).withProcesses(p);
          int[] brute = Brute.worstCase(s);
          assertArrayEquals(brute, WorstCaseLoad.of(s).worst(), s.toString());
          for (int k = 1; k < n; k++) {
            assertTrue(brute[k - 1] >= Bounds.mv(n, k, p), "the type-" + p + " bound is above a real scheme");
          }
        }
      }
    }
  }

  /** Paper VI, Table 1: five sequences mod 6 and their load vectors. */
  @Test
  void paperSixTableOne() {
    int[][] sequences = {{1, 3, 5, 4, 2}, {1, 3, 5, 2, 4}, {3, 1, 4, 2, 5}, {2, 4, 1, 5, 3}, {2, 4, 1, 3, 5}};
    int[][] loads = {{2, 2, 3, 3, 6}, {2, 2, 3, 4, 6}, {2, 2, 4, 4, 6}, {2, 3, 3, 3, 6}, {2, 3, 3, 4, 6}};
    for (int i = 0; i < sequences.length; i++) {
      assertArrayEquals(loads[i], WorstCaseLoad.of(RecoveryScheme.regular("R" + (i + 1), 6, sequences[i])).worst());
    }
    // R1 is the consecutively optimal one; R4 beats R3 at four crashes but loses at two.
    LoadProfile r3 = WorstCaseLoad.of(RecoveryScheme.regular("R3", 6, sequences[2]));
    LoadProfile r4 = WorstCaseLoad.of(RecoveryScheme.regular("R4", 6, sequences[3]));
    assertTrue(r3.consecutivelySmallerThan(r4));
    assertArrayEquals(loads[0], WorstCaseLoad.of(new OptimalScheme().build(6)).worst());
  }

  @Test
  void stopsAtTheFirstCrashCountAboveTheBound() {
    RecoveryScheme s = new IntuitiveScheme().build(200);
    LoadProfile p = WorstCaseLoad.of(s);
    assertEquals(1, p.optimalUpTo());
    assertEquals(2, p.worst().length);
    assertArrayEquals(new int[] {2, 3}, p.worst());
  }

  static int[] shuffled(SplittableRandom rnd, int n) {
    int[] a = IntStream.range(1, n).toArray();
    shuffle(rnd, a);
    return a;
  }

  static void shuffle(SplittableRandom rnd, int[] a) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}
