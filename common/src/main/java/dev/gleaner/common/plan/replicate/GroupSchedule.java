package dev.gleaner.common.plan.replicate;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.Locale;

/**
 * Paper 000 Section 5.2: a coterie of g identical computers all process the n chunks of one slice;
 * chunks come in n/g groups of g, and the g x (n/g) execution chart C says at which step
 * C[i][j] group j is processed for the (i+1)-th time (within a group the chunks are rotated, so
 * every computer does every chunk once). Under linear risk the slice's expected work is
 * sl - K g kappa^g (sl / n)^(g+1), K = sum_j prod_i C[i][j]: a smaller K is better.
 */
public final class GroupSchedule {
  /** The six schedules of the paper. */
  public enum Kind {
    CYCLIC, REVERSE, MIRROR, SNAKE, FAT_SNAKE, GREEDY;

    public String label() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  private GroupSchedule() {}

  /**
   * The chart of a schedule, steps 1..n.
   *
   * <ul>
   *   <li>cyclic: groups in the same order every time (row i: i c + 1 .. i c + c, c = n/g);
   *   <li>reverse: the first time in order, every later time in reverse order;
   *   <li>mirror: cyclic for the first floor(g/2) rows, reverse after;
   *   <li>snake: forward and reverse rows alternate;
   *   <li>fat-snake: rows in threes: the first forward, the two others share their 2c steps in
   *       reverse order two at a time (the last group gets the first two steps); when g is not a
   *       multiple of 3, the rows left over are forward (this reading reproduces every figure of the
   *       paper's Table 4);
   *   <li>greedy: row by row, the group whose product so far is largest gets the earliest step
   *       (ties to the lower group).
   * </ul>
   *
   * @throws IllegalArgumentException unless 1 <= g and g divides n
   */
  public static int[][] chart(Kind kind, int g, int n) {
    if (g < 1 || n < g || n % g != 0) {
      throw new IllegalArgumentException("a group schedule needs g >= 1 dividing n, got g " + g + ", n " + n);
    }
    int c = n / g;
    int[][] chart = new int[g][c];
    switch (kind) {
      case CYCLIC -> fill(chart, i -> false);
      case REVERSE -> fill(chart, i -> i > 0);
      case MIRROR -> fill(chart, i -> i >= g / 2);
      case SNAKE -> fill(chart, i -> i % 2 == 1);
      case FAT_SNAKE -> fatSnake(chart);
      case GREEDY -> greedy(chart);
      default -> throw new AssertionError(kind);
    }
    return chart;
  }

  private static void fill(int[][] chart, java.util.function.IntPredicate reversed) {
    int c = chart[0].length;
    for (int i = 0; i < chart.length; i++) {
      for (int j = 0; j < c; j++) {
        chart[i][j] = i * c + (reversed.test(i) ? c - j : j + 1);
      }
    }
  }

  private static void fatSnake(int[][] chart) {
    int g = chart.length;
    int c = chart[0].length;
    for (int i = 0; i < g; i++) {
      if (i % 3 == 1 && i + 1 < g) {
        int base = i * c;
        for (int k = 0; k < c; k++) {
          int j = c - 1 - k;
          chart[i][j] = base + 2 * k + 1;
          chart[i + 1][j] = base + 2 * k + 2;
        }
        i++;
      } else {
        for (int j = 0; j < c; j++) {
          chart[i][j] = i * c + j + 1;
        }
      }
    }
  }

  private static void greedy(int[][] chart) {
    int g = chart.length;
    int c = chart[0].length;
    BigInteger[] product = new BigInteger[c];
    Arrays.fill(product, BigInteger.ONE);
    Integer[] columns = new Integer[c];
    for (int i = 0; i < g; i++) {
      for (int j = 0; j < c; j++) {
        columns[j] = j;
      }
      Arrays.sort(columns, (a, b) -> {
        int cmp = product[b].compareTo(product[a]);
        return cmp != 0 ? cmp : Integer.compare(a, b);
      });
      for (int k = 0; k < c; k++) {
        int j = columns[k];
        chart[i][j] = i * c + k + 1;
        product[j] = product[j].multiply(BigInteger.valueOf(chart[i][j]));
      }
    }
  }

  /** K = sum over groups of the product of their steps, exactly. */
  public static BigInteger k(int[][] chart) {
    BigInteger sum = BigInteger.ZERO;
    for (int j = 0; j < chart[0].length; j++) {
      BigInteger p = BigInteger.ONE;
      for (int[] row : chart) {
        p = p.multiply(BigInteger.valueOf(row[j]));
      }
      sum = sum.add(p);
    }
    return sum;
  }

  /** ln K, for ratios of numbers too large for a double. */
  public static double logK(int[][] chart) {
    return log(k(chart));
  }

  static double log(BigInteger v) {
    int shift = Math.max(0, v.bitLength() - 60);
    return Math.log(v.shiftRight(shift).doubleValue()) + shift * Math.log(2);
  }

  /**
   * ln of Proposition 2's lower bound K_min = ceil((n/g) (n!)^(g/n)) on any group schedule's K
   * (the ceiling is taken while the bound fits a double's integers).
   */
  public static double logKMin(int g, int n) {
    double logFactorial = 0;
    for (int i = 2; i <= n; i++) {
      logFactorial += Math.log(i);
    }
    double log = Math.log((double) n / g) + (double) g / n * logFactorial;
    if (log < 36) {
      return Math.log(Math.ceil(Math.exp(log) - 1e-9));
    }
    return log;
  }

  /**
   * The expected work from one slice of sl units in n chunks on g computers of linear risk kappa
   * (free initiation): sl - K g kappa^g (sl / n)^(g + 1). Needs sl kappa &lt;= 1 (no step past 1/kappa).
   */
  public static double expected(int[][] chart, double sl, double kappa) {
    int g = chart.length;
    int n = g * chart[0].length;
    double logTerm = logK(chart) + Math.log(g) + g * Math.log(kappa) + (g + 1) * Math.log(sl / n);
    return sl - Math.exp(logTerm);
  }
}
