package dev.gleaner.common.recovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

/** The thesis's printed tables as fixtures; where exact evaluation disagrees, the test says so. */
class SchemeTablesTest {
  @Test
  void boundVectors() {
    assertArrayEquals(new int[] {2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6},
        java.util.stream.IntStream.rangeClosed(1, 15).map(Bounds::bv).toArray());
    for (int k = 1; k <= 100_000; k++) {
      assertEquals((int) Math.floor(Math.sqrt(2.0 * (k + 1)) + 0.5), Bounds.bv(k), "closed form at " + k);
    }
    // Type 2 and type 4 as printed in Appendix A of Papers IV and VI (numerators over p).
    assertArrayEquals(new int[] {3, 4, 4, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 9, 10}, bvs(2, 20));
    assertArrayEquals(new int[] {5, 6, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12}, bvs(4, 13));
    // Type 3 as printed ends 9/3, 9/3, 10/3, 10/3, 10/3; the levels-of-p-chains rule that gives the
    // printed types 2 and 4 gives 9/3 three times (the third level-2 chain costs its two crashes at
    // k = 9, the first level-3 chain three more at k = 12). The random-scheme test checks no scheme
    // goes below it.
    assertArrayEquals(new int[] {4, 5, 6, 6, 7, 7, 8, 8, 9, 9, 9, 10, 10}, bvs(3, 13));
    // MV for p = 2, n = 12. Printed: 3/2, 4/2, 4/2, 5/2, 5/2, 6/2, 6/2, 6/2, 7/2, 12/2, 24/2; at k = 9
    // the 24 processes sit on 3 computers, so at least 8/2 - the printed 7/2 is below the pigeonhole.
    assertArrayEquals(new int[] {3, 4, 4, 5, 5, 6, 6, 6, 8, 12, 24}, Bounds.mv(12, 2));
  }

  private static int[] bvs(int p, int len) {
    return java.util.stream.IntStream.rangeClosed(1, len).map(k -> Bounds.bv(k, p)).toArray();
  }

  /** Paper III, Section 4 and Table 1; Paper VI, Section 5.4. */
  @Test
  void greedy() {
    assertArrayEquals(new int[] {1, 3, 7, 12, 20, 30, 44, 65, 80, 96, 122, 147, 181, 203, 251, 289},
        GreedyScheme.head(290));
    assertArrayEquals(new int[] {1, 3, 7, 12, 2, 4, 5, 6, 8, 9, 10, 11, 13, 14, 15},
        new GreedyScheme().build(16).list(0));
    assertArrayEquals(new int[] {1, 2, 4, 5, 8, 10, 14, 21, 15, 16}, GreedyScheme.steps(97));
  }

  /** Paper III, Table 2 and Appendix A; the list examples of Sections 5 and of Paper V. */
  @Test
  void golomb() {
    int[] sums = {1, 3, 6, 11, 17, 25, 34, 44, 55, 72, 85, 106, 127, 151, 177, 199, 216, 246, 283, 333, 356, 372};
    for (int x = 1; x <= GolombRulers.longest(); x++) {
      assertEquals(sums[x - 1], GolombRulers.length(x));
      int[] marks = new int[x + 1];
      for (int i = 0; i < x; i++) {
        marks[i + 1] = marks[i] + GolombRulers.differences(x)[i];
      }
      assertTrue(ModuloScheme.isModular(marks[x] * 2 + 1, Arrays.copyOfRange(marks, 1, x + 1)),
          "ruler " + x + " measures a distance twice");
    }
    assertArrayEquals(new int[] {1, 4, 9, 11, 2, 3, 5, 6, 7, 8, 10}, new GolombScheme().build(12).list(0));
    assertArrayEquals(new int[] {1, 4, 9, 11, 2, 3, 5, 6, 7, 8, 10, 12, 13}, new GolombScheme().build(14).list(0));
    // Table 2: Golomb guarantees 6 crashes for 26 <= n <= 30, greedy 5; both 6 for 31 <= n <= 34.
    for (int n = 26; n <= 34; n++) {
      assertEquals(6, new GolombScheme().guaranteed(n));
      assertEquals(n <= 30 ? 5 : 6, new GreedyScheme().guaranteed(n));
    }
  }

  /**
   * Paper III, Section 5: for n = 100 the Golomb, greedy and older (Log) schemes guarantee 11, 10
   * and 6 crashes; for n = 1000 the paper says 34, 26 and 9. The 34 comes from record rulers beyond
   * the 23-mark table of proven optimal ones that we ship, with which our Golomb scheme guarantees
   * 22. Exact evaluation keeps L = MV much further than any of these guarantees.
   */
  @Test
  void paperThreeComparisons() {
    assertEquals(11, new GolombScheme().guaranteed(100));
    assertEquals(10, new GreedyScheme().guaranteed(100));
    assertEquals(6, new LogScheme().guaranteed(100));
    assertEquals(22, new GolombScheme().guaranteed(1000));
    assertEquals(26, new GreedyScheme().guaranteed(1000));
    assertEquals(9, new LogScheme().guaranteed(1000));
    assertEquals(42, WorstCaseLoad.of(new GolombScheme().build(100)).optimalUpTo());
    assertEquals(25, WorstCaseLoad.of(new GreedyScheme().build(100)).optimalUpTo());
    assertEquals(13, WorstCaseLoad.of(new LogScheme().build(100)).optimalUpTo());
  }

  /** Paper IV, Table 1: modulo sequences (as lists) and the n from which each Golomb ruler works. */
  @Test
  void paperFourTableOne() {
    int[][] modulo = {{1}, {1, 3}, {1, 4, 6}, {1, 6, 3, 10}, {1, 3, 7, 17, 12}, {1, 3, 23, 7, 17, 12},
      {1, 5, 7, 18, 27, 30, 15}, {1, 4, 30, 15, 38, 17, 22, 10}, {1, 4, 48, 33, 9, 50, 25, 39, 19},
      {1, 5, 49, 58, 15, 18, 39, 41, 47, 12}, {1, 5, 43, 34, 55, 65, 71, 14, 41, 73, 58},
      {1, 6, 78, 47, 20, 24, 45, 74, 57, 17, 8, 87}};
    int[] m = {2, 4, 7, 11, 18, 24, 31, 40, 51, 62, 76, 92};
    int[] golombN = {2, 4, 7, 12, 18, 26, 35, 45, 56, 73, 86, 107};
    for (int x = 1; x <= modulo.length; x++) {
      assertTrue(ModuloScheme.isModular(m[x - 1], modulo[x - 1]), "printed sequence " + x + " mod " + m[x - 1]);
      assertEquals(golombN[x - 1], GolombRulers.length(x) + 1);
      // the theorem: a modular head of length x keeps L = MV for x crashes
      LoadProfile p = WorstCaseLoad.of(RecoveryScheme.regular("modulo", m[x - 1], modulo[x - 1]));
      assertTrue(p.optimalUpTo() >= Math.min(x, m[x - 1] - 1), "modulo " + m[x - 1] + ": " + p);
    }
    // Our search finds heads as long as the printed ones where they are small enough to search.
    for (int x = 1; x <= 7; x++) {
      assertEquals(x, new ModuloScheme().guaranteed(m[x - 1]), "modulo search for n = " + m[x - 1]);
    }
  }

  /**
   * Paper V, Tables 1 and 2: each printed sequence meets Theorem 1's conditions, has the printed
   * sum, and keeps L = MV at least for the printed number of crashes at n = sum + 1 (which is
   * l(l+1)/2, the disjoint part; exact evaluation gives 3, 8, 13, 19, 26, 42, 52). Theorem 1's own
   * count l(l+1)/2 + l - 1 overshoots for the smallest case: for S = (1, 2, 2), n = 6, the lists of
   * the fill-in computers are short enough that some 4 crashes put 4 processes on one computer, so
   * L(6, 4) = 4 > MV = 3 (the proof only counts the first l(l+1)/2 crash routes).
   */
  @Test
  void paperFiveTables() {
    int[][] sequences = {{1, 2, 2}, {1, 3, 2, 6, 1, 3}, {1, 3, 5, 2, 6, 6, 6, 3, 3, 6},
      {1, 3, 6, 2, 5, 13, 1, 9, 2, 3, 8, 5, 6, 3, 6},
      {1, 3, 6, 8, 5, 2, 20, 6, 5, 1, 10, 12, 2, 4, 3, 5, 11, 5, 10, 1, 7},
      {1, 3, 5, 6, 7, 10, 2, 24, 3, 11, 2, 20, 2, 2, 8, 6, 2, 19, 2, 6, 6, 2, 13, 10, 2, 14, 6, 7},
      {1, 4, 7, 13, 2, 8, 6, 3, 28, 14, 3, 1, 17, 3, 18, 10, 2, 7, 9, 3, 18, 9, 7, 9, 3, 9, 18, 3, 8, 8, 4, 13,
        2, 14, 3, 18}};
    int[] sums = {5, 16, 41, 73, 127, 201, 305};
    int[] printed = {3, 6, 10, 15, 21, 28, 36};
    int[] exact = {3, 8, 13, 19, 26, 42, 52};
    for (int i = 0; i < sequences.length; i++) {
      int l = i + 2;
      assertTrue(TrapeziumScheme.isTrapezium(sequences[i], l), "row " + sums[i]);
      assertEquals(sums[i], Arrays.stream(sequences[i]).sum());
      int n = sums[i] + 1;
      LoadProfile p = WorstCaseLoad.untilAboveBound(
          RecoveryScheme.regular("trapezium", n, SchemeGenerator.partialSumsBelow(n, sequences[i])), n - 1);
      assertEquals(exact[i], p.optimalUpTo(), "row " + sums[i]);
      assertTrue(p.optimalUpTo() >= printed[i]);
      // our construction reaches the same l for the same n
      assertEquals(l * (l + 1) / 2 + l - 1, new TrapeziumScheme().guaranteed(n), "n = " + n);
    }
    // Section 4.5: n = 19, S = (1, 3, 2, 5, 2, 5) is optimal for 8 crashed nodes; our construction.
    assertArrayEquals(new int[] {1, 4, 6, 11, 13, 18}, Arrays.copyOf(new TrapeziumScheme().build(19).list(0), 6));
    assertEquals(8, WorstCaseLoad.of(new TrapeziumScheme().build(19)).optimalUpTo());
    RecoveryScheme small = RecoveryScheme.regular("trapezium", 6, new int[] {1, 3, 5});
    assertEquals(4, Brute.worstCase(small)[3]);
    assertEquals(3, Bounds.mv(6, 4, 1));
  }

  /**
   * Paper VI, Table 2: how far MV is tight. The thesis reports n <= 9: every k; n = 10: 7; n = 15: 8;
   * n = 20 and 21: 13. Its printed sequences give these values, but the exhaustive search finds
   * better ones for n = 10 (tight for all 9 crashes), n = 15 (11) and n = 21 (16); the brute-force
   * check below confirms the n = 10 scheme over all 1023 crash sets. The printed n = 21 row has 20
   * entries (computer 4 is missing); put back as R_5 or R_6 it gives the printed 13.
   */
  @Test
  void paperSixTableTwo() {
    int[][] printed = {{1, 3, 2}, {1, 3, 2, 4}, {1, 3, 5, 4, 2}, {1, 4, 6, 2, 3, 5}, {1, 3, 7, 5, 6, 2, 4},
      {1, 3, 7, 5, 2, 8, 6, 4}, {1, 5, 3, 2, 9, 7, 8, 4, 6}};
    int[] printedUpTo = {3, 4, 5, 6, 7, 8, 7};
    for (int i = 0; i < printed.length; i++) {
      int n = i + 4;
      assertEquals(printedUpTo[i], WorstCaseLoad.of(RecoveryScheme.regular("printed", n, printed[i])).optimalUpTo(),
          "printed sequence for n = " + n);
    }
    assertEquals(8, WorstCaseLoad.of(RecoveryScheme.regular("printed", 15,
        new int[] {1, 6, 8, 4, 11, 2, 3, 5, 7, 9, 10, 12, 13, 14})).optimalUpTo());
    assertEquals(13, WorstCaseLoad.of(RecoveryScheme.regular("printed", 20,
        new int[] {1, 8, 13, 4, 10, 7, 6, 2, 3, 5, 12, 11, 9, 16, 14, 15, 17, 18, 19})).optimalUpTo());
    assertEquals(13, WorstCaseLoad.of(RecoveryScheme.regular("printed", 21,
        new int[] {1, 9, 11, 7, 4, 14, 3, 2, 5, 6, 8, 10, 12, 13, 15, 16, 17, 18, 19, 20})).optimalUpTo());
    // n = 4..21; n = 20 takes the exhaustive search about 40 s, so here it runs within a budget and
    // matches the thesis (the README gives the exhaustive run)
    int[] searched = {3, 4, 5, 6, 7, 8, 9, 10, 8, 12, 11, 11, 15, 12, 13, 13, 13, 16};
    for (int n = 4; n <= 21; n++) {
      OptimalScheme.Result r = new OptimalScheme(n == 20 ? Schemes.BEST_SEARCH_BUDGET : OptimalScheme.DEFAULT_BUDGET)
          .search(n);
      assertTrue(r.exhaustive() || n == 20);
      LoadProfile p = WorstCaseLoad.of(r.scheme());
      assertEquals(searched[n - 4], p.optimalUpTo(), "n = " + n);
    }
    RecoveryScheme ten = RecoveryScheme.regular("searched", 10, new int[] {1, 3, 7, 5, 6, 4, 2, 9, 8});
    assertArrayEquals(Bounds.mv(10, 1), Brute.worstCase(ten));
    // the thesis's n = 14 sequence names computer 11 twice and is refused
    assertThrows(IllegalArgumentException.class,
        () -> RecoveryScheme.regular("printed", 14, new int[] {6, 1, 5, 3, 11, 2, 4, 7, 8, 9, 10, 11, 13}));
  }
}
