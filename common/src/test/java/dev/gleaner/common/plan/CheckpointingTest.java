package dev.gleaner.common.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Paper 000 Theorems 2 and 3 against a brute-force optimiser over every chunk count. */
class CheckpointingTest {
  private static final int INSTANCES = 200;

  /**
   * The most expected work from at most n chunks of total at most w (or exactly w), found by
   * solving the KKT system of the concave quadratic for every chunk count m with all chunks
   * positive, by dense Gaussian elimination. The charged model's E is
   * sum_j c_j - (1/x)[(sum c)^2/2 + sum c_j^2/2 + eps sum_j j c_j], valid while no chunk ends past x.
   */
  static double bruteForce(double w, double x, double eps, int n, boolean exactly) {
    double best = 0;
    for (int m = 1; m <= n; m++) {
      // unknowns c_1..c_m and mu; gradient_j = mu; either sum c = w or mu = 0
      for (int face = 0; face < 2; face++) {
        boolean atBound = face == 1;
        if (exactly && !atBound) {
          continue;
        }
        double[][] a = new double[m + 1][m + 2];
        for (int j = 0; j < m; j++) {
          for (int k = 0; k < m; k++) {
            a[j][k] = (j == k ? 2 : 1) / x;
          }
          a[j][m] = 1; // + mu
          a[j][m + 1] = 1 - eps * (j + 1) / x;
        }
        if (atBound) {
          for (int k = 0; k < m; k++) {
            a[m][k] = 1;
          }
          a[m][m + 1] = w;
        } else {
          a[m][m] = 1; // mu = 0
        }
        double[] sol = gauss(a);
        double sum = 0;
        boolean ok = sol != null;
        for (int k = 0; ok && k < m; k++) {
          ok = sol[k] > 1e-12;
          sum += sol[k];
        }
        if (!ok || sum > w * (1 + 1e-12) || (atBound && !exactly && sol[m] < -1e-12)) {
          continue;
        }
        double[] c = java.util.Arrays.copyOf(sol, m);
        double e = 0;
        double done = 0;
        for (int k = 0; k < m; k++) {
          done += c[k] + eps;
          e += c[k] * (1 - done / x);
        }
        best = Math.max(best, e);
      }
    }
    return best;
  }

  private static double[] gauss(double[][] a) {
    int n = a.length;
    for (int col = 0; col < n; col++) {
      int pivot = col;
      for (int r = col + 1; r < n; r++) {
        if (Math.abs(a[r][col]) > Math.abs(a[pivot][col])) {
          pivot = r;
        }
      }
      if (Math.abs(a[pivot][col]) < 1e-14) {
        return null;
      }
      double[] t = a[col];
      a[col] = a[pivot];
      a[pivot] = t;
      for (int r = 0; r < n; r++) {
        if (r != col) {
          double f = a[r][col] / a[col][col];
          for (int k = col; k <= n; k++) {
            a[r][k] -= f * a[col][k];
          }
        }
      }
    }
    double[] x = new double[n];
    for (int i = 0; i < n; i++) {
      x[i] = a[i][n] / a[i][i];
    }
    return x;
  }

  @Test
  void theorem2IsTheFreeInitiationOptimum() {
    Random rnd = new Random(2);
    for (int i = 0; i < INSTANCES; i++) {
      double x = 1 + 99 * rnd.nextDouble();
      double w = x * 2 * rnd.nextDouble();
      int n = 1 + rnd.nextInt(8);
      Checkpointing.Chunks c = Checkpointing.theorem2(w, x, n);
      double oracle = bruteForce(w, x, 0, n, false);
      assertEquals(oracle, c.expected(), 1e-9 * oracle, "instance " + i);
      assertEquals(c.expected(), Checkpointing.expected(c.sizes(), x, 0), 1e-9 * oracle);
    }
  }

  @Test
  void theorem3IsTheChargedInitiationOptimumWithItsChunkCount() {
    Random rnd = new Random(3);
    for (int i = 0; i < INSTANCES; i++) {
      double x = 1 + 99 * rnd.nextDouble();
      double eps = x * Math.pow(10, -1 - 2 * rnd.nextDouble());
      double w = x * 2 * rnd.nextDouble();
      int n = 1 + rnd.nextInt(8);
      Checkpointing.Chunks c = Checkpointing.theorem3(w, x, eps, n);
      double oracle = bruteForce(w, x, eps, n, false);
      assertEquals(oracle, c.expected(), 1e-9 * Math.max(1, oracle), "instance " + i + ": w " + w + " x " + x + " eps " + eps);
      assertEquals(c.expected(), Checkpointing.expected(c.sizes(), x, eps), 1e-9 * Math.max(1, oracle));
      for (int k = 1; k < c.sizes().length; k++) {
        assertEquals(c.sizes()[k - 1] - eps, c.sizes()[k], 1e-9 * x, "sizes decrease by eps");
      }
    }
  }

  @Test
  void aFixedAllocationIsChunkedAtLeastAsWellAsTheBestExactSplit() {
    Random rnd = new Random(4);
    for (int i = 0; i < INSTANCES; i++) {
      double x = 1 + 99 * rnd.nextDouble();
      double eps = rnd.nextBoolean() ? 0 : x * Math.pow(10, -1 - 2 * rnd.nextDouble());
      double w = x * 1.5 * rnd.nextDouble();
      int n = 1 + rnd.nextInt(8);
      Checkpointing.Chunks c = Checkpointing.forAllocation(w, x, eps, n);
      assertEquals(w, c.total(), 1e-9 * w, "the whole allocation is computed");
      assertTrue(c.sizes().length <= n + 1, "at most n chunks and the tail");
      assertEquals(Checkpointing.expected(c.sizes(), x, eps), c.expected(), 1e-12 * x);
      // every split of exactly w that ends before x is no better
      double oracle = bruteForce(w, x, eps, n, true);
      assertTrue(c.expected() >= oracle - 1e-9 * x, "instance " + i + ": " + c.expected() + " < " + oracle);
      assertTrue(c.expected() >= Checkpointing.expected(new double[] {w}, x, eps) - 1e-12, "never worse than one chunk");
    }
  }

  /**
   * Each chunk count is weighed in closed form (the m-chunk schedule and the tail): the value
   * equals the expectation of the schedule laid out and summed chunk by chunk.
   */
  @Test
  void theClosedFormValueOfAScheduleIsItsExpectation() {
    Random rnd = new Random(5);
    for (int i = 0; i < INSTANCES; i++) {
      double x = 1 + 9999 * rnd.nextDouble();
      double eps = rnd.nextBoolean() ? 0 : x * Math.pow(10, -1 - 4 * rnd.nextDouble());
      double w = x * 2 * rnd.nextDouble();
      int limit = eps > 0 ? Math.min(2000, Checkpointing.mostChunks(x, eps, 1)) : 50;
      for (int m = 1; m <= limit; m += 1 + m / 10) {
        Checkpointing.Chunks c = eps > 0 ? Checkpointing.charged(w, x, eps, m) : Checkpointing.theorem2(w, x, m);
        double[] sizes = c.sizes();
        boolean positive = java.util.Arrays.stream(sizes).allMatch(v -> v > 0);
        double value = Checkpointing.scheduleValue(w, x, eps, m);
        if (!positive) {
          assertTrue(Double.isNaN(value), "instance " + i + ", m " + m + ": a chunk is not positive");
          continue;
        }
        double sum = java.util.Arrays.stream(sizes).sum();
        double[] laid = w - sum > 1e-9 * w ? java.util.Arrays.copyOf(sizes, sizes.length + 1) : sizes;
        if (laid != sizes) {
          laid[sizes.length] = w - sum;
        }
        double expected = Checkpointing.expected(laid, x, eps);
        assertEquals(expected, value, 1e-9 * Math.max(1, x), "instance " + i + ", m " + m);
      }
    }
  }

  /** With thousands of chunk counts allowed, the best schedule is as good as the best one summed chunk by chunk. */
  @Test
  void aFixedAllocationWithManyChunksAllowedGetsTheBestCount() {
    Random rnd = new Random(6);
    for (int i = 0; i < 40; i++) {
      double x = 100 + 9900 * rnd.nextDouble();
      double eps = 1e-3 + 1e-2 * rnd.nextDouble();
      double w = x * 1.5 * rnd.nextDouble();
      Checkpointing.Chunks c = Checkpointing.forAllocation(w, x, eps, Checkpointing.MAX_CHUNKS);
      assertEquals(w, c.total(), 1e-9 * w);
      assertEquals(Checkpointing.expected(c.sizes(), x, eps), c.expected(), 1e-12 * x);
      double best = Double.NEGATIVE_INFINITY;
      for (int m = 1; m <= Math.min(Checkpointing.MAX_CHUNKS, Checkpointing.mostChunks(x, eps, 1)); m++) {
        double[] sizes = Checkpointing.charged(w, x, eps, m).sizes();
        if (sizes[sizes.length - 1] <= 0) {
          continue;
        }
        double sum = java.util.Arrays.stream(sizes).sum();
        double[] laid = java.util.Arrays.copyOf(sizes, sizes.length + (w - sum > 1e-9 * w ? 1 : 0));
        if (laid.length > sizes.length) {
          laid[sizes.length] = w - sum;
        }
        best = Math.max(best, Checkpointing.expected(laid, x, eps));
      }
      assertTrue(c.expected() >= best - 1e-9 * x, "instance " + i + ": " + c.expected() + " < " + best);
    }
  }
}
