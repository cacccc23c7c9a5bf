package dev.gleaner.common.plan.bandwidth;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.gleaner.common.plan.bandwidth.SteadyState.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SteadyStateTest {
  private static Node leaf(String id, double w, double c) {
    return new Node(id, w, c, List.of());
  }

  /**
   * Paper 002's worked example: A computes a task in 3; B (link 2, compute 2) and C (link 1,
   * compute 6) hang off A, and D (link 1, compute 2) off C. The subtree at C does 1/6 + 1/2 = 2/3
   * tasks per time unit (an equivalent node of w = 3/2); A keeps C busy, gives B the leftover 1/3 of
   * its port (1/6), and computes 1/3 itself: 7 tasks every 6 time units.
   */
  @Test
  void workedExampleSevenTasksEverySixTimeUnits() {
    Node c = new Node("C", 6, 1, List.of(leaf("D", 2, 1)));
    Node a = new Node("A", 3, 0, List.of(leaf("B", 2, 2), c));
    assertEquals(2.0 / 3, SteadyState.capacityOf(c), 1e-12, "equivalent node of w = 3/2");
    SteadyState.Result r = SteadyState.solve(a);
    assertEquals(7.0 / 6, r.throughput(), 1e-12);
    assertEquals(1.0 / 3, r.rates().get("A"), 1e-12);
    assertEquals(1.0 / 6, r.rates().get("B"), 1e-12);
    assertEquals(1.0 / 6, r.rates().get("C"), 1e-12);
    assertEquals(1.0 / 2, r.rates().get("D"), 1e-12);
    assertEquals(List.of("C", "B"), r.priorities().get("A"), "served by increasing communication time");
  }

  /**
   * On a fork the greedy rates solve the LP max R0 + sum R_i, sum R_i c_i &lt;= 1, R_i &lt;= 1/w_i. Brute
   * force: every vertex, each child at 0 or 1/w_i, with at most one more child given the leftover.
   */
  @Test
  void forkRatesAreTheLinearProgramOptimum() {
    Random rnd = new Random(21);
    for (int trial = 0; trial < 200; trial++) {
      int k = 1 + rnd.nextInt(8);
      List<Node> kids = new ArrayList<>();
      for (int i = 0; i < k; i++) {
        kids.add(leaf("n" + i, 0.5 + 10 * rnd.nextDouble(), 0.1 + 3 * rnd.nextDouble()));
      }
      double w0 = 1 + 5 * rnd.nextDouble();
      double best = 0;
      for (int mask = 0; mask < 1 << k; mask++) {
        double port = 0;
        double rate = 0;
        for (int i = 0; i < k; i++) {
          if ((mask >> i & 1) == 1) {
            port += kids.get(i).c() / kids.get(i).w();
            rate += 1 / kids.get(i).w();
          }
        }
        if (port > 1) {
          continue;
        }
        best = Math.max(best, rate);
        for (int i = 0; i < k; i++) {
          if ((mask >> i & 1) == 0) {
            best = Math.max(best, rate + Math.min(1 / kids.get(i).w(), (1 - port) / kids.get(i).c()));
          }
        }
      }
      SteadyState.Result r = SteadyState.solve(new Node("root", w0, 0, kids));
      assertEquals(best + 1 / w0, r.throughput(), 1e-9, "trial " + trial);
      double used = 0;
      for (Node n : kids) {
        used += r.rates().get(n.id()) * n.c();
      }
      assertEquals(true, used <= 1 + 1e-9, "the port is not over-booked");
    }
  }

  /**
   * Bounded multi-port, by hand: two relays over links of 10 tasks/s, each over children taking 1
   * and 2 tasks/s; every node sends to all its children at once. Each relay forwards 3 tasks/s, 6 in
   * all; with the master's egress at 5 the nearer relay (both tie: the first) is filled first.
   */
  @Test
  void multiPortTwoRelaysAndAnEgressThatBinds() {
    Node r1 = new Node("r1", Double.POSITIVE_INFINITY, 0.1, List.of(leaf("a", 1e-9, 1), leaf("b", 1e-9, 0.5)));
    Node r2 = new Node("r2", Double.POSITIVE_INFINITY, 0.1, List.of(leaf("c", 1e-9, 1), leaf("d", 1e-9, 0.5)));
    Node root = new Node("m", Double.POSITIVE_INFINITY, 0, List.of(r1, r2));
    SteadyState.Result free = SteadyState.solveMultiPort(root, Double.POSITIVE_INFINITY);
    assertEquals(6, free.throughput(), 1e-9);
    assertEquals(1, free.rates().get("a"), 1e-9);
    assertEquals(2, free.rates().get("b"), 1e-9);
    SteadyState.Result bound = SteadyState.solveMultiPort(root, 5);
    assertEquals(5, bound.throughput(), 1e-9);
    assertEquals(3, bound.rates().get("a") + bound.rates().get("b"), 1e-9);
    // within r2's 2 tasks/s its children are served by increasing communication time: d first
    assertEquals(2, bound.rates().get("d"), 1e-9);
    assertEquals(0, bound.rates().get("c"), 1e-9);
    // one port, for comparison: each relay keeps only its faster child busy
    assertEquals(4, SteadyState.solve(root).throughput(), 1e-9);
  }

  /** A node's own computing comes first, then its children, the egress bounding only what it sends. */
  @Test
  void multiPortAForkThatComputesToo() {
    Node root = new Node("m", 2, 0, List.of(leaf("a", 1, 0.25), leaf("b", 1, 0.5), leaf("c", 0.5, 0.25)));
    // children take min(link, compute): a 1, b 1, c 2 (link 4, compute 2); egress 3: c and a first (c = 0.25)
    SteadyState.Result r = SteadyState.solveMultiPort(root, 3);
    assertEquals(0.5 + 3, r.throughput(), 1e-9);
    assertEquals(0.5, r.rates().get("m"), 1e-9);
    assertEquals(1, r.rates().get("a"), 1e-9);
    assertEquals(2, r.rates().get("c"), 1e-9);
    assertEquals(0, r.rates().get("b"), 1e-9);
  }
}
