package dev.gleaner.common.plan.fifo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.gleaner.common.util.Permutations;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FifoTest {
  private static HiHCoHP random(Random rnd, int n) {
    double[] rho = new double[n];
    double[] pi = new double[n];
    for (int i = 0; i < n; i++) {
      rho[i] = Math.pow(10, -2 * rnd.nextDouble());
      pi[i] = 0.01 * rnd.nextDouble();
    }
    double tau = 0.01 * rnd.nextDouble();
    return new HiHCoHP(0.5 * rnd.nextDouble(), tau + 0.1 * rnd.nextDouble(), tau, 0.01 * rnd.nextDouble(), rnd.nextDouble(), rho, pi);
  }

  /** The printed system, B = pi0 + tau left of the diagonal (started before), tau delta right (finish after). */
  private static double[] dense(HiHCoHP m, int[] order, double lifespan) {
    int n = m.n();
    double[][] a = new double[n][n + 1];
    for (int r = 0; r < n; r++) {
      for (int c = 0; c < n; c++) {
        int i = order[r];
        a[r][c] = c < r ? m.pi0() + m.tau() : c > r ? m.tau() * m.delta() : m.v(i) + m.rho()[i];
      }
      a[r][n] = lifespan - (n + 1) * m.fixed();
    }
    for (int col = 0; col < n; col++) {
      int p = col;
      for (int r = col + 1; r < n; r++) {
        if (Math.abs(a[r][col]) > Math.abs(a[p][col])) {
          p = r;
        }
      }
      double[] t = a[col];
      a[col] = a[p];
      a[p] = t;
      for (int r = 0; r < n; r++) {
        if (r != col) {
          double f = a[r][col] / a[col][col];
          for (int k = col; k <= n; k++) {
            a[r][k] -= f * a[col][k];
          }
        }
      }
    }
    double[] w = new double[n];
    for (int i = 0; i < n; i++) {
      w[i] = a[i][n] / a[i][i];
    }
    return w;
  }

  @Test
  void allocationsSolveTheLinearSystemAndSumToTheClosedForm() {
    Random rnd = new Random(31);
    for (int trial = 0; trial < 200; trial++) {
      int n = 1 + rnd.nextInt(9);
      HiHCoHP m = random(rnd, n);
      int[] order = shuffled(rnd, n);
      double lifespan = 100 + 1000 * rnd.nextDouble();
      double[] w = Fifo.allocations(m, order, lifespan);
      double[] expected = dense(m, order, lifespan);
      double sum = 0;
      for (int k = 0; k < n; k++) {
        assertEquals(expected[k], w[k], 1e-9 * Math.abs(expected[k]), "trial " + trial + " computer " + k);
        sum += w[k];
      }
      assertEquals(sum, Fifo.work(m, order, lifespan), 1e-9 * sum);
      assertEquals(lifespan, Fifo.lifespan(m, order, sum), 1e-9 * lifespan, "Cluster-Rental inverts Cluster-Exploitation");
    }
  }

  /** Paper 003: W(FIFO)(L) does not depend on the startup order; checked over every order up to n = 6. */
  @Test
  void workDoesNotDependOnTheStartupOrder() {
    Random rnd = new Random(32);
    for (int trial = 0; trial < 40; trial++) {
      int n = 2 + rnd.nextInt(5);
      HiHCoHP m = random(rnd, n);
      double lifespan = 500;
      int[] order = new int[n];
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      double first = Fifo.work(m, order, lifespan);
      do {
        double[] w = dense(m, order, lifespan);
        double sum = 0;
        for (double v : w) {
          sum += v;
        }
        assertEquals(first, sum, 1e-9 * first, "trial " + trial);
      } while (Permutations.next(order));
    }
  }

  private static int[] shuffled(Random rnd, int n) {
    int[] o = new int[n];
    for (int i = 0; i < n; i++) {
      o[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = o[i];
      o[i] = o[j];
      o[j] = t;
    }
    return o;
  }
}
