package dev.gleaner.common.plan.distrib;

import dev.gleaner.common.util.Permutations;

/**
 * Test oracles for single-round allocations, written independently of the solver: the
 * expectation's quadratic form as a dense matrix, maximised by (a) pairwise exchange with exact line
 * search, and (b) a dense Gaussian-elimination solve of every face's KKT system.
 */
final class BruteForce {
  private BruteForce() {}

  /** E(w) = sum w - w^T M w for workers in service order. */
  static double[][] matrix(double[] s, double[] bw, double[] k) {
    int p = s.length;
    double[][] m = new double[p][p];
    for (int i = 0; i < p; i++) {
      m[i][i] = k[i] * (1 / bw[i] + 1 / s[i]);
      for (int j = 0; j < i; j++) {
        m[i][j] = k[i] / bw[j] / 2;
        m[j][i] = m[i][j];
      }
    }
    return m;
  }

  static double value(double[][] m, double[] w) {
    double v = 0;
    for (int i = 0; i < w.length; i++) {
      v += w[i];
      for (int j = 0; j < w.length; j++) {
        v -= w[i] * m[i][j] * w[j];
      }
    }
    return v;
  }

  /**
   * The maximum over {w >= 0, sum w = W} by moving work between pairs of workers, each move the
   * exact best on its segment; starts from equal shares. Exact for concave cases.
   */
  static double pairwise(double[] s, double[] bw, double[] k, double work) {
    double[][] m = matrix(s, bw, k);
    int p = s.length;
    double[] w = new double[p];
    java.util.Arrays.fill(w, work / p);
    double[] g = new double[p];
    for (int sweep = 0; sweep < 200_000; sweep++) {
      double gained = 0;
      for (int i = 0; i < p; i++) {
        for (int j = 0; j < p; j++) {
          if (i == j) {
            continue;
          }
          for (int a = 0; a < p; a++) {
            double sum = 0;
            for (int b = 0; b < p; b++) {
              sum += m[a][b] * w[b];
            }
            g[a] = 1 - 2 * sum;
          }
          // move t from j to i, t in [-w_i, w_j]
          double slope = g[i] - g[j];
          double curve = m[i][i] + m[j][j] - 2 * m[i][j];
          double t;
          if (curve > 0) {
            t = Math.max(-w[i], Math.min(w[j], slope / (2 * curve)));
          } else {
            t = slope >= 0 ? w[j] : -w[i];
          }
          double gain = t * slope - t * t * curve;
          if (gain > 0) {
            w[i] += t;
            w[j] -= t;
            gained += gain;
          }
        }
      }
      if (gained <= 1e-17 * work) {
        break;
      }
    }
    return value(m, w);
  }

  /**
   * The maximum over {w >= 0, sum w = W} (or {@code <= W} when {@code upTo}) by solving every face's
   * KKT system with dense elimination and keeping the best feasible point. Exact for any quadratic.
   */
  static double faces(double[] s, double[] bw, double[] k, double work, boolean upTo) {
    double[][] m = matrix(s, bw, k);
    int p = s.length;
    double best = upTo ? 0 : Double.NEGATIVE_INFINITY;
    for (int mask = 1; mask < (1 << p); mask++) {
      int[] idx = new int[Integer.bitCount(mask)];
      for (int i = 0, n = 0; i < p; i++) {
        if ((mask & (1 << i)) != 0) {
          idx[n++] = i;
        }
      }
      int q = idx.length;
      for (int variant = 0; variant < (upTo ? 2 : 1); variant++) {
        boolean binding = variant == 0;
        int size = binding ? q + 1 : q;
        double[][] a = new double[size][size + 1];
        for (int r = 0; r < q; r++) {
          for (int c = 0; c < q; c++) {
            a[r][c] = 2 * m[idx[r]][idx[c]];
          }
          if (binding) {
            a[r][q] = 1;
          }
          a[r][size] = 1;
        }
        if (binding) {
          for (int c = 0; c < q; c++) {
            a[q][c] = 1;
          }
          a[q][size] = work;
        }
        double[] x = gauss(a);
        if (x == null) {
          continue;
        }
        double[] w = new double[p];
        double sum = 0;
        boolean ok = true;
        for (int r = 0; r < q; r++) {
          if (x[r] < -1e-12 * work) {
            ok = false;
          }
          w[idx[r]] = Math.max(0, x[r]);
          sum += w[idx[r]];
        }
        if (binding && upTo && x[q] < -1e-12) {
          ok = false; // lambda < 0: the budget would not bind
        }
        if (!binding && sum > work * (1 + 1e-12)) {
          ok = false;
        }
        if (ok) {
          best = Math.max(best, value(m, w));
        }
      }
    }
    return best;
  }

  private static double[] gauss(double[][] a) {
    int n = a.length;
    for (int col = 0; col < n; col++) {
      int piv = col;
      for (int r = col + 1; r < n; r++) {
        if (Math.abs(a[r][col]) > Math.abs(a[piv][col])) {
          piv = r;
        }
      }
      double scale = 0;
      for (double[] row : a) {
        scale = Math.max(scale, Math.abs(row[col]));
      }
      if (Math.abs(a[piv][col]) <= 1e-12 * scale || scale == 0) {
        return null;
      }
      double[] t = a[piv];
      a[piv] = a[col];
      a[col] = t;
      for (int r = 0; r < n; r++) {
        if (r != col) {
          double f = a[r][col] / a[col][col];
          for (int c = col; c <= n; c++) {
            a[r][c] -= f * a[col][c];
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

  /** The best over every service order of {@link #faces}. */
  static double allOrders(double[] s, double[] bw, double[] k, double work, boolean upTo) {
    int p = s.length;
    int[] perm = new int[p];
    for (int i = 0; i < p; i++) {
      perm[i] = i;
    }
    double best = Double.NEGATIVE_INFINITY;
    do {
      best = Math.max(best, faces(permute(s, perm), permute(bw, perm), permute(k, perm), work, upTo));
    } while (Permutations.next(perm));
    return best;
  }

  static double[] permute(double[] v, int[] order) {
    double[] out = new double[order.length];
    for (int i = 0; i < order.length; i++) {
      out[i] = v[order[i]];
    }
    return out;
  }
}
