package dev.gleaner.common.plan.bandwidth;

import java.util.ArrayList;
import java.util.List;

/**
 * Paper 002's steady state on a tree written out as a linear program, solved by a dense simplex:
 * the reference the bottom-up greedy of {@link SteadyState} is checked against.
 *
 * <p>Nodes are 0..n-1, node 0 the root. Variables: each node's own rate r_i, and each non-root
 * node's inflow f_i. Constraints: 0 &lt;= r_i &lt;= 1/w_i (0 for a node that does not compute);
 * f_i = r_i + sum of its children's f_j (written as two inequalities, so every right-hand side is
 * &gt;= 0 and the origin is a feasible start: no first phase); each node's port sends one child at a
 * time, sum over its children of f_j c_j &lt;= 1; each node receives one task at a time, f_i c_i
 * &lt;= 1. Maximise r_0 + sum of the root's children's f_j.
 *
 * <p>The simplex takes the entering column and the leaving row by Bland's rule (smallest index
 * among the candidates), so it cannot cycle on the many degenerate vertices the conservation rows
 * make; it is exact up to floating point on these small, well-scaled programs.
 */
final class TreeLinearProgram {
  private static final double TOL = 1e-12;

  /** The optimum: its value and the variables, r_0..r_{n-1} then f_1..f_{n-1}. */
  record Solution(double throughput, double[] x) {}

  private final int n;
  private final int[] parent;
  private final List<double[]> rows = new ArrayList<>();
  private final List<Double> rhs = new ArrayList<>();

  /**
   * @param parent each node's parent, -1 for node 0 (a parent comes before its children)
   * @param w seconds to compute a task, {@link Double#POSITIVE_INFINITY} for a pure relay
   * @param c seconds to receive a task from its parent (unused for the root)
   */
  TreeLinearProgram(int[] parent, double[] w, double[] c) {
    this.n = parent.length;
    this.parent = parent.clone();
    for (int i = 0; i < n; i++) {
      double[] row = new double[vars()];
      row[i] = 1;
      add(row, Double.isInfinite(w[i]) ? 0 : 1 / w[i]);
    }
    for (int i = 1; i < n; i++) {
      double[] row = new double[vars()];
      row[inflow(i)] = 1;
      row[i] = -1;
      for (int j = 1; j < n; j++) {
        if (parent[j] == i) {
          row[inflow(j)] = -1;
        }
      }
      add(row, 0);
      double[] neg = new double[vars()];
      for (int k = 0; k < neg.length; k++) {
        neg[k] = -row[k];
      }
      add(neg, 0);
    }
    for (int p = 0; p < n; p++) {
      double[] row = new double[vars()];
      boolean any = false;
      for (int j = 1; j < n; j++) {
        if (parent[j] == p) {
          row[inflow(j)] = c[j];
          any = true;
        }
      }
      if (any) {
        add(row, 1);
      }
    }
    for (int i = 1; i < n; i++) {
      double[] row = new double[vars()];
      row[inflow(i)] = c[i];
      add(row, 1);
    }
  }

  int vars() {
    return 2 * n - 1;
  }

  /** The column of node i's inflow f_i (i &gt;= 1). */
  int inflow(int i) {
    return n + i - 1;
  }

  private void add(double[] row, double b) {
    rows.add(row);
    rhs.add(b);
  }

  private double[] objective() {
    double[] obj = new double[vars()];
    obj[0] = 1;
    for (int j = 1; j < n; j++) {
      if (parent[j] == 0) {
        obj[inflow(j)] = 1;
      }
    }
    return obj;
  }

  /** Maximises the throughput; throws if the simplex does not end (it must not). */
  Solution solve() {
    int m = rows.size();
    int v = vars();
    int cols = v + m + 1;
    double[][] t = new double[m + 1][cols];
    int[] basis = new int[m];
    for (int i = 0; i < m; i++) {
      System.arraycopy(rows.get(i), 0, t[i], 0, v);
      t[i][v + i] = 1;
      t[i][cols - 1] = rhs.get(i);
      basis[i] = v + i;
    }
    double[] obj = objective();
    for (int j = 0; j < v; j++) {
      t[m][j] = -obj[j];
    }
    for (int iteration = 0; ; iteration++) {
      if (iteration > 100_000) {
        throw new IllegalStateException("the simplex did not end");
      }
      int enter = -1;
      for (int j = 0; j < cols - 1; j++) {
        if (t[m][j] < -TOL) {
          enter = j;
          break;
        }
      }
      if (enter < 0) {
        break;
      }
      int leave = -1;
      double best = Double.POSITIVE_INFINITY;
      for (int i = 0; i < m; i++) {
        if (t[i][enter] > TOL) {
          double ratio = t[i][cols - 1] / t[i][enter];
          boolean tie = leave >= 0 && Math.abs(ratio - best) <= TOL * (1 + Math.abs(best));
          if (leave < 0 || (!tie && ratio < best) || (tie && basis[i] < basis[leave])) {
            leave = i;
            best = Math.min(best, ratio);
          }
        }
      }
      if (leave < 0) {
        throw new IllegalStateException("unbounded, but every variable of this program is bounded");
      }
      pivot(t, leave, enter);
      basis[leave] = enter;
    }
    double[] x = new double[v];
    for (int i = 0; i < m; i++) {
      if (basis[i] < v) {
        x[basis[i]] = t[i][cols - 1];
      }
    }
    return new Solution(t[m][cols - 1], x);
  }

  private static void pivot(double[][] t, int row, int col) {
    double p = t[row][col];
    for (int j = 0; j < t[row].length; j++) {
      t[row][j] /= p;
    }
    for (int i = 0; i < t.length; i++) {
      if (i != row && t[i][col] != 0) {
        double f = t[i][col];
        for (int j = 0; j < t[i].length; j++) {
          t[i][j] -= f * t[row][j];
        }
      }
    }
  }

  /** The worst excess of x over any constraint (&lt;= 0 when x is feasible), x &gt;= 0 included. */
  double violation(double[] x) {
    double worst = Double.NEGATIVE_INFINITY;
    for (double xi : x) {
      worst = Math.max(worst, -xi);
    }
    for (int i = 0; i < rows.size(); i++) {
      double lhs = 0;
      for (int j = 0; j < x.length; j++) {
        lhs += rows.get(i)[j] * x[j];
      }
      worst = Math.max(worst, lhs - rhs.get(i));
    }
    return worst;
  }

  /** The objective at x. */
  double value(double[] x) {
    double[] obj = objective();
    double sum = 0;
    for (int j = 0; j < x.length; j++) {
      sum += obj[j] * x[j];
    }
    return sum;
  }
}
