package dev.gleaner.common.control.state;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.ChunkPlan;
import dev.gleaner.common.port.PortRule;
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
 * (received, being made durable), held (in {@code [cursor, end)} of a live chunk), queued (in a
 * worker's planned queue or the pool), or not done (only once the job ended at its deadline).
 * Replicas put the same units in several chunks or queues on purpose; a unit's state is then the
 * first of the list above that applies.
 */
public final class JobLedger {
  public final JobDef def;
  public JobPhase phase = JobPhase.QUEUED;
  public String message = "";
  public final RangeSet committed;
  public final RangeSet pending = new RangeSet();
  /** Work no plan has placed yet (all of it until the first plan). */
  public final RangeSet unplanned;
  public final Map<Long, Chunk> chunks = new LinkedHashMap<>();
  /** Chunks that ended, by id, with their worker: a late piece of one is discarded, not refused. */
  public final Map<Long, String> ended = new HashMap<>();
  /** Each worker's planned pieces, sorted by backlog. */
  public final Queues queues;
  /** Pieces for whoever is free. */
  public final WorkQueue pool = new WorkQueue(null, null);
  /** Its running chunks by when their holders would finish them (see {@link ControlState#refile}). */
  public final Finishes finishes = new Finishes(this);
  /** Its holders of more chunks than the window (see {@link ControlState#refile}). */
  public final Surplus surplus = new Surplus(this);
  public final Homes homes = new Homes();
  public final Map<String, Long> unitsByWorker = new LinkedHashMap<>();
  public final List<Action.Rerouted> reroutes = new ArrayList<>();
  public long nextChunkId;

  /**
   * A committed piece to compute again on another worker and compare (see {@link JobDef#verify()}).
   *
   * @param excluded workers that may not take it (who committed it, who checked it already)
   * @param dissenter for a tie-break: the worker whose check disagreed with the committed result
   */
  public record Check(long start, long end, java.util.Set<String> excluded, String committer, String dissenter) {
    public boolean tieBreak() {
      return dissenter != null;
    }

    public long units() {
      return end - start;
    }

    /** The same check, never to be given to {@code worker}. */
    public Check excluding(String worker) {
      java.util.Set<String> more = new java.util.HashSet<>(excluded);
      more.add(worker);
      return new Check(start, end, java.util.Set.copyOf(more), committer, dissenter);
    }
  }

  /** Checks waiting for a worker, and those being computed or compared, by chunk id. */
  public final Deque<Check> checks = new ArrayDeque<>();
  public final Map<Long, Check> checking = new HashMap<>();
  /** Units picked for checking so far, units whose check agreed (in the end), and what disagreed. */
  public long checkedSelected;
  public long verified;
  /** Since when no connected worker may take the remaining checks (NaN: they can be taken). */
  public double checksStuckSince = Double.NaN;
  public final List<String> mismatches = new ArrayList<>();
  /** Some chunks hold the same units on purpose. */
  public boolean replicated;
  /** The speeds of the workers up for it, summed at {@link #speedSumAt} (refreshed each second). */
  public double speedSum;
  public double speedSumAt = Double.NEGATIVE_INFINITY;

  // the current plan
  public String strategy = "";
  public String reason = "";
  public int replans = -1;
  public double lastPlanAt = Double.NEGATIVE_INFINITY;
  /** Committed + held when planned, plus what the plan expects of the rest. */
  public double expectedWork = Double.NaN;
  /** The figures the plan used, to notice a drift. */
  public Map<String, Worker> planned = Map.of();
  /** The master's port as the last plan assumed it (bytes/s). */
  public PortRule plannedPort = PortRule.ONE_PORT;
  /** What the current plan predicts (seconds from {@link #lastPlanAt}); empty for probe chunks. */
  public dev.gleaner.common.plan.Timeline timeline = dev.gleaner.common.plan.Timeline.EMPTY;
  /** Worker id to its place in the plan's service order. */
  public Map<String, Integer> rank = Map.of();
  public boolean replanDue;
  public String replanWhy = "";
  /** For strategy auto: the strategy it picked last, when, and for how many workers. */
  public String autoPick;
  public double autoAt;
  public int autoWorkers;

  /** The versions of the memories last sent out (see {@link JobMemory}). */
  public long planMemory = Long.MIN_VALUE;
  public long checksMemory = Long.MIN_VALUE;
  public double rememberedAt = Double.NEGATIVE_INFINITY;
  /** Why it was cancelled; null unless it was. */
  public String cancelled;
  /**
   * A cancelled job waiting for the last pieces of the chunks being computed (each was truncated
   * where it had reported up to): until when it waits for them; NaN when it waits for none.
   */
  public double collectUntil = Double.NaN;

  /** Whether it is a cancelled job still waiting for the last pieces of its chunks. */
  public boolean collecting() {
    return !Double.isNaN(collectUntil);
  }

  // the recovery scheme, fixed at the first plan
  public List<String> members = List.of();
  /** Each member's place in {@link #members} (rebuilt when they change). */
  private final Map<String, Integer> memberIndex = new HashMap<>();
  private List<String> indexed;
  public RecoveryScheme scheme;

  /** @param speed a worker's speed for the job's workload (units/s), NaN when unknown */
  public JobLedger(JobDef def, java.util.function.ToDoubleFunction<String> speed) {
    this.def = def;
    this.queues = new Queues(speed);
    this.committed = RangeSet.of(def.start(), def.end());
    committed.removeAll(def.remaining());
    this.unplanned = def.remaining().copy();
    this.nextChunkId = def.firstChunkId();
    // a restarted job does not check every new piece to catch up on pieces picked before the restart
    this.checkedSelected = (long) (def.verify() * committed.size());
  }

  public boolean active() {
    return phase == JobPhase.RUNNING;
  }

  /** A failed piece: the units a worker could not compute, and what it said. */
  public record Failure(long start, long end, String worker, String message) {}

  /** Pieces that failed, in order. */
  public final List<Failure> failures = new ArrayList<>();
  /** Workers that failed too often on this job: they get none of it any more. */
  public final java.util.Set<String> setAside = new java.util.LinkedHashSet<>();

  /** Whether the worker may be given work of this job. */
  public boolean takes(Member m) {
    return m.accepts(def.workload()) && !setAside.contains(m.id);
  }

  /** Failures so far of pieces that share a unit with {@code [start, end)}. */
  public List<Failure> failuresWithin(long start, long end) {
    return failures.stream().filter(f -> f.start() < end && start < f.end()).toList();
  }

  public long failuresOf(String worker) {
    return failures.stream().filter(f -> f.worker().equals(worker)).count();
  }

  public WorkQueue queue(String worker) {
    return queues.of(worker);
  }

  /** Whether any unit waits in a queue, the pool, or unplanned (what {@link #queued()} holds, without building it). */
  public boolean anyQueued() {
    return !unplanned.isEmpty() || !pool.isEmpty() || queues.anyQueued();
  }

  /** Whether every unit of {@code [from, to)} is committed or on its way to it. */
  public boolean saved(long from, long to) {
    for (long[] g : committed.gaps(from, to)) {
      if (!pending.containsAll(g[0], g[1])) {
        return false;
      }
    }
    return true;
  }

  /** Whether some unit of {@code [from, to)} is committed or on its way to it. */
  public boolean savedAny(long from, long to) {
    return committed.intersects(from, to) || pending.intersects(from, to);
  }

  /** The parts of {@code [from, to)} neither committed nor pending, in order. */
  public List<long[]> unsaved(long from, long to) {
    List<long[]> out = new ArrayList<>();
    for (long[] g : committed.gaps(from, to)) {
      out.addAll(pending.gaps(g[0], g[1]));
    }
    return out;
  }

  /** Committed and pending units together (a copy: for the rare whole-ledger passes). */
  public RangeSet savedSet() {
    if (pending.isEmpty()) {
      return committed;
    }
    RangeSet s = committed.copy();
    s.addAll(pending);
    return s;
  }

  /**
   * Units somebody has: saved, held by a live chunk, in the pool or not planned yet, or queued for a
   * worker other than {@code exceptQueue}. A new set.
   */
  public RangeSet covered(String exceptQueue) {
    RangeSet s = committed.copy();
    s.addAll(pending);
    s.addAll(unplanned);
    for (Chunk c : chunks.values()) {
      if (c.check == null) {
        s.add(c.cursor, c.end);
      }
    }
    for (WorkQueue q : queues.all()) {
      if (!q.owner.equals(exceptQueue)) {
        addRuns(s, q);
      }
    }
    addRuns(s, pool);
    return s;
  }

  /** Units held by live chunks (their parts not yet received). */
  public RangeSet held() {
    RangeSet s = new RangeSet();
    for (Chunk c : chunks.values()) {
      if (c.check == null) {
        s.add(c.cursor, c.end);
      }
    }
    return s;
  }

  /** Whether every check picked so far is settled. */
  public boolean checksSettled() {
    if (!checks.isEmpty() || !checking.isEmpty()) {
      return false;
    }
    for (Chunk c : chunks.values()) {
      if (c.check != null) {
        return false;
      }
    }
    return true;
  }

  /** Units queued that nobody has started or saved. */
  public long unstarted() {
    return unstarted(held());
  }

  /** Units queued that nobody has started or saved, with {@code held} the units held (see {@link #held}). */
  public long unstarted(RangeSet held) {
    RangeSet q = queued();
    q.removeAll(savedSet());
    q.removeAll(held);
    return q.size();
  }

  /** Units in queues, the pool, or not planned yet. */
  public RangeSet queued() {
    RangeSet s = unplanned.copy();
    for (WorkQueue q : queues.all()) {
      addRuns(s, q);
    }
    addRuns(s, pool);
    return s;
  }

  /**
   * Adds the pieces to the set a run at a time: a queue holds its plan's pieces in order, end to
   * end, so 100,000 pieces are a few thousand runs, and as many updates of the set.
   */
  private static void addRuns(RangeSet s, WorkQueue q) {
    long from = 0;
    long to = 0;
    boolean open = false;
    for (ChunkPlan p : q) {
      if (open && p.start() == to) {
        to = p.end();
        continue;
      }
      if (open) {
        s.add(from, to);
      }
      from = p.start();
      to = p.end();
      open = true;
    }
    if (open) {
      s.add(from, to);
    }
  }

  /**
   * The first worker on the recovery list of {@code worker} that {@code ok} accepts, read one entry
   * at a time (a list names every other member: 10,000 of them); null if none, or if
   * {@code worker} is not a member of the scheme.
   */
  public String firstOnList(String worker, java.util.function.Predicate<String> ok) {
    if (indexed != members) {
      indexed = members;
      memberIndex.clear();
      for (int k = 0; k < members.size(); k++) {
        memberIndex.putIfAbsent(members.get(k), k);
      }
    }
    Integer i = memberIndex.get(worker);
    if (i == null || scheme == null) {
      return null;
    }
    for (int k = 0; k < scheme.n() - 1; k++) {
      String candidate = members.get(scheme.at(i, k));
      if (ok.test(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  /** A chunk over {@code [from, to)} keeping the checkpoints of {@code source} that fall inside. */
  public static ChunkPlan part(long from, long to, long[] checkpoints) {
    return new ChunkPlan(from, to, Arrays.stream(checkpoints).filter(c -> c > from && c < to).toArray());
  }

  public long units() {
    return def.units();
  }
}
