package dev.gleaner.common.plan.replicate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.gleaner.common.plan.replicate.GroupSchedule.Kind;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReplicationTest {
  /** Theorem 6 against the chunk-by-chunk expectation with each chunk taking sl/n + eps. */
  @Test
  void theorem6IsTheChargedExpectation() {
    Random rnd = new Random(6);
    for (int trial = 0; trial < 200; trial++) {
      int g = 1 + rnd.nextInt(6);
      int n = g * (1 + rnd.nextInt(8));
      double kappa = 1.0 / (1 + 99 * rnd.nextDouble());
      double eps = rnd.nextDouble() * 0.02 / kappa / n;
      double sl = rnd.nextDouble() * (1 / kappa - n * eps);
      int[][] chart = GroupSchedule.chart(Kind.values()[rnd.nextInt(6)], g, n);
      double step = sl / n + eps;
      double e = 0;
      for (int j = 0; j < chart[0].length; j++) {
        double lost = 1;
        for (int[] row : chart) {
          lost *= Math.min(1, row[j] * step * kappa);
        }
        e += g * (sl / n) * (1 - lost);
      }
      assertEquals(e, Replication.charged(chart, sl, kappa, eps), 1e-9 * sl, "trial " + trial);
    }
  }

  /** The binary search finds the best chunk count a full scan finds. */
  @Test
  void binarySearchFindsTheScanOptimum() {
    Random rnd = new Random(7);
    for (int trial = 0; trial < 100; trial++) {
      int g = 1 + rnd.nextInt(5);
      double kappa = 1;
      double eps = Math.pow(10, -2 - 2 * rnd.nextDouble());
      double sl = 0.2 + 0.6 * rnd.nextDouble();
      int maxGroups = 200;
      int limit = (int) Math.min(maxGroups, Math.floor((1 / kappa - sl) / (g * eps)));
      int best = 1;
      for (int m = 2; m <= limit; m++) {
        if (Replication.value(Kind.GREEDY, g, sl, kappa, eps, m) > Replication.value(Kind.GREEDY, g, sl, kappa, eps, best)) {
          best = m;
        }
      }
      int found = Replication.chunkCount(Kind.GREEDY, g, sl, kappa, eps, maxGroups);
      assertEquals(Replication.value(Kind.GREEDY, g, sl, kappa, eps, best),
          Replication.value(Kind.GREEDY, g, sl, kappa, eps, found / g), 1e-12, "trial " + trial + ": g " + g + " eps " + eps + " sl " + sl);
    }
  }
}
