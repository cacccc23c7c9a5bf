package dev.gleaner.common.plan.bandwidth;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bandwidth-centric steady state (paper 002) on a tree whose nodes can compute and forward tasks
 * while receiving, sending to one child at a time.
 *
 * <p>On a fork: serve children by increasing communication time c_i; keep the first ones busy
 * (rate 1/w_i) while sum c_i/w_i &lt;= 1; the next child gets the leftover port time e at rate
 * e / c; the node computes at 1/w0. A subtree is replaced, bottom up, by one node of the same
 * link doing its whole rate (w = 1 / rate); a node's rate is also capped by its own link, 1/c.
 */
public final class SteadyState {
  private SteadyState() {}

  /**
   * A node.
   *
   * @param id name
   * @param w seconds to compute one task ({@link Double#POSITIVE_INFINITY}: does not compute)
   * @param c seconds to receive one task from its parent (0 for the root)
   * @param children its children
   */
  public record Node(String id, double w, double c, List<Node> children) {
    public Node {
      children = List.copyOf(children);
      if (!(w > 0) || !(c >= 0)) {
        throw new IllegalArgumentException("node " + id + ": w must be > 0 and c >= 0");
      }
    }
  }

  /**
   * The steady state.
   *
   * @param throughput tasks per second the whole tree completes
   * @param rates tasks per second each node computes itself, by id (0 for nodes left idle)
   * @param priorities for each node with children, its children's ids in serving order
   */
  public record Result(double throughput, Map<String, Double> rates, Map<String, List<String>> priorities) {}

  public static Result solve(Node root) {
    Map<String, Double> rates = new LinkedHashMap<>();
    Map<String, List<String>> priorities = new LinkedHashMap<>();
    double total = subtree(root, Double.POSITIVE_INFINITY, rates, priorities);
    return new Result(total, rates, priorities);
  }

  /**
   * Fills the rates of the subtree at node for an inflow of at most {@code inflow} tasks per second,
   * and returns the tasks per second the subtree completes.
   */
  private static double subtree(Node node, double inflow, Map<String, Double> rates, Map<String, List<String>> priorities) {
    // each child's own capacity, bottom up (without scaling yet)
    List<Node> kids = new ArrayList<>(node.children());
    kids.sort(Comparator.comparingDouble(Node::c));
    double[] capacity = new double[kids.size()];
    for (int i = 0; i < kids.size(); i++) {
      capacity[i] = Math.min(1 / Math.max(kids.get(i).c(), 1e-300), capacityOf(kids.get(i)));
    }
    double own = Double.isInfinite(node.w()) ? 0 : 1 / node.w();
    double port = 1;
    double[] take = new double[kids.size()];
    for (int i = 0; i < kids.size() && port > 0; i++) {
      double need = kids.get(i).c() * capacity[i];
      if (need <= port) {
        take[i] = capacity[i];
        port -= need;
      } else {
        take[i] = port / kids.get(i).c();
        port = 0;
      }
    }
    double sum = own;
    for (double t : take) {
      sum += t;
    }
    // the inflow may cap what the subtree does: the node then keeps its children first, in priority order
    double budget = Math.min(inflow, sum);
    double ownRate = Math.min(own, budget);
    budget -= ownRate;
    rates.put(node.id(), ownRate);
    double done = ownRate;
    List<String> order = new ArrayList<>();
    for (int i = 0; i < kids.size(); i++) {
      double t = Math.min(take[i], budget);
      budget -= t;
      done += subtree(kids.get(i), t, rates, priorities);
      order.add(kids.get(i).id());
    }
    if (!kids.isEmpty()) {
      priorities.put(node.id(), order);
    }
    return done;
  }

  /** Tasks per second the subtree rooted at node could complete if fed without limit. */
  static double capacityOf(Node node) {
    List<Node> kids = new ArrayList<>(node.children());
    kids.sort(Comparator.comparingDouble(Node::c));
    double rate = Double.isInfinite(node.w()) ? 0 : 1 / node.w();
    double port = 1;
    for (Node k : kids) {
      double cap = Math.min(1 / Math.max(k.c(), 1e-300), capacityOf(k));
      double need = k.c() * cap;
      if (need <= port) {
        rate += cap;
        port -= need;
      } else {
        rate += port / k.c();
        break;
      }
    }
    return rate;
  }

  /**
   * The steady state when each node sends to all its children at once (bounded multi-port): a
   * child takes up to its own link's rate (1/c) and its subtree's capacity, and the root's children
   * together at most {@code rootEgress} tasks per second (inner nodes' egress unbounded: a relay's
   * or a sub-master's own link is its child's {@code c}). Children are still filled by increasing
   * communication time, so where the root's egress binds the nearest links are kept busy first.
   */
  public static Result solveMultiPort(Node root, double rootEgress) {
    if (!(rootEgress > 0)) {
      throw new IllegalArgumentException("the root's egress must be positive, got " + rootEgress);
    }
    Map<String, Double> rates = new LinkedHashMap<>();
    Map<String, List<String>> priorities = new LinkedHashMap<>();
    double total = multi(root, Double.POSITIVE_INFINITY, rootEgress, rates, priorities);
    return new Result(total, rates, priorities);
  }

  private static double multi(Node node, double inflow, double egress, Map<String, Double> rates,
      Map<String, List<String>> priorities) {
    List<Node> kids = new ArrayList<>(node.children());
    kids.sort(Comparator.comparingDouble(Node::c));
    double own = Double.isInfinite(node.w()) ? 0 : 1 / node.w();
    double budget = Math.min(inflow, own + Math.min(egress, multiCapacity(kids)));
    double ownRate = Math.min(own, budget);
    rates.put(node.id(), ownRate);
    budget -= ownRate;
    double sent = Math.min(budget, egress);
    double done = ownRate;
    List<String> order = new ArrayList<>();
    for (Node k : kids) {
      double t = Math.min(sent, Math.min(1 / Math.max(k.c(), 1e-300), multiCapacityOf(k)));
      sent -= t;
      done += multi(k, t, Double.POSITIVE_INFINITY, rates, priorities);
      order.add(k.id());
    }
    if (!kids.isEmpty()) {
      priorities.put(node.id(), order);
    }
    return done;
  }

  /** Tasks per second these children take together, each up to its link and its subtree. */
  private static double multiCapacity(List<Node> kids) {
    double sum = 0;
    for (Node k : kids) {
      sum += Math.min(1 / Math.max(k.c(), 1e-300), multiCapacityOf(k));
    }
    return sum;
  }

  /** Tasks per second the subtree at {@code node} completes under bounded multi-port, fed without limit. */
  static double multiCapacityOf(Node node) {
    return (Double.isInfinite(node.w()) ? 0 : 1 / node.w()) + multiCapacity(node.children());
  }
}
