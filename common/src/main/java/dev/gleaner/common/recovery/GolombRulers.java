package dev.gleaner.common.recovery;

/**
 * The known optimal Golomb rulers as difference sequences (Paper III, Table 2 for 1-11 differences,
 * Appendix A Table 3 for 12-22): all sums of consecutive differences are distinct, and no shorter
 * sequence of that length has this property. 22 differences (23 marks, total 372) is the longest the
 * thesis lists as proven optimal.
 */
public final class GolombRulers {
  private static final int[][] DIFFERENCES = {
    {1},
    {1, 2},
    {1, 3, 2},
    {1, 3, 5, 2},
    {1, 3, 6, 5, 2},
    {1, 3, 6, 8, 5, 2},
    {1, 3, 5, 6, 7, 10, 2},
    {1, 4, 7, 13, 2, 8, 6, 3},
    {1, 5, 4, 13, 3, 8, 7, 12, 2},
    {1, 3, 9, 15, 5, 14, 7, 10, 6, 2},
    {2, 4, 18, 5, 11, 3, 12, 13, 7, 1, 9},
    {2, 3, 20, 12, 6, 16, 11, 15, 4, 9, 1, 7},
    {4, 2, 14, 15, 17, 7, 18, 1, 8, 3, 10, 23, 5},
    {4, 16, 10, 27, 2, 3, 14, 24, 11, 12, 13, 8, 1, 6},
    {1, 3, 7, 15, 6, 24, 12, 8, 39, 2, 17, 16, 13, 5, 9},
    {5, 2, 10, 35, 4, 11, 13, 1, 19, 22, 16, 21, 6, 3, 23, 8},
    {2, 8, 12, 31, 3, 26, 1, 6, 9, 32, 18, 5, 14, 21, 4, 13, 11},
    {1, 5, 19, 7, 40, 28, 8, 12, 10, 23, 16, 18, 3, 14, 27, 2, 9, 4},
    {1, 7, 3, 57, 9, 17, 22, 5, 35, 2, 21, 15, 14, 4, 16, 12, 13, 6, 24},
    {2, 22, 32, 21, 5, 1, 12, 34, 15, 35, 7, 9, 60, 10, 20, 8, 3, 14, 19, 4},
    {1, 8, 5, 29, 27, 36, 16, 2, 4, 31, 20, 25, 19, 30, 10, 7, 21, 39, 11, 12, 3},
    {3, 4, 10, 44, 5, 25, 8, 15, 45, 12, 28, 1, 26, 9, 11, 31, 39, 13, 19, 2, 16, 6},
  };

  private GolombRulers() {}

  /** The longest difference count the table holds. */
  public static int longest() {
    return DIFFERENCES.length;
  }

  /** The optimal ruler with that many differences (1..{@link #longest()}), as differences. */
  public static int[] differences(int count) {
    if (count < 1 || count > DIFFERENCES.length) {
      throw new IllegalArgumentException("optimal Golomb rulers are known here for 1.." + DIFFERENCES.length
          + " differences, not " + count);
    }
    return DIFFERENCES[count - 1].clone();
  }

  /** The sum of that ruler's differences (its length). */
  public static int length(int count) {
    int s = 0;
    for (int d : differences(count)) {
      s += d;
    }
    return s;
  }
}
