package dev.gleaner.common.plan.fifo;

import java.util.Arrays;

/**
 * The HiHCoHP cost model of paper 003, in seconds per unit of work (a packet is a unit here).
 *
 * @param sigma transmission setup per message
 * @param lambda latency of a message's first unit
 * @param tau network time per further unit (1/beta)
 * @param pi0 the master's packaging time per unit
 * @param delta units of results per unit of work
 * @param rho per-unit computing time of each computer
 * @param pi per-unit (un)packaging time of each computer
 */
public record HiHCoHP(double sigma, double lambda, double tau, double pi0, double delta, double[] rho, double[] pi) {
  public HiHCoHP {
    if (rho.length == 0 || rho.length != pi.length) {
      throw new IllegalArgumentException("HiHCoHP needs one rho and one pi per computer");
    }
    for (double v : new double[] {sigma, lambda, tau, pi0, delta}) {
      if (!(v >= 0) || Double.isInfinite(v)) {
        throw new IllegalArgumentException("HiHCoHP parameters must be finite and >= 0");
      }
    }
    for (int i = 0; i < rho.length; i++) {
      if (!(rho[i] > 0) || !(pi[i] >= 0) || Double.isInfinite(rho[i] + pi[i])) {
        throw new IllegalArgumentException("computer " + i + ": rho must be > 0 and pi >= 0");
      }
    }
    rho = rho.clone();
    pi = pi.clone();
  }

  public int n() {
    return rho.length;
  }

  /** F = sigma + lambda - tau: the fixed cost of one message. */
  public double fixed() {
    return sigma + lambda - tau;
  }

  /** V_i = pi0 + tau (1 + delta) + pi_i (1 + delta): computer i's variable communication rate. */
  public double v(int i) {
    return pi0 + tau * (1 + delta) + pi[i] * (1 + delta);
  }

  @Override
  public double[] rho() {
    return rho.clone();
  }

  /** rho of computer i, without copying the array (a loop over 100,000 computers reads each). */
  public double rho(int i) {
    return rho[i];
  }

  /** pi of computer i, without copying the array. */
  public double pi(int i) {
    return pi[i];
  }

  @Override
  public double[] pi() {
    return pi.clone();
  }

  @Override
  public String toString() {
    return "HiHCoHP[sigma=" + sigma + ", lambda=" + lambda + ", tau=" + tau + ", pi0=" + pi0 + ", delta=" + delta
        + ", rho=" + Arrays.toString(rho) + ", pi=" + Arrays.toString(pi) + "]";
  }
}
