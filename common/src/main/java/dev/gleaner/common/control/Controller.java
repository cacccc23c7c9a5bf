package dev.gleaner.common.control;

import dev.gleaner.common.estimate.Estimate;
import dev.gleaner.common.estimate.Estimator;
import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Assignment;
import dev.gleaner.common.plan.ChunkPlan;
import dev.gleaner.common.plan.Plan;
import dev.gleaner.common.plan.PlanRequest;
import dev.gleaner.common.plan.Strategies;
import dev.gleaner.common.recovery.RecoveryPlans;
import dev.gleaner.common.util.RangeSet;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Every runtime decision of every job: what to send to whom next, how big, with which checkpoints,
 * when to re-plan, where lost work goes, when to split a tail or start a replica, when a job ends.
 *
 * <p>Events are method calls with the current time in seconds (any origin, never going back);
 * decisions accumulate as {@link Action}s that the caller takes with {@link #drain()} and carries
 * out: the master with Netty and SQLite, the simulator on its own clock. Not thread-safe: a body
 * calls it from one thread.
 *
 * <p>How it decides:
 * <ol>
 *   <li><b>Plan.</b> A job starts once {@code minWorkers} workers that accept its workload are up.
 *       Its work not yet handed out is planned with the job's strategy over the workers whose speed
 *       is known, with the {@link Estimator}'s speed, bandwidth, risk and eps. A worker of unknown
 *       speed is never planned: while nobody's speed is known, fixed probe chunks go to a shared
 *       pool. The plan's per-worker chunk lists become queues, its pool the pool; the service order
 *       becomes the port's order ({@link Action.Stream#rank()}).
 *   <li><b>Hand out.</b> A worker with fewer than {@code window} copies takes the head of its queue,
 *       else of the pool. A chunk that cannot finish before the job's deadline or the worker's
 *       declared end is cut to what fits. A worker with nothing in hand takes the back of the
 *       longest other queue, and failing that the tail of the running copy that would finish last
 *       (paper 000's B1: the holder is told to stop where the tail starts); when that holder is
 *       likely to be interrupted first, its copy is replicated instead, from the holder's next piece.
 *   <li><b>Commit.</b> A piece counts once: the first commit of a range wins, a range already
 *       saved is a duplicate, and a piece that overlaps saved units only in part is discarded (its
 *       unsaved units go back to the queues). A copy whose rest is all saved by others is cancelled.
 *   <li><b>Lose.</b> A lost worker's unsaved units that nobody else holds go to the first live
 *       worker on their home's recovery list (Klonowska's static lists, fixed at the first plan);
 *       then the job is re-planned. Joins, returns, drains and estimates that drift past
 *       {@code drift} re-plan too, at most once per {@code replanInterval}.
 *   <li><b>End.</b> When every unit is committed the job is DONE; at its deadline the copies are
 *       cancelled, pieces already received are made durable, and it ends DONE_PARTIAL with the
 *       units not done listed.
 * </ol>
 */
public final class Controller {
  /** How long a re-plan may keep auto's last pick instead of comparing every strategy again. */
  static final double AUTO_REVIEW_SECONDS = 60;

  private final ControlConfig config;
  private final Estimator estimator = new Estimator();
  private final Map<String, Member> members = new LinkedHashMap<>();
  private final Map<String, JobLedger> jobs = new LinkedHashMap<>();
  private final List<Action> out = new ArrayList<>();
  /** Up workers with a free slot. */
  private final Set<Member> hungry = new LinkedHashSet<>();
  /** Workers that got a free slot since the last pass. */
  private final Set<Member> fresh = new LinkedHashSet<>();
  /** Work appeared (or time moved) since the last pass: every hungry worker looks again. */
  private boolean workChanged = true;

  public Controller(ControlConfig config) {
    this.config = config;
  }

  public Controller() {
    this(ControlConfig.defaults());
  }

  /** The actions decided since the last call, in order. */
  public List<Action> drain() {
    List<Action> a = new ArrayList<>(out);
    out.clear();
    return a;
  }

  public Estimator estimator() {
    return estimator;
  }

  public ControlConfig config() {
    return config;
  }

  // ---------------------------------------------------------------- events

  /** A job to run; one already fully committed (a restart) finishes at once. */
  public void addJob(JobDef def, double now) {
    if (jobs.containsKey(def.id())) {
      throw new IllegalArgumentException("job " + def.id() + " is already known");
    }
    jobs.put(def.id(), new JobLedger(def));
    workChanged = true;
    pump(now);
  }

  /** A worker's session started: a new worker, or one coming back. */
  public void workerJoined(WorkerInfo info, double now) {
    Member m = members.get(info.id());
    if (m != null && m.state != Member.State.DOWN) {
      workerLost(info.id(), "replaced by a new session", false, now);
    }
    if (m == null) {
      m = new Member(info, now);
      members.put(m.id, m);
      estimator.history(m.id, info.pastInterruptions(), info.pastExposureSeconds());
    } else {
      m.update(info, now);
    }
    estimator.up(m.id, now, info.availableUntil());
    for (Map.Entry<String, Double> e : info.calibrated().entrySet()) {
      estimator.calibrated(m.id, e.getKey(), e.getValue());
    }
    hungry.add(m);
    fresh.add(m);
    for (JobLedger j : jobs.values()) {
      if (j.active() && m.accepts(j.def.workload())) {
        replanLater(j, "worker " + m.id + (m.sessions > 1 ? " returned" : " joined"));
      }
    }
    pump(now);
  }

  /** The worker finishes what it holds and takes nothing new; its queued work goes to others. */
  public void workerDraining(String id, double now) {
    Member m = members.get(id);
    if (m == null || m.state != Member.State.UP) {
      return;
    }
    m.state = Member.State.DRAINING;
    hungry.remove(m);
    fresh.remove(m);
    for (JobLedger j : jobs.values()) {
      Deque<ChunkPlan> q = j.queues.remove(id);
      if (q != null && !j.phase.ended()) {
        reroute(j, id, orphansOf(j, List.copyOf(q), id), now);
        replanLater(j, "worker " + id + " is draining");
      }
    }
    pump(now);
  }

  /**
   * The worker's session ended: closed, silent, or said goodbye. What it held and had queued that
   * nobody else has follows the recovery lists, then the job is re-planned.
   *
   * @param interrupted whether this counts as an interruption in its history (a drain does not)
   */
  public void workerLost(String id, String why, boolean interrupted, double now) {
    Member m = members.get(id);
    if (m == null || m.state == Member.State.DOWN) {
      return;
    }
    m.state = Member.State.DOWN;
    hungry.remove(m);
    fresh.remove(m);
    estimator.down(id, now, interrupted);
    Map<JobLedger, List<ChunkPlan>> lost = new LinkedHashMap<>();
    for (Copy c : List.copyOf(m.copies)) {
      removeCopy(c, now);
      lost.computeIfAbsent(c.job, k -> new ArrayList<>()).add(JobLedger.part(c.cursor, Math.max(c.cursor, c.end),
          c.checkpoints));
    }
    for (JobLedger j : jobs.values()) {
      Deque<ChunkPlan> q = j.queues.remove(id);
      if (q != null) {
        lost.computeIfAbsent(j, k -> new ArrayList<>()).addAll(q);
      }
    }
    for (Map.Entry<JobLedger, List<ChunkPlan>> e : lost.entrySet()) {
      JobLedger j = e.getKey();
      if (j.phase.ended() || j.phase == JobPhase.ENDING) {
        continue;
      }
      reroute(j, id, orphansOf(j, e.getValue(), id), now);
    }
    for (JobLedger j : jobs.values()) {
      if (j.active()) {
        replanLater(j, "worker " + id + " lost: " + why);
      }
    }
    pump(now);
  }

  /** {@code bytes} of a copy's input went onto the worker's wire in {@code seconds}. */
  public void streamed(String worker, String job, long copyId, long bytes, double seconds, double now) {
    if (bytes > 0 && seconds > 0) {
      estimator.transferred(worker, bytes, seconds);
    }
  }

  /** A checkpoint round trip (a piece received, made durable, acknowledged) took {@code seconds}. */
  public void overhead(double seconds) {
    estimator.overhead(seconds);
  }

  /**
   * A worker reported the result of units {@code [start, end)} of a copy. On {@link Verdict#COMMIT}
   * the body makes it durable, acknowledges it, then calls {@link #committed}; on
   * {@link Verdict#DUPLICATE} and {@link Verdict#DISCARD} it acknowledges it and counts nothing; on
   * {@link Verdict#REFUSE} it refuses the worker's session.
   */
  public Verdict piece(String worker, String job, long copyId, long start, long end, double now) {
    JobLedger j = jobs.get(job);
    if (j == null) {
      return Verdict.REFUSE;
    }
    Copy c = j.copies.get(copyId);
    if (c == null) {
      if (!worker.equals(j.ended.get(copyId))) {
        return Verdict.REFUSE;
      }
      return end > start && j.saved(start, end) ? Verdict.DUPLICATE : Verdict.DISCARD;
    }
    if (!c.worker.id.equals(worker) || end <= start || start < c.start || end > c.assignedEnd) {
      return Verdict.REFUSE;
    }
    if (end <= c.cursor) {
      return Verdict.DUPLICATE;
    }
    if (start != c.cursor) {
      return Verdict.REFUSE;
    }
    if (!j.active()) {
      return Verdict.DISCARD;
    }
    c.started(now);
    c.cursor = end;
    c.progressAt = now;
    Verdict v;
    if (j.saved(start, end)) {
      v = Verdict.DUPLICATE;
    } else if (j.savedAny(start, end)) {
      v = Verdict.DISCARD;
    } else {
      j.pending.add(start, end);
      v = Verdict.COMMIT;
    }
    if (c.cursor >= c.end) {
      removeCopy(c, now);
    }
    if (v == Verdict.DISCARD) {
      List<ChunkPlan> parts = orphansOf(j, List.of(new ChunkPlan(start, end, new long[0])), null);
      if (!parts.isEmpty()) {
        reroute(j, worker, parts, now);
      }
    }
    pump(now);
    return v;
  }

  /**
   * A piece the controller said to commit is durable.
   *
   * @param computeSeconds the seconds the worker spent computing it (0 if unknown)
   */
  public void committed(String worker, String job, long copyId, long start, long end, double computeSeconds,
      double now) {
    JobLedger j = jobs.get(job);
    if (j == null) {
      return;
    }
    j.pending.remove(start, end);
    long added = j.committed.add(start, end);
    if (added > 0) {
      j.unitsByWorker.merge(worker, added, Long::sum);
      Member m = members.get(worker);
      if (m != null) {
        m.unitsDone += added;
      }
    }
    if (computeSeconds > 0) {
      estimator.computed(worker, j.def.workload(), end - start, computeSeconds);
    }
    if (j.replicated) {
      cancelCovered(j, now);
    }
    if (j.committed.size() == j.units() && !j.phase.ended()) {
      finish(j, JobPhase.DONE, "", now);
    } else if (j.phase == JobPhase.ENDING && j.pending.isEmpty()) {
      endPartial(j, now);
    }
    pump(now);
  }

  /** The worker could not compute a copy: the job fails with its message. */
  public void chunkFailed(String worker, String job, long copyId, String message, double now) {
    JobLedger j = jobs.get(job);
    if (j != null && !j.phase.ended()) {
      finish(j, JobPhase.FAILED, "worker " + worker + " could not compute a chunk: " + message, now);
      pump(now);
    }
  }

  /** The job fails for a reason outside the controller (the store, the merge). */
  public void fail(String job, String message, double now) {
    JobLedger j = jobs.get(job);
    if (j != null && !j.phase.ended()) {
      finish(j, JobPhase.FAILED, message, now);
      pump(now);
    }
  }

  /** Time passed: deadlines, drifting estimates, due re-plans, tails worth splitting. */
  public void tick(double now) {
    for (JobLedger j : jobs.values()) {
      if ((j.phase == JobPhase.RUNNING || j.phase == JobPhase.WAITING) && j.def.deadline() <= now) {
        endAtDeadline(j, now);
      } else if (j.active() && !j.replanDue) {
        String drift = drift(j, now);
        if (drift != null) {
          replanLater(j, drift);
        }
      }
    }
    workChanged = true;
    pump(now);
  }

  // ---------------------------------------------------------------- deciding

  private void pump(double now) {
    for (JobLedger j : jobs.values()) {
      if (j.phase == JobPhase.WAITING) {
        start(j, now);
      } else if (j.active() && j.replanDue && now - j.lastPlanAt >= config.replanInterval()) {
        replan(j, now);
      }
    }
    if (hungry.isEmpty()) {
      fresh.clear();
      return;
    }
    List<Member> look = new ArrayList<>(workChanged ? hungry : fresh);
    workChanged = false;
    fresh.clear();
    for (Member m : look) {
      fill(m, now);
    }
  }

  private void start(JobLedger j, double now) {
    int accepting = accepting(j);
    int need = Math.max(1, j.def.minWorkers());
    if (accepting < need) {
      j.message = "waiting for " + need + " worker(s) that accept workload '" + j.def.workload() + "' ("
          + accepting + " connected)";
      return;
    }
    j.phase = JobPhase.RUNNING;
    j.message = "";
    if (j.committed.size() == j.units()) {
      finish(j, JobPhase.DONE, "", now);
      return;
    }
    j.replanWhy = "first plan";
    replan(j, now);
  }

  private void replanLater(JobLedger j, String why) {
    if (!j.replanDue) {
      j.replanDue = true;
      j.replanWhy = why;
    }
  }

  /** Re-plans the job's work that is not handed out yet over the workers of known speed. */
  private void replan(JobLedger j, double now) {
    j.replanDue = false;
    RangeSet held = j.held();
    RangeSet todo = j.queued();
    todo.removeAll(j.savedSet());
    todo.removeAll(held);
    boolean first = j.replans < 0;
    if (todo.isEmpty()) {
      j.queues.clear();
      j.pool.clear();
      j.unplanned.clear();
      j.lastPlanAt = now;
      return;
    }
    List<Member> accepting = new ArrayList<>();
    List<Worker> platform = new ArrayList<>();
    for (Member m : members.values()) {
      if (m.up() && m.accepts(j.def.workload())) {
        accepting.add(m);
        Worker w = estimator.worker(m.id, j.def.workload(), j.def.hasInput(), j.def.bytesPerUnit(), j.def.risk(), now);
        if (w != null) {
          platform.add(w);
        }
      }
    }
    if (accepting.isEmpty()) {
      return;
    }
    boolean probe = platform.isEmpty();
    String strategy = j.def.strategy();
    // auto compares every strategy; a re-plan keeps its last pick while the workers are much the same
    boolean reuse = strategy.equals("auto") && j.autoPick != null && now - j.autoAt < AUTO_REVIEW_SECONDS
        && Math.abs(platform.size() - j.autoWorkers) <= 0.2 * j.autoWorkers;
    if (reuse) {
      strategy = j.autoPick;
    }
    long chunkUnits = j.def.chunkUnits();
    if (probe) {
      // nobody's speed is known: fixed chunks in the pool until a piece measures someone
      for (Member m : accepting) {
        platform.add(Worker.ofSpeed(m.id, 1));
      }
      strategy = "self";
      chunkUnits = chunkUnits > 0 ? chunkUnits : probeUnits(j, accepting.size());
    }
    double left = j.def.deadline() - now;
    if (j.def.hasDeadline() && !(left > 0)) {
      return;
    }
    VirtualRanges v = new VirtualRanges(todo.ranges());
    Estimate eps = estimator.eps();
    Plan plan;
    try {
      PlanRequest request = new PlanRequest(0, v.total(), new Platform(platform), chunkUnits, j.def.checkpoints(),
          v.align(j.def.align(), j.def.start(), j.def.end()), eps.known() ? eps.value() : 0, j.def.risk(),
          j.def.hasDeadline() ? left : Double.NaN, j.def.replication());
      plan = Strategies.byName(strategy).plan(request);
      plan.requireCovers(0, v.total());
    } catch (RuntimeException e) {
      if (first) {
        finish(j, JobPhase.FAILED, "cannot plan: " + e.getMessage(), now);
      } else {
        j.message = "re-plan failed, the previous plan stands: " + e.getMessage();
      }
      return;
    }
    j.queues.clear();
    j.pool.clear();
    j.unplanned.clear();
    Map<String, Integer> rank = new HashMap<>();
    for (Assignment a : plan.order()) {
      Deque<ChunkPlan> q = j.queue(a.workerId());
      for (ChunkPlan c : a.chunks()) {
        for (ChunkPlan r : v.toReal(c)) {
          // the plan's pieces (checkpoint to checkpoint) go out one by one: a worker computes and saves
          // the same pieces, but what it has not started stays here, where a re-plan or an idle worker
          // can still take it, and its input streams piece by piece
          q.addAll(pieces(r));
          if (first) {
            j.homes.assign(r.start(), r.end(), a.workerId());
          }
        }
      }
      if (!a.chunks().isEmpty()) {
        rank.putIfAbsent(a.workerId(), rank.size());
      }
    }
    for (ChunkPlan c : plan.pool()) {
      for (ChunkPlan r : v.toReal(c)) {
        j.pool.addAll(pieces(r));
      }
    }
    j.rank = rank;
    j.replicated |= plan.replicated();
    j.replans++;
    j.lastPlanAt = now;
    j.strategy = plan.strategy();
    j.reason = probe ? "no worker's speed is known yet: probe chunks of " + chunkUnits
        + " units to whoever is free, then a plan with " + j.def.strategy()
        : reuse ? "auto's pick for these workers: " + plan.reason() : plan.reason();
    if (!probe && !reuse && j.def.strategy().equals("auto")) {
      j.autoPick = plan.strategy();
      j.autoAt = now;
      j.autoWorkers = platform.size();
    }
    j.planned = probe ? Map.of() : new Platform(platform).byId();
    j.expectedWork = j.committed.size() + j.pending.size() + held.size() + plan.expectedWork();
    j.message = "";
    if (first) {
      List<String> ids = new ArrayList<>();
      for (Assignment a : plan.order()) {
        if (!ids.contains(a.workerId())) {
          ids.add(a.workerId());
        }
      }
      for (Member m : accepting) {
        if (!ids.contains(m.id)) {
          ids.add(m.id);
        }
      }
      j.members = List.copyOf(ids);
      j.scheme = ids.size() < 2 ? null : RecoveryPlans.forWorkers(ids.size());
    }
    out.add(new Action.Planned(j.def.id(), j.strategy, j.reason, todo.size(), plan.expectedWork(), platform.size(),
        j.replans, j.replanWhy));
    workChanged = true;
  }

  /** A chunk cut at its checkpoints: one chunk per piece. */
  private static List<ChunkPlan> pieces(ChunkPlan c) {
    long[] cps = c.checkpoints();
    if (cps.length == 0) {
      return List.of(c);
    }
    List<ChunkPlan> out = new ArrayList<>(cps.length + 1);
    long at = c.start();
    for (long k : cps) {
      out.add(new ChunkPlan(at, k, new long[0]));
      at = k;
    }
    out.add(new ChunkPlan(at, c.end(), new long[0]));
    return out;
  }

  /** A worker's estimate moved past the drift threshold against the plan's figures, or null. */
  private String drift(JobLedger j, double now) {
    if (j.queued().isEmpty()) {
      return null;
    }
    for (Member m : members.values()) {
      if (!m.up() || !m.accepts(j.def.workload())) {
        continue;
      }
      Worker w = estimator.worker(m.id, j.def.workload(), j.def.hasInput(), j.def.bytesPerUnit(), j.def.risk(), now);
      Worker p = j.planned.get(m.id);
      if (w != null && p == null) {
        return "the speed of worker " + m.id + " is now known";
      }
      if (w != null && moved(w.speed(), p.speed())) {
        return String.format(Locale.ROOT, "worker %s now computes %.4g units/s (planned with %.4g)", m.id, w.speed(),
            p.speed());
      }
      if (w != null && moved(w.bandwidth(), p.bandwidth())) {
        return String.format(Locale.ROOT, "worker %s now receives %.4g units/s (planned with %.4g)", m.id,
            w.bandwidth(), p.bandwidth());
      }
    }
    return null;
  }

  private boolean moved(double now, double planned) {
    if (Double.isInfinite(now) || Double.isInfinite(planned)) {
      return now != planned;
    }
    return Math.abs(now - planned) > config.drift() * planned;
  }

  /** Gives the worker copies until its window is full or nothing is left for it. */
  private void fill(Member m, double now) {
    while (m.up() && wantsMore(m, now) && take(m, now)) {
      // one more copy handed out
    }
    if (!m.up() || !wantsMore(m, now)) {
      hungry.remove(m);
    }
  }

  /** Below its window, or below the most it may hold while what it holds is done within the lead time. */
  private boolean wantsMore(Member m, double now) {
    int held = m.copies.size();
    return held < config.window() || held < config.maxWindow() && config.lead() > 0 && busySeconds(m, now) < config.lead()
        && knownSpeed(m);
  }

  private boolean knownSpeed(Member m) {
    for (Copy c : m.copies) {
      if (!(speed(m, c.job) > 0)) {
        return false;
      }
    }
    return true;
  }

  private boolean take(Member m, double now) {
    for (JobLedger j : jobs.values()) {
      if (!j.active() || !m.accepts(j.def.workload())) {
        continue;
      }
      ChunkPlan c = fromQueue(j, j.queues.get(m.id), m, now, Long.MAX_VALUE);
      if (c == null) {
        c = fromQueue(j, j.pool, m, now, poolCap(j, m, now));
      }
      if (c != null) {
        assign(j, m, c, now, false);
        return true;
      }
    }
    if (!m.copies.isEmpty()) {
      return false;
    }
    // nothing planned for it and nothing in its hands: no idle worker while work remains
    for (JobLedger j : jobs.values()) {
      if (j.active() && m.accepts(j.def.workload()) && steal(j, m, now)) {
        return true;
      }
    }
    for (JobLedger j : jobs.values()) {
      if (j.active() && m.accepts(j.def.workload()) && split(j, m, now)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The most units a worker takes at once from the pool or another worker's queue: a sixteenth of
   * the time the job still needs on all workers (or to its deadline, if sooner), at this worker's
   * speed; never less than {@code splitSeconds} of work, nor than the job's chunk size. Pieces of
   * the worker's own plan are taken as planned. (Guided self-scheduling: pieces shrink as the job
   * nears its end, so the last ones finish together.)
   */
  private long poolCap(JobLedger j, Member m, double now) {
    double sm = speed(m, j);
    if (!(sm > 0)) {
      return probeUnits(j, accepting(j));
    }
    if (!(now - j.speedSumAt < 1)) {
      double total = 0;
      for (Member w : members.values()) {
        double s = w.up() && w.accepts(j.def.workload()) ? speed(w, j) : Double.NaN;
        if (s > 0) {
          total += s;
        }
      }
      j.speedSum = total;
      j.speedSumAt = now;
    }
    double total = j.speedSum;
    double left = j.units() - j.committed.size() - j.pending.size();
    double seconds = Math.min(left / Math.max(sm, total), j.def.deadline() - now);
    double cap = Math.ceil(sm * Math.max(config.splitSeconds(), seconds / 16));
    return (long) Math.max(Math.max(1, j.def.chunkUnits()), Math.min(Long.MAX_VALUE / 2, cap));
  }

  /**
   * The head of a queue, minus what is already saved, at most {@code cap} units, cut to what fits
   * the worker; null if none.
   */
  private ChunkPlan fromQueue(JobLedger j, Deque<ChunkPlan> q, Member m, double now, long cap) {
    while (q != null && !q.isEmpty()) {
      ChunkPlan c = q.peekFirst();
      if (j.savedAny(c.start(), c.end())) {
        q.pollFirst();
        List<long[]> gaps = j.unsaved(c.start(), c.end());
        for (int i = gaps.size() - 1; i >= 0; i--) {
          q.addFirst(JobLedger.part(gaps.get(i)[0], gaps.get(i)[1], c.checkpoints()));
        }
        continue;
      }
      ChunkPlan fit = fit(j, m, c, now);
      if (fit == null) {
        return null;
      }
      if (fit.units() > cap) {
        long cut = Math.min(fit.end(), j.def.align().applyAsLong(fit.start() + cap));
        if (cut < fit.end()) {
          fit = JobLedger.part(fit.start(), cut, fit.checkpoints());
        }
      }
      q.pollFirst();
      if (fit.end() < c.end()) {
        q.addFirst(JobLedger.part(fit.end(), c.end(), c.checkpoints()));
      }
      return fit;
    }
    return null;
  }

  /**
   * The part of c this worker should take: a probe chunk while its speed is unknown; what it can
   * finish before the job's deadline or its own declared end; null when nothing fits.
   */
  private ChunkPlan fit(JobLedger j, Member m, ChunkPlan c, double now) {
    double speed = speed(m, j);
    long take = c.units();
    if (!(speed > 0)) {
      take = Math.min(take, probeUnits(j, accepting(j)));
    } else {
      double limit = Math.min(j.def.deadline(), m.availableUntil);
      if (Double.isFinite(limit)) {
        Estimate eps = estimator.eps();
        double seconds = limit - now - busySeconds(m, now) - (eps.known() ? eps.value() : 0);
        double fits = Math.floor(seconds * speed);
        if (!(fits >= 1)) {
          return null;
        }
        take = (long) Math.min(take, fits);
      }
    }
    if (take >= c.units()) {
      return c;
    }
    long cut = Math.min(c.end(), j.def.align().applyAsLong(c.start() + take));
    return cut >= c.end() ? c : JobLedger.part(c.start(), cut, c.checkpoints());
  }

  private int accepting(JobLedger j) {
    int n = 0;
    for (Member m : members.values()) {
      if (m.up() && m.accepts(j.def.workload())) {
        n++;
      }
    }
    return n;
  }

  private long probeUnits(JobLedger j, int workers) {
    if (j.def.chunkUnits() > 0) {
      return j.def.chunkUnits();
    }
    return Math.max(1, j.units() / (16L * Math.max(1, workers)));
  }

  /** Takes (part of) the back of the queue that would take longest to run; false if all are empty. */
  private boolean steal(JobLedger j, Member m, double now) {
    // each failed attempt drops an item that was already saved, so this ends
    for (int attempts = 0; attempts < 1_000_000; attempts++) {
      Boolean taken = stealOnce(j, m, now);
      if (taken != null) {
        return taken;
      }
    }
    return false;
  }

  /** True if it took something, false if there is nothing to take, null to try again. */
  private Boolean stealOnce(JobLedger j, Member m, double now) {
    Member victim = null;
    double worst = 0;
    for (Map.Entry<String, Deque<ChunkPlan>> e : j.queues.entrySet()) {
      if (e.getKey().equals(m.id) || e.getValue().isEmpty()) {
        continue;
      }
      Member v = members.get(e.getKey());
      double s = speed(v, j);
      long units = 0;
      for (ChunkPlan c : e.getValue()) {
        units += c.units();
      }
      double backlog = units / (s > 0 ? s : 1);
      if (backlog > worst) {
        worst = backlog;
        victim = v;
      }
    }
    if (victim == null) {
      return Boolean.FALSE;
    }
    Deque<ChunkPlan> q = j.queues.get(victim.id);
    ChunkPlan last = q.pollLast();
    ChunkPlan taken = last;
    if (q.isEmpty() && last.units() > 1) {
      double sv = speed(victim, j);
      double sm = speed(m, j);
      double share = sv > 0 && sm > 0 ? sm / (sv + sm) : 0.5;
      long cut = last.end() - Math.round(last.units() * share);
      if (!(sm > 0)) {
        cut = Math.max(cut, last.end() - probeUnits(j, accepting(j)));
      }
      if (cut > last.start() && cut < last.end()) {
        cut = Math.min(last.end(), j.def.align().applyAsLong(cut));
      }
      if (cut > last.start() && cut < last.end()) {
        q.addLast(JobLedger.part(last.start(), cut, last.checkpoints()));
        taken = JobLedger.part(cut, last.end(), last.checkpoints());
      }
    }
    Deque<ChunkPlan> mine = j.queue(m.id);
    mine.addFirst(taken);
    ChunkPlan c = fromQueue(j, mine, m, now, poolCap(j, m, now));
    if (c == null) {
      // all of it was saved already, or nothing of it fits this worker
      return mine.isEmpty() ? null : Boolean.FALSE;
    }
    assign(j, m, c, now, false);
    return true;
  }

  /**
   * Splits off the tail of the running copy that would finish last and gives it to this idle
   * worker (B1); replicates it instead when the holder is likely to be lost before finishing.
   */
  private boolean split(JobLedger j, Member m, double now) {
    Copy best = null;
    double latest = config.splitSeconds();
    for (Copy c : j.copies.values()) {
      if (c.worker == m || c.replica) {
        continue;
      }
      double finish = finishSeconds(c, now);
      if (finish > latest) {
        latest = finish;
        best = c;
      }
    }
    if (best == null) {
      return false;
    }
    Copy c = best;
    double sh = speed(c.worker, j);
    double sm = speed(m, j);
    double thief = sm > 0 ? sm : sh;
    boolean waiting = Double.isNaN(c.startedAt);
    // the holder does [from, x) after `ahead` seconds, the thief [x, end): both finish together
    double from = waiting ? c.cursor : c.position(now, sh);
    double ahead = waiting ? finishSeconds(c, now) - (c.end - c.cursor) / sh : 0;
    double keep = Math.max(0, ((c.end - from) / thief - ahead) / (1 / sh + 1 / thief));
    long x = (long) Math.ceil(from + keep);
    if (!waiting) {
      x = Math.max(x, Math.max(c.cursor + 1, (long) Math.ceil(from + sh * config.splitMargin())));
    }
    if (!(sm > 0)) {
      // a worker of unknown speed gets a probe's worth, not a share
      x = Math.max(x, c.end - probeUnits(j, accepting(j)));
    }
    x = Math.max(x, c.cursor);
    if (x > c.cursor && x < c.end) {
      x = Math.min(c.end, j.def.align().applyAsLong(x));
    }
    if (x >= c.end) {
      return false;
    }
    Worker holder = estimator.worker(c.worker.id, j.def.workload(), j.def.hasInput(), j.def.bytesPerUnit(),
        j.def.risk(), now);
    double lostFirst = holder == null ? 0 : j.def.risk().interrupted(holder, latest);
    if (!waiting && lostFirst >= config.replicateAbove()) {
      // the same units from where the holder's next piece starts, cut at the same checkpoints: the
      // two copies report identical pieces, and the first commit of each wins
      c.replica = true;
      j.replicated = true;
      assign(j, m, JobLedger.part(c.cursor, c.end, c.checkpoints), now, true);
      return true;
    }
    long oldEnd = c.end;
    if (x == c.cursor && waiting) {
      out.add(new Action.Cancel(c.worker.id, j.def.id(), c.id, "moved to idle worker " + m.id));
      removeCopy(c, now);
    } else {
      c.end = x;
      out.add(new Action.Truncate(c.worker.id, j.def.id(), c.id, x));
    }
    assign(j, m, JobLedger.part(x, oldEnd, c.checkpoints), now, false);
    return true;
  }

  /** Seconds from now until the holder finishes this copy (its copies ahead of it first). */
  private double finishSeconds(Copy c, double now) {
    double s = speed(c.worker, c.job);
    if (!(s > 0)) {
      return 0;
    }
    double t = 0;
    for (Copy k : c.worker.copies) {
      t += (k.end - k.position(now, s)) / s;
      if (k == c) {
        break;
      }
    }
    return t;
  }

  /** Seconds until the worker is through everything it holds. */
  private double busySeconds(Member m, double now) {
    double t = 0;
    for (Copy k : m.copies) {
      double s = speed(m, k.job);
      if (s > 0) {
        t += (k.end - k.position(now, s)) / s;
      }
    }
    return t;
  }

  private double speed(Member m, JobLedger j) {
    Estimate e = estimator.speed(m.id, j.def.workload());
    return e.known() ? e.value() : Double.NaN;
  }

  private void assign(JobLedger j, Member m, ChunkPlan c, double now, boolean replica) {
    Copy copy = new Copy(j.nextCopyId++, j, m, c.start(), c.end(), c.checkpoints());
    copy.replica = replica;
    j.copies.put(copy.id, copy);
    m.copies.add(copy);
    if (m.copies.size() == 1) {
      copy.started(now);
    }
    long bytes = j.def.hasInput() ? (long) Math.ceil(c.units() * j.def.bytesPerUnit()) : 0;
    out.add(new Action.Assign(m.id, j.def.id(), copy.id, c.start(), c.end(), c.checkpoints(), bytes));
    if (bytes > 0) {
      out.add(new Action.Stream(m.id, j.def.id(), copy.id, c.start(), c.end(), j.rank.getOrDefault(m.id, Integer.MAX_VALUE)));
    }
  }

  /** The copy is over (complete, lost, cancelled): its worker's next copy starts. */
  private void removeCopy(Copy c, double now) {
    if (c.job.copies.remove(c.id) == null) {
      return;
    }
    c.job.ended.put(c.id, c.worker.id);
    Member m = c.worker;
    m.copies.remove(c);
    if (!m.copies.isEmpty()) {
      m.copies.get(0).started(now);
    }
    if (m.up()) {
      hungry.add(m);
      fresh.add(m);
    }
  }

  /** Cancels every live copy whose units still to come are all saved by another copy. */
  private void cancelCovered(JobLedger j, double now) {
    for (Copy c : List.copyOf(j.copies.values())) {
      if (c.cursor < c.end && j.saved(c.cursor, c.end)) {
        out.add(new Action.Cancel(c.worker.id, j.def.id(), c.id, "another copy saved its units first"));
        removeCopy(c, now);
      }
    }
  }

  /** The parts of these chunks that nobody has any more, as chunks keeping their checkpoints. */
  private List<ChunkPlan> orphansOf(JobLedger j, List<ChunkPlan> chunks, String exceptQueue) {
    RangeSet covered = j.covered(exceptQueue);
    List<ChunkPlan> orphans = new ArrayList<>();
    for (ChunkPlan c : chunks) {
      RangeSet o = RangeSet.of(c.start(), c.end());
      o.removeAll(covered);
      for (long[] r : o.ranges()) {
        orphans.add(JobLedger.part(r[0], r[1], c.checkpoints()));
        covered.add(r[0], r[1]);
      }
    }
    return orphans;
  }

  /**
   * Sends orphaned work along the recovery lists: each part goes to the back of the queue of the
   * first up worker on its home's list (the lost worker is the home of work that had none); with no
   * such worker, to the front of the pool.
   */
  private void reroute(JobLedger j, String from, List<ChunkPlan> orphans, double now) {
    if (orphans.isEmpty()) {
      return;
    }
    Map<List<String>, long[]> moved = new LinkedHashMap<>();
    List<ChunkPlan> toPool = new ArrayList<>();
    for (ChunkPlan c : orphans) {
      for (Homes.Part p : j.homes.parts(c.start(), c.end(), from)) {
        String to = null;
        for (String candidate : j.recoveryList(p.home())) {
          Member w = members.get(candidate);
          if (w != null && w.up() && !candidate.equals(from) && w.accepts(j.def.workload())) {
            to = candidate;
            break;
          }
        }
        ChunkPlan part = JobLedger.part(p.from(), p.to(), c.checkpoints());
        j.homes.assign(p.from(), p.to(), p.home());
        if (to == null) {
          toPool.add(part);
        } else {
          j.queue(to).addLast(part);
        }
        long[] n = moved.computeIfAbsent(List.of(p.home(), to == null ? "" : to), k -> new long[2]);
        n[0] += part.units();
        n[1]++;
      }
    }
    for (int i = toPool.size() - 1; i >= 0; i--) {
      j.pool.addFirst(toPool.get(i));
    }
    for (Map.Entry<List<String>, long[]> e : moved.entrySet()) {
      Action.Rerouted r = new Action.Rerouted(j.def.id(), from, e.getKey().get(0), e.getKey().get(1), e.getValue()[0],
          (int) e.getValue()[1]);
      j.reroutes.add(r);
      out.add(r);
    }
    workChanged = true;
  }

  private void endAtDeadline(JobLedger j, double now) {
    cancelAll(j, "the job's deadline passed", now);
    j.phase = JobPhase.ENDING;
    if (j.pending.isEmpty()) {
      endPartial(j, now);
    }
  }

  private void endPartial(JobLedger j, double now) {
    RangeSet notDone = RangeSet.of(j.def.start(), j.def.end());
    notDone.removeAll(j.committed);
    String message = String.format(Locale.ROOT, "deadline reached: %d of %d units done, %d not done in %d range(s)",
        j.committed.size(), j.units(), notDone.size(), notDone.rangeCount());
    j.phase = JobPhase.DONE_PARTIAL;
    j.message = message;
    out.add(new Action.Finished(j.def.id(), JobPhase.DONE_PARTIAL, notDone, message));
  }

  private void finish(JobLedger j, JobPhase phase, String message, double now) {
    cancelAll(j, phase == JobPhase.DONE ? "the job is done" : "the job failed", now);
    j.phase = phase;
    j.message = message;
    out.add(new Action.Finished(j.def.id(), phase, new RangeSet(), message));
  }

  private void cancelAll(JobLedger j, String why, double now) {
    for (Copy c : List.copyOf(j.copies.values())) {
      out.add(new Action.Cancel(c.worker.id, j.def.id(), c.id, why));
      removeCopy(c, now);
    }
    j.queues.clear();
    j.pool.clear();
    j.unplanned.clear();
    j.replanDue = false;
  }

  // ---------------------------------------------------------------- views

  /**
   * A job as {@code gleaner status} shows it.
   *
   * @param expectedWork units the current plan expects saved (committed and held when it was made,
   *     plus its own expectation for the rest); NaN before the first plan
   */
  public record JobView(String id, String workload, JobPhase phase, String message, String strategy, String reason,
      long units, long committed, RangeSet notDone, double expectedWork, int replans, double deadline,
      Map<String, Long> shares, String scheme, Map<String, List<String>> recovery, List<Action.Rerouted> reroutes,
      long queued, long held) {}

  /** A worker's state and the estimates the planner uses, each with its observation count. */
  public record WorkerView(String id, String state, Map<String, Estimate> speeds, Estimate bandwidth,
      Estimator.Risk risk, List<String> copies, long unitsDone, int sessions) {}

  public JobView job(String id) {
    JobLedger j = jobs.get(id);
    return j == null ? null : view(j);
  }

  public List<JobView> jobs() {
    List<JobView> out = new ArrayList<>();
    for (JobLedger j : jobs.values()) {
      out.add(view(j));
    }
    return out;
  }

  private JobView view(JobLedger j) {
    RangeSet notDone = new RangeSet();
    if (j.phase == JobPhase.DONE_PARTIAL) {
      notDone = RangeSet.of(j.def.start(), j.def.end());
      notDone.removeAll(j.committed);
    }
    Map<String, List<String>> recovery = new LinkedHashMap<>();
    for (String w : j.members) {
      recovery.put(w, j.recoveryList(w));
    }
    return new JobView(j.def.id(), j.def.workload(), j.phase, j.message, j.strategy, j.reason, j.units(),
        j.committed.size(), notDone, j.expectedWork, Math.max(0, j.replans), j.def.deadline(),
        Map.copyOf(j.unitsByWorker), j.scheme == null ? "" : j.scheme.name(), recovery, List.copyOf(j.reroutes),
        j.phase.ended() ? 0 : unstarted(j), j.held().size());
  }

  /** Units queued that nobody has started or saved. */
  private static long unstarted(JobLedger j) {
    RangeSet q = j.queued();
    q.removeAll(j.savedSet());
    q.removeAll(j.held());
    return q.size();
  }

  public List<WorkerView> workers(double now) {
    List<WorkerView> out = new ArrayList<>();
    for (Member m : members.values()) {
      out.add(workerView(m, now));
    }
    return out;
  }

  public WorkerView worker(String id, double now) {
    Member m = members.get(id);
    return m == null ? null : workerView(m, now);
  }

  private WorkerView workerView(Member m, double now) {
    Map<String, Estimate> speeds = new LinkedHashMap<>();
    for (String w : m.workloads) {
      speeds.put(w, estimator.speed(m.id, w));
    }
    List<String> copies = new ArrayList<>();
    for (Copy c : m.copies) {
      copies.add(c.toString());
    }
    return new WorkerView(m.id, m.state.name(), speeds, estimator.bandwidth(m.id), estimator.risk(m.id, now), copies,
        m.unitsDone, m.sessions);
  }

  /** The committed units of a job (a copy). */
  public RangeSet committedUnits(String job) {
    JobLedger j = jobs.get(job);
    return j == null ? new RangeSet() : j.committed.copy();
  }

  /**
   * Checks the ledger of a job: every unit of it is committed, pending, held, queued or (once it
   * ended at its deadline) not done; nothing is both committed and queued. For tests and assertions.
   *
   * @return null if consistent, else what is wrong
   */
  public String checkLedger(String job) {
    JobLedger j = jobs.get(job);
    if (j == null) {
      return "no job " + job;
    }
    for (long[] r : j.pending.ranges()) {
      if (j.committed.intersects(r[0], r[1])) {
        return "units both committed and pending in [" + r[0] + ", " + r[1] + ")";
      }
    }
    if (j.phase.ended() || j.phase == JobPhase.ENDING) {
      return null;
    }
    RangeSet saved = j.savedSet();
    RangeSet held = j.held();
    RangeSet queued = j.queued();
    RangeSet missing = RangeSet.of(j.def.start(), j.def.end());
    missing.removeAll(saved);
    missing.removeAll(held);
    missing.removeAll(queued);
    if (!missing.isEmpty()) {
      return "units nobody has: " + missing;
    }
    if (!j.replicated) {
      for (long[] r : queued.ranges()) {
        if (saved.intersects(r[0], r[1]) || held.intersects(r[0], r[1])) {
          return "queued units in [" + r[0] + ", " + r[1] + ") are also saved or held";
        }
      }
    }
    return null;
  }
}
