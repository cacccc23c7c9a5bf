package dev.gleaner.common.plan.distrib;

/**
 * The single-round, one-port model of paper 001 (Section 2): the master sends worker k its
 * {@code w_k} units after those of the workers served before it, and worker k then computes them.
 * Each worker is interrupted with linear risk, P(down by t) = min(1, kappa_k t), time counted from the
 * start whether it waits, receives or computes; an interruption loses all its work. Worker k
 * finishes at {@code T_k = sum_{j <= k} w_j / bw_j + w_k / s_k} and its work counts with probability
 * {@code 1 - min(1, kappa_k T_k)}.
 *
 * <p>All arrays are in service order. An infinite bandwidth means free communication.
 */
public final class SingleRound {
  private SingleRound() {}

  /** Time at which each worker finishes, in service order. */
  public static double[] finishTimes(double[] speed, double[] bandwidth, double[] amounts) {
    double[] t = new double[amounts.length];
    double sent = 0;
    for (int k = 0; k < amounts.length; k++) {
      sent += amounts[k] / bandwidth[k];
      t[k] = sent + amounts[k] / speed[k];
    }
    return t;
  }

  /** The true expected work done: each worker's success probability clipped at 0. */
  public static double expected(double[] speed, double[] bandwidth, double[] risk, double[] amounts) {
    double[] t = finishTimes(speed, bandwidth, amounts);
    double e = 0;
    for (int k = 0; k < amounts.length; k++) {
      e += amounts[k] * Math.max(0, 1 - Math.min(1, risk[k] * t[k]));
    }
    return e;
  }

  /**
   * The papers' quadratic {@code sum w_k (1 - kappa_k T_k)}, equal to {@link #expected} while every
   * worker that gets work has a nonzero chance to finish it, and below it otherwise.
   */
  public static double quadratic(double[] speed, double[] bandwidth, double[] risk, double[] amounts) {
    double[] t = finishTimes(speed, bandwidth, amounts);
    double e = 0;
    for (int k = 0; k < amounts.length; k++) {
      e += amounts[k] * (1 - risk[k] * t[k]);
    }
    return e;
  }

  /** Whether every worker that gets work can finish it with nonzero probability (kappa_k T_k < 1). */
  public static boolean valid(double[] speed, double[] bandwidth, double[] risk, double[] amounts) {
    double[] t = finishTimes(speed, bandwidth, amounts);
    for (int k = 0; k < amounts.length; k++) {
      if (amounts[k] > 0 && risk[k] * t[k] >= 1) {
        return false;
      }
    }
    return true;
  }
}
