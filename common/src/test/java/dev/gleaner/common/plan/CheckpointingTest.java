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

  /**
   * The expected wall time to compute W seconds of work in pieces of T, each followed by a
   * checkpoint of eps, when interruptions come at rate lambda and lose the piece under way (restarts
   * free): each piece with its checkpoint takes (e^(lambda (T + eps)) - 1) / lambda on average.
   */
  private static double expectedTime(double work, double t, double eps, double rate) {
    return work / t * Math.expm1(rate * (t + eps)) / rate;
  }

  /** Young's interval against the exact optimum of the exponential model, by a search over T. */
  @Test
  void youngsIntervalIsTheOptimumOfTheExponentialModelWhenCheckpointsAreCheap() {
    Random rnd = new Random(24);
    for (int i = 0; i < INSTANCES; i++) {
      double mtbf = 3600 * (1 + 99 * rnd.nextDouble());
      double eps = 0.01 + 5 * rnd.nextDouble();
      double young = Checkpointing.youngDaly(eps, 1 / mtbf);
      assertEquals(Math.sqrt(2 * eps * mtbf), young, 1e-9 * young);
      // golden-section search for the T of least expected time
      double a = eps / 100;
      double b = mtbf;
      double g = (Math.sqrt(5) - 1) / 2;
      for (int k = 0; k < 200; k++) {
        double c = b - g * (b - a);
        double d = a + g * (b - a);
        if (expectedTime(1e6, c, eps, 1 / mtbf) < expectedTime(1e6, d, eps, 1 / mtbf)) {
          b = d;
        } else {
          a = c;
        }
      }
      double best = (a + b) / 2;
      // first order: within sqrt(eps / mtbf) of the optimum, and its time within 0.1% of the least
      assertEquals(best, young, 2 * Math.sqrt(eps / mtbf) * best, "instance " + i);
      assertTrue(expectedTime(1e6, young, eps, 1 / mtbf) <= 1.001 * expectedTime(1e6, best, eps, 1 / mtbf));
    }
    assertEquals(Double.POSITIVE_INFINITY, Checkpointing.youngDaly(0.05, 0), "no risk: no bound");
    assertEquals(Double.POSITIVE_INFINITY, Checkpointing.youngDaly(0, 1e-4), "no cost known: no bound");
  }

  @Test
  void aBoundedChunkHasNoPieceOverTheBoundAndKeepsItsOwnCheckpoints() {
    Random rnd = new Random(25);
    for (int i = 0; i < INSTANCES; i++) {
      long start = rnd.nextInt(1000);
      long end = start + 1 + rnd.nextInt(1_000_000);
      long[] own = rnd.longs(rnd.nextInt(4), start + 1, end).sorted().distinct().toArray();
      if (own.length > 0 && own[0] <= start) {
        continue;
      }
      ChunkPlan c = new ChunkPlan(start, end, own);
      double bound = 1 + rnd.nextInt(200_000);
      ChunkPlan b = Checkpointing.bounded(c, bound, x -> x, Checkpointing.MAX_CHUNKS);
      assertEquals(start, b.start());
      assertEquals(end, b.end());
      long previous = start;
      for (int k = 0; k <= b.checkpoints().length; k++) {
        long at = k < b.checkpoints().length ? b.checkpoints()[k] : end;
        assertTrue(at - previous <= Math.ceil(bound), "instance " + i + ": a piece of " + (at - previous) + " over " + bound);
        previous = at;
      }
      for (long o : own) {
        assertTrue(java.util.Arrays.binarySearch(b.checkpoints(), o) >= 0, "its own checkpoint " + o + " stays");
      }
      // fewest pieces that hold the bound, give or take one per own piece
      long least = (long) Math.ceil((end - start) / bound);
      assertTrue(b.checkpoints().length + 1 <= least + own.length + 1, b.checkpoints().length + 1 + " pieces, " + least);
    }
    // cuts go to legal places only (here multiples of 1000), and a tiny bound cannot make a million pieces
    ChunkPlan lines = Checkpointing.bounded(new ChunkPlan(0, 1_000_000, new long[0]), 2500, x -> (x + 999) / 1000 * 1000,
        Checkpointing.MAX_CHUNKS);
    assertTrue(java.util.Arrays.stream(lines.checkpoints()).allMatch(x -> x % 1000 == 0));
    assertEquals(400, lines.checkpoints().length + 1);
    assertEquals(100, Checkpointing.bounded(new ChunkPlan(0, 1_000_000, new long[0]), 1, x -> x, 100)
        .checkpoints().length + 1);
    ChunkPlan small = new ChunkPlan(0, 10, new long[] {5});
    assertTrue(small == Checkpointing.bounded(small, 10, x -> x, 100), "a chunk within the bound is unchanged");
  }
}
