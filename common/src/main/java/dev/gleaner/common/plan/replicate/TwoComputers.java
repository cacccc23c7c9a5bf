package dev.gleaner.common.plan.replicate;

/**
 * Paper 000, Algorithm 1: two identical computers of linear risk (sure to be down by X), at most n
 * chunks each, free initiation. Work positions are in [0, W); time is measured in work units.
 *
 * <ul>
 *   <li>W >= 2X: no sharing; P1 takes n chunks of X/(n + 1) from the start, P2 n from the end
 *       (Theorem 2 on each);
 *   <li>W &lt;= X: both take all of W in n equal chunks, in opposite orders;
 *   <li>X &lt; W &lt; 2X: with l = floor(n/3), each first does its own W - X units (P1 from the start,
 *       P2 from the end) in l chunks, then the 2X - W shared units in the middle in 2l chunks, in
 *       opposite orders.
 * </ul>
 */
public final class TwoComputers {
  private TwoComputers() {}

  /**
   * The two computers' chunks, each {@code {from, to}} in processing order.
   *
   * @param p1 first computer's chunks
   * @param p2 second computer's chunks
   */
  public record Schedule(double[][] p1, double[][] p2) {
    /**
     * The exact expected work: each position counts if some computer that holds it finishes its
     * chunk before being interrupted (P(down by t) = t / X, independently).
     */
    public double expected(double x) {
      // sweep over all chunk boundaries; each elementary piece is held by at most one chunk per computer
      java.util.TreeSet<Double> cuts = new java.util.TreeSet<>();
      for (double[][] side : new double[][][] {p1, p2}) {
        for (double[] c : side) {
          cuts.add(c[0]);
          cuts.add(c[1]);
        }
      }
      double e = 0;
      Double previous = null;
      for (double cut : cuts) {
        if (previous != null && cut > previous) {
          double mid = (previous + cut) / 2;
          double lost = lostBy(p1, mid, x) * lostBy(p2, mid, x);
          e += (cut - previous) * (1 - lost);
        }
        previous = cut;
      }
      return e;
    }

    private static double lostBy(double[][] chunks, double position, double x) {
      double t = 0;
      for (double[] c : chunks) {
        t += c[1] - c[0];
        if (c[0] <= position && position < c[1]) {
          return Math.min(1, t / x);
        }
      }
      return 1;
    }
  }

  public static Schedule algorithm1(double w, double x, int n) {
    if (!(w > 0) || !(x > 0) || n < 1) {
      throw new IllegalArgumentException("Algorithm 1 needs W > 0, X > 0 and n >= 1");
    }
    if (w >= 2 * x) {
      double[][] p1 = new double[n][];
      double[][] p2 = new double[n][];
      for (int i = 1; i <= n; i++) {
        p1[i - 1] = new double[] {(i - 1) * x / (n + 1), i * x / (n + 1)};
        p2[i - 1] = new double[] {w - (n - i + 1) * x / (n + 1), w - (n - i) * x / (n + 1)};
      }
      return new Schedule(p1, p2);
    }
    if (w <= x) {
      double[][] p1 = new double[n][];
      double[][] p2 = new double[n][];
      for (int i = 1; i <= n; i++) {
        p1[i - 1] = new double[] {(i - 1) * w / n, i * w / n};
        p2[n - i] = p1[i - 1];
      }
      return new Schedule(p1, p2);
    }
    int l = Math.max(1, n / 3);
    double own = w - x;
    double shared = 2 * x - w;
    double[][] p1 = new double[3 * l][];
    double[][] p2 = new double[3 * l][];
    for (int i = 1; i <= l; i++) {
      p1[i - 1] = new double[] {(i - 1) * own / l, i * own / l};
      p2[i - 1] = new double[] {w - i * own / l, w - (i - 1) * own / l};
    }
    for (int i = 1; i <= 2 * l; i++) {
      double[] c = {own + (i - 1) * shared / (2 * l), own + i * shared / (2 * l)};
      p1[l + i - 1] = c;
      p2[3 * l - i] = c;
    }
    return new Schedule(p1, p2);
  }
}
