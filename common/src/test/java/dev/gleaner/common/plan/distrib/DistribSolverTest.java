package dev.gleaner.common.plan.distrib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The general solver against every order and every face, solved by dense elimination. */
class DistribSolverTest {
  private final Random random = new Random(7);

  private double uniform(double lo, double hi) {
    return lo + (hi - lo) * random.nextDouble();
  }

  @Test
  void equalsTheExhaustiveOptimumOnFullyHeterogeneousWorkers() {
    for (int n = 0; n < 60; n++) {
      int p = 1 + n % 7;
      double[] s = new double[p];
      double[] bw = new double[p];
      double[] k = new double[p];
      for (int i = 0; i < p; i++) {
        // wide ranges, so that some instances have the non-concave cases of Section 5.4
        s[i] = Math.exp(uniform(Math.log(0.5), Math.log(200)));
        bw[i] = Math.exp(uniform(Math.log(0.5), Math.log(2000)));
        k[i] = Math.exp(uniform(Math.log(1e-4), Math.log(5e-2)));
      }
      // from well inside the validity bound to far beyond it
      double w = Math.exp(uniform(Math.log(0.1), Math.log(2000)));
      for (DistribSolver.Deploy mode : DistribSolver.Deploy.values()) {
        DistribSolver.Result r = DistribSolver.solve(s, bw, k, w, mode);
        double brute = BruteForce.allOrders(s, bw, k, w, mode == DistribSolver.Deploy.BEST);
        assertEquals(brute, r.quadratic(), 1e-9 * Math.max(1, Math.abs(brute)), mode + ", instance " + n);
        assertTrue(r.exact());
        double[] ss = BruteForce.permute(s, r.order());
        double[] sbw = BruteForce.permute(bw, r.order());
        double[] sk = BruteForce.permute(k, r.order());
        assertEquals(r.quadratic(), SingleRound.quadratic(ss, sbw, sk, r.amounts()), 1e-9 * Math.max(1, Math.abs(brute)));
        for (double a : r.amounts()) {
          assertTrue(a >= 0);
        }
        if (mode == DistribSolver.Deploy.ALL) {
          assertEquals(w, r.deployed(), 1e-9 * w);
        } else {
          assertTrue(r.deployed() <= w * (1 + 1e-12), r.deployed() + " > " + w + " " + java.util.Arrays.toString(r.amounts()));
          // at the optimum of the true expectation every worker with work can finish it
          assertEquals(r.quadratic(), SingleRound.expected(ss, sbw, sk, r.amounts()), 1e-9 * Math.max(1, r.quadratic()));
        }
      }
    }
  }

  /**
   * Above {@value DistribSolver#EXACT_UP_TO} workers the allocation comes from an active-set walk;
   * on instances of up to 12 workers it must reach the same maximum as solving every face, for both
   * problems, inside and beyond the validity bound.
   */
  @Test
  void activeSetReachesTheMaximumOfEveryFace() {
    for (int n = 0; n < 100; n++) {
      int p = 2 + n % 11;
      double[] s = new double[p];
      double[] bw = new double[p];
      double[] k = new double[p];
      int[] order = new int[p];
      for (int i = 0; i < p; i++) {
        s[i] = uniform(1, 100);
        bw[i] = uniform(10, 1000);
        k[i] = uniform(1e-4, 1e-2);
        order[i] = i;
      }
      double w = Math.exp(uniform(Math.log(1), Math.log(5000)));
      for (DistribSolver.Deploy mode : DistribSolver.Deploy.values()) {
        double exact = DistribSolver.forOrder(s, bw, k, order, w, mode, true).quadratic();
        double walk = DistribSolver.forOrder(s, bw, k, order, w, mode, false).quadratic();
        assertEquals(exact, walk, 1e-9 * Math.max(1, Math.abs(exact)), mode + ", instance " + n);
      }
    }
  }

  /**
   * Above {@value DistribSolver#BULK_ABOVE} workers the search is done in bulk (the closed form
   * without communication costs; otherwise one start found in bulk and exchanges among the
   * extreme gradients): on platforms like the runtime's (speeds 1-100, links 10-1,000 or none,
   * risks 1e-4 to 1e-2, in the paper's order) it reaches the maximum the walk from two starts
   * with every exchange reaches, at a fraction of the cost.
   */
  @Test
  void theBulkSearchOfLargePlatformsReachesTheWalksMaximum() {
    for (int n = 0; n < 6; n++) {
      int p = DistribSolver.BULK_ABOVE + 1 + random.nextInt(100);
      boolean input = n % 2 == 0;
      double[] s = new double[p];
      double[] bw = new double[p];
      double[] k = new double[p];
      for (int i = 0; i < p; i++) {
        s[i] = uniform(1, 100);
        bw[i] = input ? uniform(10, 1000) : Double.POSITIVE_INFINITY;
        k[i] = uniform(1e-4, 1e-2);
      }
      int[] order = conjectured(bw, k);
      double w = Math.exp(uniform(Math.log(10), Math.log(1e8)));
      for (DistribSolver.Deploy mode : DistribSolver.Deploy.values()) {
        DistribSolver.Result bulk = DistribSolver.forOrder(s, bw, k, order, w, mode, DistribSolver.Search.BULK);
        DistribSolver.Result walk = DistribSolver.forOrder(s, bw, k, order, w, mode, DistribSolver.Search.WALK);
        double tol = 1e-9 * Math.max(1, Math.abs(walk.quadratic()));
        assertTrue(bulk.quadratic() >= walk.quadratic() - tol, mode + ", instance " + n + " (p " + p + ", input "
            + input + "): bulk " + bulk.quadratic() + " < walk " + walk.quadratic());
        double[] ss = BruteForce.permute(s, order);
        double[] sbw = BruteForce.permute(bw, order);
        double[] sk = BruteForce.permute(k, order);
        assertEquals(bulk.quadratic(), SingleRound.quadratic(ss, sbw, sk, bulk.amounts()), tol);
        for (double a : bulk.amounts()) {
          assertTrue(a >= 0);
        }
        if (mode == DistribSolver.Deploy.ALL) {
          assertEquals(w, bulk.deployed(), 1e-9 * w);
        } else {
          assertTrue(bulk.deployed() <= w * (1 + 1e-12));
        }
      }
    }
  }

  /** Paper 001's Conjecture 1: non-increasing bandwidth times risk. */
  private static int[] conjectured(double[] bw, double[] k) {
    return java.util.stream.IntStream.range(0, bw.length).boxed()
        .sorted((a, b) -> Double.compare(bw[b] * k[b], bw[a] * k[a]) != 0 ? Double.compare(bw[b] * k[b], bw[a] * k[a])
            : Double.compare(bw[b], bw[a]))
        .mapToInt(Integer::intValue).toArray();
  }
}
