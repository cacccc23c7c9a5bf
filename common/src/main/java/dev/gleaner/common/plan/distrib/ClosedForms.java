package dev.gleaner.common.plan.distrib;

/**
 * The closed forms of paper 001 for DISTRIB(p), each for workers that differ in one way only. All
 * hand out the whole W and are valid while every worker can still finish (W at most the paper's
 * bound {@code 1 / (z_max + x_max)}). Notation: {@code x_i = kappa_i / s_i} (risk per unit
 * computed), {@code z = kappa / bw} (risk per unit sent).
 *
 * <p>Each method returns the amounts in the order the workers are served and the expected work the
 * theorem states; the tests check both against a brute-force optimiser.
 */
public final class ClosedForms {
  private ClosedForms() {}

  /**
   * The amounts (in service order) and the expectation a theorem gives.
   *
   * @param order worker indices in service order
   * @param amounts units for each worker of {@code order}
   * @param expected the theorem's expected work
   */
  public record Solution(int[] order, double[] amounts, double expected) {}

  /**
   * Theorem 1: free communication, any speeds and risks. Worker i gets W (1/x_i) / sum_j (1/x_j);
   * E = W - W^2 / sum_j (1/x_j). The order does not matter.
   */
  public static Solution theorem1(double[] x, double work) {
    double inv = 0;
    for (double xi : x) {
      inv += 1 / xi;
    }
    double[] amounts = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      amounts[i] = work / x[i] / inv;
    }
    return new Solution(identity(x.length), amounts, work - work * work / inv);
  }

  /** Theorem 2: p identical workers; equal chunks, E = W - ((p + 1) z + 2 x) W^2 / (2 p). */
  public static Solution theorem2(int p, double z, double x, double work) {
    double[] amounts = new double[p];
    java.util.Arrays.fill(amounts, work / p);
    return new Solution(identity(p), amounts, work - ((p + 1) * z + 2 * x) / (2.0 * p) * work * work);
  }

  /**
   * Theorem 3: speeds differ, bandwidth and risk shared. f_1 = z + x_1,
   * f_{n+1} = z + x_{n+1} - (z + 2 x_{n+1})^2 / (4 (f_n + x_{n+1})); Y_n = (z + 2 x_n) / (2 (f_{n-1} + x_n));
   * worker n gets (1 - Y_n) Y_{n+1} ... Y_p W (worker 1: Y_2 ... Y_p W); E = W - f_p W^2, whatever
   * the order. (The paper's symmetric-function form of f_p is {@link #theorem3F}.)
   */
  public static Solution theorem3(double[] x, double z, double work) {
    int p = x.length;
    double[] y = new double[p];
    y[0] = 1;
    double f = z + x[0];
    for (int n = 1; n < p; n++) {
      y[n] = (z + 2 * x[n]) / (2 * (f + x[n]));
      f = z + x[n] - (z + 2 * x[n]) * (z + 2 * x[n]) / (4 * (f + x[n]));
    }
    return new Solution(identity(p), fromY(y, work), work - f * work * work);
  }

  /**
   * f_p of Theorem 3 from the symmetric functions sigma_i of x_1..x_p and lambda_i = 4 (1 + i) / 2^i:
   * f_p = sum_{i=0}^{p} lambda_i sigma_{p-i} z^i / sum_{i=0}^{p-1} lambda_i sigma_{p-1-i} z^i. For
   * small p only (the sigma_i underflow).
   */
  public static double theorem3F(double[] x, double z) {
    int p = x.length;
    double[] sigma = new double[p + 1];
    sigma[0] = 1;
    for (double xi : x) {
      for (int i = p; i >= 1; i--) {
        sigma[i] += sigma[i - 1] * xi;
      }
    }
    double num = 0;
    double den = 0;
    for (int i = 0; i <= p; i++) {
      double lambda = 4.0 * (1 + i) / Math.pow(2, i);
      num += lambda * sigma[p - i] * Math.pow(z, i);
      if (i <= p - 1) {
        den += lambda * sigma[p - 1 - i] * Math.pow(z, i);
      }
    }
    return num / den;
  }

  /**
   * Theorem 4: bandwidths differ, speed s and risk kappa shared; workers served by non-increasing
   * bandwidth, with the paper's recurrences for a_i, b_i and the equivalent bandwidth bw_eq_i
   * (1 / bw_eq_i = sum_{j <= i} alpha_{j,i} / bw_j); E = W - (a_p / b_p) W^2 kappa.
   */
  public static Solution theorem4(double[] bandwidth, double s, double kappa, double work) {
    int[] order = byDecreasing(bandwidth);
    int p = bandwidth.length;
    double[] bw = new double[p];
    for (int i = 0; i < p; i++) {
      bw[i] = bandwidth[order[i]];
    }
    double[] y = new double[p];
    y[0] = 1;
    double a = s + bw[0];
    double b = s * bw[0];
    double[] alpha = new double[p];
    alpha[0] = 1;
    double eq = bw[0];
    for (int i = 1; i < p; i++) {
      double bi = bw[i];
      double inner = eq * (bi + s) - bi * s;
      y[i] = (2 * eq * (bi + s) - bi * s) * b / (2 * (a * eq * bi * s + b * inner));
      double na = a * eq * eq * (bi + s) - 0.25 * b * bi * s;
      double nb = eq * (a * eq * bi * s + b * ((eq - bi) * s + eq * bi));
      a = na;
      b = nb;
      double invEq = 0;
      for (int j = 0; j < i; j++) {
        alpha[j] *= y[i];
        invEq += alpha[j] / bw[j];
      }
      alpha[i] = 1 - y[i];
      invEq += alpha[i] / bi;
      eq = 1 / invEq;
    }
    return new Solution(order, fromY(y, work), work - a / b * work * work * kappa);
  }

  /**
   * Theorem 5: risks differ, speed s and bandwidth bw shared; workers served by non-increasing risk;
   * Y_i = (2 bw + s) b_{i-1} kappa_i / (2 bw (a_{i-1} s kappa_{i-1} + b_{i-1} kappa_i)),
   * a_i = a_{i-1} bw (s + bw) kappa_{i-1} - b_{i-1} s kappa_i / 4, b_i = (a_{i-1} s kappa_{i-1} +
   * b_{i-1} kappa_i) bw^2, a_1 = s + bw, b_1 = s bw; E = W - (a_p / b_p) W^2 kappa_p.
   */
  public static Solution theorem5(double[] risk, double s, double bw, double work) {
    int[] order = byDecreasing(risk);
    int p = risk.length;
    double[] k = new double[p];
    for (int i = 0; i < p; i++) {
      k[i] = risk[order[i]];
    }
    double[] y = new double[p];
    y[0] = 1;
    double a = s + bw;
    double b = s * bw;
    for (int i = 1; i < p; i++) {
      y[i] = (2 * bw + s) * b * k[i] / (2 * bw * (a * s * k[i - 1] + b * k[i]));
      double na = a * bw * (s + bw) * k[i - 1] - 0.25 * b * s * k[i];
      double nb = (a * s * k[i - 1] + b * k[i]) * bw * bw;
      a = na;
      b = nb;
    }
    return new Solution(order, fromY(y, work), work - a / b * work * work * k[p - 1]);
  }

  /** alpha_1 = Y_2 ... Y_p, alpha_n = (1 - Y_n) Y_{n+1} ... Y_p, times W. */
  private static double[] fromY(double[] y, double work) {
    int p = y.length;
    double[] amounts = new double[p];
    double tail = work;
    for (int n = p - 1; n >= 1; n--) {
      amounts[n] = (1 - y[n]) * tail;
      tail *= y[n];
    }
    amounts[0] = tail;
    return amounts;
  }

  private static int[] identity(int p) {
    int[] order = new int[p];
    for (int i = 0; i < p; i++) {
      order[i] = i;
    }
    return order;
  }

  private static int[] byDecreasing(double[] v) {
    Integer[] idx = new Integer[v.length];
    for (int i = 0; i < v.length; i++) {
      idx[i] = i;
    }
    java.util.Arrays.sort(idx, (a, b) -> Double.compare(v[b], v[a]));
    int[] order = new int[v.length];
    for (int i = 0; i < v.length; i++) {
      order[i] = idx[i];
    }
    return order;
  }
}
