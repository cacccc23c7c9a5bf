package dev.gleaner.common.recovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import org.junit.jupiter.api.Test;

class RecoverySchemeTest {
  @Test
  void regularListsAreShifts() {
    RecoveryScheme s = RecoveryScheme.regular("x", 6, new int[] {1, 3, 5, 4, 2});
    assertArrayEquals(new int[] {2, 4, 0, 5, 3}, s.list(1));
    assertArrayEquals(new int[] {0, 2, 4, 3, 1}, s.list(5));
    assertTrue(s.isRegular());
    assertArrayEquals(new int[] {0, 1, 3, 5, 4, 2}, s.sequence());
  }

  @Test
  void refusesInvalidListsWithAClearMessage() {
    assertEquals("the list of computer 0 names its own computer 0",
        assertThrows(IllegalArgumentException.class, () -> RecoveryScheme.regular("x", 5, new int[] {0, 1})).getMessage());
    assertEquals("the list of computer 0 names computer 3 twice",
        assertThrows(IllegalArgumentException.class, () -> RecoveryScheme.regular("x", 5, new int[] {3, 3})).getMessage());
    assertEquals("the list of computer 0 names computer 7, outside 0..4",
        assertThrows(IllegalArgumentException.class, () -> RecoveryScheme.regular("x", 5, new int[] {7})).getMessage());
    assertEquals("the list of computer 1 has 1 entries; with n = 3 it must name each of the other 2 computers once",
        assertThrows(IllegalArgumentException.class,
            () -> RecoveryScheme.general("x", new int[][] {{1, 2}, {0}, {0, 1}})).getMessage());
    assertEquals("a recovery scheme needs at least 2 computers, got 1",
        assertThrows(IllegalArgumentException.class, () -> Schemes.build("best", 1)).getMessage());
    assertTrue(assertThrows(IllegalArgumentException.class, () -> Schemes.byName("nope")).getMessage()
        .startsWith("unknown recovery scheme 'nope'; known: optimal, modulo"));
  }

  /**
   * Paper VI, Appendix A: n = 11, p = 2 from R_0 = 1, 6, 3, 10, 2, 4, 5, 7, 8, 9. The printed lists
   * name the process's own computer; ours drop it and end with the computer the printed list omits.
   * Every placement the printed list gives is the same.
   */
  @Test
  void processesVariantPlacesLikeTheAppendix() {
    RecoveryScheme s = RecoveryScheme.regular("m", 11, new int[] {1, 6, 3, 10, 2, 4, 5, 7, 8, 9}).withProcesses(2);
    int[][] printed = {{1, 6, 3, 10, 2, 4, 5, 7, 8, 9}, {6, 0, 8, 4, 7, 9, 10, 1, 2, 3},
      {2, 7, 4, 0, 3, 5, 6, 8, 9, 10}, {7, 1, 9, 5, 8, 10, 0, 2, 3, 4}, {3, 8, 5, 1, 4, 6, 7, 9, 10, 0},
      {8, 2, 10, 6, 9, 0, 1, 3, 4, 5}, {4, 9, 6, 2, 5, 7, 8, 10, 0, 1}, {9, 3, 0, 7, 10, 1, 2, 4, 5, 6},
      {5, 10, 7, 3, 6, 8, 9, 0, 1, 2}, {10, 4, 1, 8, 0, 2, 3, 5, 6, 7}};
    for (int q = 0; q < printed.length; q++) {
      int computer = q / 2;
      int process = q % 2;
      for (int mask = 0; mask < 1 << 11; mask++) {
        BitSet down = BitSet.valueOf(new long[] {mask});
        if (!down.get(computer)) {
          continue;
        }
        int expected = -1;
        for (int c : printed[q]) {
          if (!down.get(c)) {
            expected = c;
            break;
          }
        }
        if (expected >= 0) {
          assertEquals(expected, s.placement(computer, process, down), "process " + q + " down " + down);
        }
      }
    }
    // Paper IV, Appendix A, Theorem 2: optimal while R_0(i) < floor(n/p), here for 1 crash (R_0(1) = 1 < 5)
    assertTrue(WorstCaseLoad.of(s).optimalUpTo() >= 1);
  }

  /** A regular scheme keeps computer 0's list only: every list, entry and placement is its shift. */
  @Test
  void aRegularSchemeAnswersFromComputerZerosListAlone() {
    int n = 23;
    RecoveryScheme s = Schemes.build("trapezium", n);
    int[] r0 = s.list(0);
    BitSet down = new BitSet();
    java.util.Random rnd = new java.util.Random(1);
    for (int i = 0; i < n; i++) {
      int[] li = s.list(i);
      for (int k = 0; k < n - 1; k++) {
        assertEquals((r0[k] + i) % n, li[k]);
        assertEquals(li[k], s.at(i, k));
        assertArrayEquals(li, s.rawLists()[i]);
      }
      down.clear();
      for (int c = 0; c < n; c++) {
        if (rnd.nextInt(3) == 0) {
          down.set(c);
        }
      }
      int expected = !down.get(i) ? i : -1;
      for (int k = 0; expected < 0 && k < n - 1; k++) {
        expected = down.get(li[k]) ? -1 : li[k];
      }
      assertEquals(expected, s.placement(i, 0, down));
    }
  }

  /**
   * Regression: the scheme of a job on 100,000 workers was n lists of n - 1 computers (40 GB);
   * it is computer 0's list, and any entry of any list is one addition away.
   */
  @Test
  void theSchemeOfAHundredThousandWorkersIsOneList() {
    RecoveryScheme s = RecoveryPlans.forWorkers(100_000);
    assertEquals(100_000, s.n());
    assertEquals((s.at(0, 5) + 77_777) % 100_000, s.at(77_777, 5));
    assertEquals(99_999, s.list(99_999).length);
  }
}
