package dev.gleaner.common.control;

import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.ChunkPlan;
import dev.gleaner.common.recovery.RecoveryScheme;
import dev.gleaner.common.util.RangeSet;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One job's ledger and queues. Every unit of the job is in exactly one of: committed, pending
 * (received, being made durable), held (in {@code [cursor, end)} of a live copy), queued (in a
 * worker's planned queue or the pool), or not done (only once the job ended at its deadline).
 * Replicas put the same units in several copies or queues on purpose; a unit's state is then the
 * first of the list above that applies.
 */
final class JobLedger {
  final JobDef def;
  JobPhase phase = JobPhase.WAITING;
  String message = "";
  final RangeSet committed;
  final RangeSet pending = new RangeSet();
  /** Work no plan has placed yet (all of it until the first plan). */
  final RangeSet unplanned;
  final Map<Long, Copy> copies = new LinkedHashMap<>();
  /** Copies that ended, by id, with their worker: a late piece of one is discarded, not refused. */
  final Map<Long, String> ended = new HashMap<>();
  final Map<String, Deque<ChunkPlan>> queues = new HashMap<>();
  final Deque<ChunkPlan> pool = new ArrayDeque<>();
  final Homes homes = new Homes();
  final Map<String, Long> unitsByWorker = new LinkedHashMap<>();
  final List<Action.Rerouted> reroutes = new ArrayList<>();
  long nextCopyId;
  /** Some copies hold the same units on purpose. */
  boolean replicated;

  // the current plan
  String strategy = "";
  String reason = "";
  int replans = -1;
  double lastPlanAt = Double.NEGATIVE_INFINITY;
  /** Committed + held when planned, plus what the plan expects of the rest. */
  double expectedWork = Double.NaN;
  /** The figures the plan used, to notice a drift. */
  Map<String, Worker> planned = Map.of();
  /** Worker id to its place in the plan's service order. */
  Map<String, Integer> rank = Map.of();
  boolean replanDue;
  String replanWhy = "";

  // the recovery scheme, fixed at the first plan
  List<String> members = List.of();
  RecoveryScheme scheme;

  JobLedger(JobDef def) {
    this.def = def;
    this.committed = RangeSet.of(def.start(), def.end());
    committed.removeAll(def.remaining());
    this.unplanned = def.remaining().copy();
    this.nextCopyId = def.firstCopyId();
  }

  boolean active() {
    return phase == JobPhase.RUNNING;
  }

  Deque<ChunkPlan> queue(String worker) {
    return queues.computeIfAbsent(worker, k -> new ArrayDeque<>());
  }

  /** Whether the units are committed or on their way to it. */
  boolean saved(long from, long to) {
    return savedSet().containsAll(from, to);
  }

  RangeSet savedSet() {
    if (pending.isEmpty()) {
      return committed;
    }
    RangeSet s = committed.copy();
    s.addAll(pending);
    return s;
  }

  /**
   * The parts of {@code [from, to)} nobody has: not committed or pending, not held by a live copy
   * other than {@code except}, not queued for a worker other than {@code exceptQueue}, not in the
   * pool. These are what a release orphans.
   */
  RangeSet orphaned(long from, long to, Copy except, String exceptQueue) {
    RangeSet out = RangeSet.of(from, to);
    out.removeAll(committed);
    out.removeAll(pending);
    if (out.isEmpty()) {
      return out;
    }
    for (Copy c : copies.values()) {
      if (c != except && c.cursor < c.end) {
        out.remove(c.cursor, c.end);
      }
    }
    for (Map.Entry<String, Deque<ChunkPlan>> q : queues.entrySet()) {
      if (!q.getKey().equals(exceptQueue)) {
        for (ChunkPlan p : q.getValue()) {
          out.remove(p.start(), p.end());
        }
      }
    }
    for (ChunkPlan p : pool) {
      out.remove(p.start(), p.end());
    }
    out.removeAll(unplanned);
    return out;
  }

  /** Units held by live copies (their parts not yet received). */
  RangeSet held() {
    RangeSet s = new RangeSet();
    for (Copy c : copies.values()) {
      s.add(c.cursor, c.end);
    }
    return s;
  }

  /** Units in queues, the pool, or not planned yet. */
  RangeSet queued() {
    RangeSet s = unplanned.copy();
    for (Deque<ChunkPlan> q : queues.values()) {
      for (ChunkPlan p : q) {
        s.add(p.start(), p.end());
      }
    }
    for (ChunkPlan p : pool) {
      s.add(p.start(), p.end());
    }
    return s;
  }

  /** The recovery list of a worker of the scheme, as worker ids; empty for others. */
  List<String> recoveryList(String worker) {
    int i = members.indexOf(worker);
    if (i < 0 || scheme == null) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (int c : scheme.list(i)) {
      out.add(members.get(c));
    }
    return out;
  }

  /** A chunk over {@code [from, to)} keeping the checkpoints of {@code source} that fall inside. */
  static ChunkPlan part(long from, long to, long[] checkpoints) {
    return new ChunkPlan(from, to, Arrays.stream(checkpoints).filter(c -> c > from && c < to).toArray());
  }

  long units() {
    return def.units();
  }
}
