package dev.gleaner.common.plan.replicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** Paper 000, Theorem 5, on Algorithm 1's schedules (X = 1/kappa). */
class TwoComputersTest {
  /** W >= 2X: n/(n+1) X, Theorem 2's optimum on each computer; tends to X. */
  @Test
  void largeWorkloadsGetTheorem2OnEachComputer() {
    Random rnd = new Random(51);
    for (int trial = 0; trial < 200; trial++) {
      double x = 1 + 9 * rnd.nextDouble();
      double w = x * (2 + 3 * rnd.nextDouble());
      int n = 1 + rnd.nextInt(20);
      double e = TwoComputers.algorithm1(w, x, n).expected(x);
      assertEquals((double) n / (n + 1) * x, e, 1e-9 * x);
    }
  }

  /** W &lt;= X: W - W^3 kappa^2 / 6 (1 + 3/n + 2/n^2). */
  @Test
  void smallWorkloadsInOppositeOrders() {
    Random rnd = new Random(52);
    for (int trial = 0; trial < 200; trial++) {
      double x = 1 + 9 * rnd.nextDouble();
      double w = x * rnd.nextDouble();
      int n = 1 + rnd.nextInt(20);
      double k = 1 / x;
      double e = TwoComputers.algorithm1(w, x, n).expected(x);
      assertEquals(w - w * w * w * k * k / 6 * (1 + 3.0 / n + 2.0 / ((double) n * n)), e, 1e-9 * w);
    }
  }

  /**
   * X &lt; W &lt; 2X: the printed closed form is garbled in our copy, so we check the limit instead,
   * derived from the schedule: own parts a = W - X each, shared b = 2X - W processed at a + s and
   * X - s, giving 2a - kappa a^2 + b - kappa^2 (a X b + (X - a) b^2 / 2 - b^3 / 3). The finite
   * schedules approach it from below.
   */
  @Test
  void intermediateWorkloadsTendToTheLimit() {
    Random rnd = new Random(53);
    for (int trial = 0; trial < 50; trial++) {
      double x = 1 + 9 * rnd.nextDouble();
      double w = x * (1 + rnd.nextDouble());
      double k = 1 / x;
      double a = w - x;
      double b = 2 * x - w;
      double limit = 2 * a - k * a * a + b - k * k * (a * x * b + (x - a) * b * b / 2 - b * b * b / 3);
      double previous = 0;
      for (int n : new int[] {3, 30, 300, 3000}) {
        double e = TwoComputers.algorithm1(w, x, n).expected(x);
        assertTrue(e <= limit + 1e-9 * x, "below the limit");
        assertTrue(e >= previous - 1e-9 * x, "more chunks never hurt");
        previous = e;
      }
      assertEquals(limit, previous, 2e-3 * x, "trial " + trial);
    }
  }
}
