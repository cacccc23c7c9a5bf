package dev.gleaner.common.plan;

import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.port.PortClock;
import dev.gleaner.common.port.PortRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Builds the timelines of the common ways of handing out work: under the one-port model, or, for a
 * single round, under any rule of the master's port.
 */
public final class Timelines {
  private Timelines() {}

  /**
   * Single round, one port: the master sends each assignment whole, in order, one worker at a time
   * (units / bandwidth seconds); the worker computes its chunks in order, each piece once its input
   * is there (a chunk of one piece: all its input, then its computing, the papers' model), and saves
   * at each checkpoint and at each chunk's end, paying {@code eps} seconds each time.
   */
  public static Timeline singleRound(Platform platform, List<Assignment> order, double eps) {
    return singleRound(platform, order, eps, PortRule.ONE_PORT);
  }

  /**
   * Single round under the port's {@code rule} (budget in units/s): each assignment's input goes whole,
   * at its link's rate, starting in order as soon as the rule lets it beside those on the wire; the
   * worker computes its chunks as above.
   */
  public static Timeline singleRound(Platform platform, List<Assignment> order, double eps, PortRule rule) {
    Map<String, Worker> byId = platform.byId();
    List<Timeline.Lane> lanes = new ArrayList<>();
    PortClock port = new PortClock(rule);
    for (Assignment a : order) {
      if (a.chunks().isEmpty()) {
        continue;
      }
      Worker w = byId.get(a.workerId());
      double seconds = a.units() / w.bandwidth();
      double begin = port.admit(w.bandwidth(), seconds);
      double sent = begin + seconds;
      List<Timeline.Piece> pieces = new ArrayList<>();
      double t = begin;
      double inputFrom = begin;
      for (ChunkPlan c : a.chunks()) {
        t = compute(w, c, eps, t, inputFrom, pieces);
        inputFrom += c.units() / w.bandwidth();
      }
      lanes.add(new Timeline.Lane(w.id(), List.of(new Timeline.Interval(begin, sent)), pieces));
    }
    return new Timeline(lanes);
  }

  /**
   * Demand-driven, one port: each chunk of the pool, in order, goes to the worker that asks first
   * (the one free earliest; ties to platform order); the master sends one chunk at a time.
   */
  static Timeline demandDriven(Platform platform, List<ChunkPlan> pool, double eps) {
    List<Worker> workers = platform.workers();
    int p = workers.size();
    double[] free = new double[p];
    List<List<Timeline.Interval>> receiving = new ArrayList<>();
    List<List<Timeline.Piece>> pieces = new ArrayList<>();
    for (int i = 0; i < p; i++) {
      receiving.add(new ArrayList<>());
      pieces.add(new ArrayList<>());
    }
    double port = 0;
    // workers by the time they are free, ties to platform order
    java.util.PriorityQueue<Integer> idle = new java.util.PriorityQueue<>(
        (a, b) -> free[a] != free[b] ? Double.compare(free[a], free[b]) : Integer.compare(a, b));
    for (int i = 0; i < p; i++) {
      idle.add(i);
    }
    for (ChunkPlan c : pool) {
      int next = idle.poll();
      Worker w = workers.get(next);
      double begin = Math.max(port, free[next]);
      double sent = begin + c.units() / w.bandwidth();
      receiving.get(next).add(new Timeline.Interval(begin, sent));
      port = sent;
      free[next] = compute(w, c, eps, begin, begin, pieces.get(next));
      idle.add(next);
    }
    List<Timeline.Lane> lanes = new ArrayList<>();
    for (int i = 0; i < p; i++) {
      if (!pieces.get(i).isEmpty()) {
        lanes.add(new Timeline.Lane(workers.get(i).id(), receiving.get(i), pieces.get(i)));
      }
    }
    return new Timeline(lanes);
  }

  /**
   * Appends the pieces of chunk c computed by w from time t, whose input starts arriving at
   * {@code inputFrom} at w's link rate: a piece starts once the one before is saved and its own input
   * is there. Returns when the last is saved.
   */
  static double compute(Worker w, ChunkPlan c, double eps, double t, double inputFrom, List<Timeline.Piece> out) {
    long from = c.start();
    long[] cps = c.checkpoints();
    for (int k = 0; k <= cps.length; k++) {
      long to = k < cps.length ? cps[k] : c.end();
      double begin = Math.max(t, inputFrom + (to - c.start()) / w.bandwidth());
      double saved = begin + (to - from) / w.speed() + eps;
      out.add(new Timeline.Piece(from, to, begin, saved));
      t = saved;
      from = to;
    }
    return t;
  }
}
