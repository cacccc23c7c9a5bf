package dev.gleaner.common.plan.fifo;

/**
 * The FIFO worksharing protocol (paper 003): the master sends to the computers in a startup order,
 * and they finish (and return results) in that same order, all of it within a lifespan L.
 *
 * <p>Row i of its linear system says computer s_i's time adds up to L: the sends to those started
 * before it ((pi0 + tau) per unit each), its own communication and computing ((V + rho) per unit),
 * and the results of those finishing after it (tau delta per unit each), plus (n + 1) fixed
 * message costs F. Subtracting consecutive rows gives
 * w_{i+1} = w_i (V_i + rho_i - pi0 - tau) / (V_{i+1} + rho_{i+1} - tau delta), so the system is solved
 * in O(n).
 */
public final class Fifo {
  private Fifo() {}

  /**
   * The allocations (units) of each computer in the startup order, for lifespan L.
   *
   * @param order computer indices in startup order (a permutation of 0..n-1)
   * @return w[k] for the k-th computer started; all zero if L cannot pay the fixed costs
   */
  public static double[] allocations(HiHCoHP m, int[] order, double lifespan) {
    int n = m.n();
    double budget = lifespan - (n + 1) * m.fixed();
    double[] ratio = new double[n];
    ratio[0] = 1;
    double td = m.tau() * m.delta();
    for (int k = 0; k + 1 < n; k++) {
      int i = order[k];
      int j = order[k + 1];
      ratio[k + 1] = ratio[k] * (m.v(i) + m.rho(i) - m.pi0() - m.tau()) / (m.v(j) + m.rho(j) - td);
    }
    double rest = 0;
    for (int k = 1; k < n; k++) {
      rest += ratio[k];
    }
    double w1 = budget / (m.v(order[0]) + m.rho(order[0]) + td * rest);
    double[] w = new double[n];
    for (int k = 0; k < n; k++) {
      w[k] = Math.max(0, w1 * ratio[k]);
    }
    return w;
  }

  /**
   * X(FIFO, order) = sum_i 1/(V_i + rho_i - tau delta) prod_{j<i} (1 - (pi0 + tau - tau delta)/(V_j + rho_j - tau delta)).
   */
  public static double x(HiHCoHP m, int[] order) {
    double td = m.tau() * m.delta();
    double sum = 0;
    double prod = 1;
    for (int i : order) {
      double d = m.v(i) + m.rho(i) - td;
      sum += prod / d;
      prod *= 1 - (m.pi0() + m.tau() - td) / d;
    }
    return sum;
  }

  /** W(FIFO)(L) = (L - (n + 1) F) / (tau delta + 1/X): the work done in lifespan L (Cluster-Exploitation). */
  public static double work(HiHCoHP m, int[] order, double lifespan) {
    return Math.max(0, (lifespan - (m.n() + 1) * m.fixed()) / (m.tau() * m.delta() + 1 / x(m, order)));
  }

  /** The shortest lifespan in which FIFO does W units (Cluster-Rental): the inverse of {@link #work}. */
  public static double lifespan(HiHCoHP m, int[] order, double work) {
    return work * (m.tau() * m.delta() + 1 / x(m, order)) + (m.n() + 1) * m.fixed();
  }
}
