package dev.gleaner.common.plan.bandwidth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.plan.bandwidth.SteadyState.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The bottom-up greedy against the linear program of the whole tree ({@link TreeLinearProgram}), on
 * random trees with relays (nodes that forward tasks but do not compute).
 */
class SteadyStateTreeTest {
  private static final double INF = Double.POSITIVE_INFINITY;

  /** A tree as arrays: node 0 is the root, parents come before their children. */
  private record Tree(int[] parent, double[] w, double[] c) {
    int size() {
      return parent.length;
    }

    Node node(int i) {
      List<Node> kids = new ArrayList<>();
      for (int j = 1; j < size(); j++) {
        if (parent[j] == i) {
          kids.add(node(j));
        }
      }
      return new Node("n" + i, w[i], c[i], kids);
    }

    int depth() {
      int deepest = 0;
      for (int i = 0; i < size(); i++) {
        int d = 0;
        for (int at = i; parent[at] >= 0; at = parent[at]) {
          d++;
        }
        deepest = Math.max(deepest, d);
      }
      return deepest;
    }
  }

  /** Paper 002's worked example (SteadyStateTest), solved by hand there: 7 tasks every 6 time units. */
  private static final Tree WORKED = new Tree(new int[] {-1, 0, 0, 2}, new double[] {3, 2, 6, 2},
      new double[] {0, 2, 1, 1});

  /**
   * The reference solver on cases worked by hand, so that it can fail on its own: the worked
   * example (A computes 1/3, keeps C's subtree busy at 1/6 + 1/2, gives B the port's leftover 1/3,
   * that is 1/6), and a chain of relays to one worker whose own link (2 s a task) caps it at 1/2,
   * beside a relay leaf that adds nothing.
   */
  @Test
  void referenceSolverAgreesWithTheCasesWorkedByHand() {
    TreeLinearProgram lp = new TreeLinearProgram(WORKED.parent(), WORKED.w(), WORKED.c());
    TreeLinearProgram.Solution s = lp.solve();
    assertEquals(7.0 / 6, s.throughput(), 1e-12);
    double[] rates = {1.0 / 3, 1.0 / 6, 1.0 / 6, 1.0 / 2};
    for (int i = 0; i < rates.length; i++) {
      assertEquals(rates[i], s.x()[i], 1e-12, "r_" + i);
    }
    assertEquals(2.0 / 3, s.x()[lp.inflow(2)], 1e-12, "C's subtree takes 2/3 a time unit");
    assertTrue(lp.violation(s.x()) <= 1e-12);

    // root (relay) -> X (relay, c 1) -> Y (w 1, c 2); root -> Z (relay leaf, c 1)
    TreeLinearProgram chain = new TreeLinearProgram(new int[] {-1, 0, 1, 0}, new double[] {INF, INF, 1, INF},
        new double[] {0, 1, 2, 1});
    TreeLinearProgram.Solution t = chain.solve();
    assertEquals(0.5, t.throughput(), 1e-12);
    assertEquals(0.5, t.x()[chain.inflow(1)], 1e-12, "X forwards all it receives");
    assertEquals(0, t.x()[chain.inflow(3)], 1e-12, "a relay leaf takes nothing");
  }

  /**
   * On 400 random trees of depth 2 to 4 and 3 to 15 nodes, some of them relays (w = infinity), half
   * with small whole numbers so that communication times tie: the greedy's throughput is the linear
   * program's optimum, and its rates are a feasible point of that program.
   */
  @Test
  void greedyOnWholeTreesIsTheLinearProgramOptimum() {
    Random rnd = new Random(2002);
    int[] byDepth = new int[5];
    int innerRelays = 0;
    int saturatedPorts = 0;
    for (int trial = 0; trial < 400; trial++) {
      Tree tree = randomTree(rnd, trial % 2 == 0);
      byDepth[tree.depth()]++;
      for (int i = 0; i < tree.size(); i++) {
        if (Double.isInfinite(tree.w()[i]) && hasChildren(tree, i)) {
          innerRelays++;
        }
      }
      String where = "trial " + trial + ": " + describe(tree);
      TreeLinearProgram lp = new TreeLinearProgram(tree.parent(), tree.w(), tree.c());
      TreeLinearProgram.Solution best = lp.solve();
      assertTrue(lp.violation(best.x()) <= 1e-9, "the reference's optimum is feasible: " + where);
      assertEquals(best.throughput(), lp.value(best.x()), 1e-9 * Math.max(1, best.throughput()), where);

      SteadyState.Result greedy = SteadyState.solve(tree.node(0));
      assertEquals(best.throughput(), greedy.throughput(), 1e-9 * Math.max(1e-300, best.throughput()), where);
      saturatedPorts += checkFeasible(tree, greedy, where);
    }
    for (int d = 2; d <= 4; d++) {
      assertTrue(byDepth[d] >= 50, "depth " + d + " drawn " + byDepth[d] + " times");
    }
    assertTrue(innerRelays >= 50, "relays that forward: " + innerRelays);
    assertTrue(saturatedPorts >= 100, "ports the greedy fills: " + saturatedPorts);
  }

  /**
   * Checks the greedy's rates against every constraint of the program and returns how many ports
   * it fills (so the test knows the port constraint was really in play).
   */
  private static int checkFeasible(Tree tree, SteadyState.Result greedy, String where) {
    int n = tree.size();
    double[] rate = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      Double r = greedy.rates().get("n" + i);
      assertTrue(r != null, "a rate for n" + i + ": " + where);
      rate[i] = r;
      sum += r;
      assertTrue(r >= 0, "n" + i + " rate " + r + ": " + where);
      if (Double.isInfinite(tree.w()[i])) {
        assertEquals(0, r, 0.0, "relay n" + i + " computes nothing: " + where);
      } else {
        assertTrue(r <= (1 / tree.w()[i]) * (1 + 1e-9), "n" + i + " rate " + r + " > 1/w: " + where);
      }
    }
    assertEquals(greedy.throughput(), sum, 1e-9 * Math.max(1, sum), "the rates add up to the throughput: " + where);
    // inflows by conservation, children after parents: add each node's rate up its path
    double[] inflow = new double[n];
    for (int i = 0; i < n; i++) {
      for (int at = i; at >= 0; at = tree.parent()[at]) {
        inflow[at] += rate[i];
      }
    }
    int saturated = 0;
    for (int p = 0; p < n; p++) {
      double port = 0;
      for (int j = 1; j < n; j++) {
        if (tree.parent()[j] == p) {
          port += inflow[j] * tree.c()[j];
        }
      }
      assertTrue(port <= 1 + 1e-9, "n" + p + "'s port busy " + port + " of the time: " + where);
      if (port >= 1 - 1e-9) {
        saturated++;
      }
      if (p > 0) {
        assertTrue(inflow[p] * tree.c()[p] <= 1 + 1e-9, "n" + p + " receives " + inflow[p] + ": " + where);
      }
    }
    return saturated;
  }

  private static boolean hasChildren(Tree tree, int i) {
    for (int j = 1; j < tree.size(); j++) {
      if (tree.parent()[j] == i) {
        return true;
      }
    }
    return false;
  }

  /**
   * A chain from the root to the given depth first (so the depth is exact), then the other nodes
   * under random nodes above that depth; each node a relay with probability 1/4.
   */
  private static Tree randomTree(Random rnd, boolean wholeNumbers) {
    int depth = 2 + rnd.nextInt(3);
    int n = depth + 1 + rnd.nextInt(15 - depth);
    int[] parent = new int[n];
    int[] level = new int[n];
    double[] w = new double[n];
    double[] c = new double[n];
    parent[0] = -1;
    for (int i = 1; i < n; i++) {
      if (i <= depth) {
        parent[i] = i - 1;
      } else {
        do {
          parent[i] = rnd.nextInt(i);
        } while (level[parent[i]] >= depth);
      }
      level[i] = level[parent[i]] + 1;
    }
    for (int i = 0; i < n; i++) {
      w[i] = rnd.nextInt(4) == 0 ? INF : wholeNumbers ? 1 + rnd.nextInt(6) : 0.5 + 10 * rnd.nextDouble();
      c[i] = i == 0 ? 0 : wholeNumbers ? 1 + rnd.nextInt(3) : 0.1 + 3 * rnd.nextDouble();
    }
    return new Tree(parent, w, c);
  }

  private static String describe(Tree tree) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < tree.size(); i++) {
      s.append(i == 0 ? "" : ", ").append("n").append(i).append("(parent ").append(tree.parent()[i])
          .append(", w ").append(tree.w()[i]).append(", c ").append(tree.c()[i]).append(')');
    }
    return s.toString();
  }
}
