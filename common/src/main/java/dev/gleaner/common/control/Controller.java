package dev.gleaner.common.control;

import dev.gleaner.common.estimate.Estimate;
import dev.gleaner.common.estimate.Estimator;
import dev.gleaner.common.plan.ChunkPlan;
import dev.gleaner.common.plan.Plan;
import dev.gleaner.common.plan.Timeline;
import dev.gleaner.common.util.RangeSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 *       likely to be interrupted first, its copy is replicated instead, from the holder's next piece;
 *       failing that, a copy not started by the worker holding most beyond its window. Waiting
 *       workers are served one copy at a time, those with nothing in hand first ({@link Waiters});
 *       each choice is a look-up in an index, not a scan of every queue or copy.
 *   <li><b>Commit.</b> A piece counts once: the first commit of a range wins, a range already
 *       saved is a duplicate, and a piece that overlaps saved units only in part is discarded (its
 *       unsaved units go back to the queues). A copy whose rest is all saved by others is cancelled.
 *   <li><b>Lose.</b> A lost worker's unsaved units that nobody else holds go to the first live
 *       worker on their home's recovery list (Klonowska's static lists, fixed at the first plan);
 *       then the job is re-planned. Joins, returns, drains and estimates that drift past
 *       {@code drift} re-plan too, at most once per {@code replanInterval}, and while workers keep
 *       joining in a burst at most once per {@link #BURST_REPLANS} intervals. A worker whose session
 *       the master refused re-plans nothing, at that loss or its next joins, until a piece of it
 *       counts ({@link #workerRefused}).
 *   <li><b>End.</b> When every unit is committed the job is DONE; at its deadline each copy being
 *       computed is stopped where its worker has reported up to and its worker reports what it
 *       computed (as at a cancel with a grace), the other copies are cancelled, pieces received are
 *       made durable, and it ends DONE_PARTIAL with the units not done listed.
 * </ol>
 */
public final class Controller {
  /** How long a re-plan may keep auto's last pick instead of comparing every strategy again. */
  static final double AUTO_REVIEW_SECONDS = 60;

  final ControlConfig config;
  final Estimator estimator = new Estimator();
  final Map<String, Member> members = new LinkedHashMap<>();
  /** Every job known, ended ones too (their status is read until they are forgotten). */
  final Map<String, JobLedger> jobs = new LinkedHashMap<>();
  /**
   * The jobs that have not ended, in the order they came: what every pass, pump and hand-out looks
   * at, so a master that has run thousands of jobs costs what its running ones do. Replaced, never
   * changed, when a job comes or ends, so a loop over it may start or end jobs.
   */
  private List<JobLedger> live = List.of();
  private final List<JobLedger> arrived = new ArrayList<>();
  private boolean liveStale;
  final List<Action> out = new ArrayList<>();
  /** Work appeared (or time moved) since the last pass: the waiting workers look again. */
  boolean workChanged = true;
  /** Workers whose copies (or speed) changed since the indexes of copies were last brought up to date. */
  private final List<Member> touched = new ArrayList<>();
  /** Up workers by workload they accept (see {@link #accepting}). */
  private final Map<String, Integer> upByWorkload = new java.util.HashMap<>();
  /** Copies reserved for workers that have not come back yet (see {@link Copy#reservedUntil}). */
  int reserved;
  /** When the last worker joined, and since when workers have been joining in a burst (NaN: not now). */
  private double lastJoinAt = Double.NEGATIVE_INFINITY;
  private double burstSince = Double.NaN;
  /** After the store failed, nothing is handed out before this time (no busy loop on a full disk). */
  double storeHoldUntil = Double.NEGATIVE_INFINITY;
  final Handout handout = new Handout(this);
  final Waiters waiters = new Waiters(this, handout);
  final Planner planner = new Planner(this);

  public Controller(ControlConfig config) {
    this.config = config;
    estimator.listen(this::estimateChanged);
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

  /** Least seconds between two {@link Action.Remember} of one job: each one is written whole. */
  static final double MEMORY_INTERVAL = 1;

  /** A running job whose memories changed says so (see {@link JobMemory}), at most once a second. */
  private void remember(double now) {
    remember(now, false);
  }

  /**
   * Every running job whose memories changed says so now, however recently it last did: the body
   * is stopping, and a restart must find the checks picked since.
   */
  public void rememberNow(double now) {
    remember(now, true);
  }

  private void remember(double now, boolean whenever) {
    for (JobLedger j : live()) {
      if (j.phase.ended() || !whenever && now - j.rememberedAt < MEMORY_INTERVAL) {
        continue;
      }
      long plan = JobMemory.planVersion(j);
      long checks = JobMemory.checksVersion(j);
      if (plan != j.planMemory || checks != j.checksMemory) {
        out.add(new Action.Remember(j.def.id(), plan != j.planMemory ? JobMemory.plan(j) : null,
            checks != j.checksMemory ? JobMemory.checks(j) : null));
        j.planMemory = plan;
        j.checksMemory = checks;
        j.rememberedAt = now;
      }
    }
  }

  /** The body could not store the job's last memories: they are sent again, whole, at the next tick. */
  public void memoryLost(String job) {
    JobLedger j = jobs.get(job);
    if (j != null) {
      j.planMemory = Long.MIN_VALUE;
      j.checksMemory = Long.MIN_VALUE;
    }
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
    addJob(def, List.of(), 0, now);
  }

  /**
   * A job a restarted master takes up again, with the copies its store says were handed out and
   * not finished. Each copy's unsaved units stay reserved for its worker for {@code graceSeconds}:
   * a worker that kept computing through the restart claims the copy when it connects
   * ({@link #workerJoined(WorkerInfo, List, double)}) and goes on with it; the units of a worker
   * that does not come back in time go to others, as if it had been lost then. Of two copies over
   * the same units, the later (the master's newer decision) is kept.
   *
   * @param handedOut copies of this job from the store, each with {@code acked} the end of its
   *     committed pieces; their ids are below the job's {@link JobDef#firstCopyId()}
   */
  public void addJob(JobDef def, List<Held> handedOut, double graceSeconds, double now) {
    addJob(def, handedOut, graceSeconds, null, null, now);
  }

  /**
   * Like {@link #addJob(JobDef, List, double, double)}, with the job's memories from before the
   * restart (the last {@link Action.Remember} texts; null for none): the same recovery lists, the
   * same homes, and the checks it had picked.
   */
  public void addJob(JobDef def, List<Held> handedOut, double graceSeconds, String planMemory, String checksMemory,
      double now) {
    if (jobs.containsKey(def.id())) {
      throw new IllegalArgumentException("job " + def.id() + " is already known");
    }
    JobLedger j = new JobLedger(def, id -> {
      Member w = members.get(id);
      return w == null ? Double.NaN : handout.speed(w, def.workload());
    });
    JobMemory.restore(j, planMemory, checksMemory);
    // what was given back is already stored
    j.planMemory = JobMemory.planVersion(j);
    j.checksMemory = JobMemory.checksVersion(j);
    jobs.put(def.id(), j);
    arrived.add(j);
    liveStale = true;
    List<Held> newestFirst = new ArrayList<>(handedOut);
    newestFirst.sort((a, b) -> Long.compare(b.copyId(), a.copyId()));
    RangeSet taken = new RangeSet();
    for (Held h : newestFirst) {
      if (!h.job().equals(def.id()) || h.copyId() >= j.nextCopyId) {
        throw new IllegalArgumentException("copy " + h + " is not a copy of job " + def.id() + " below id "
            + j.nextCopyId);
      }
      if (h.acked() >= h.end() || taken.intersects(h.acked(), h.end()) || j.committed.containsAll(h.acked(), h.end())) {
        continue;
      }
      Member m = members.computeIfAbsent(h.worker(), id -> Member.unseen(id, def.workload(), now));
      if (m.state != Member.State.DOWN) {
        continue;
      }
      Copy c = new Copy(h.copyId(), j, m, h.start(), h.end(), h.checkpoints());
      c.cursor = h.acked();
      c.startedAt = now;
      c.progressAt = now;
      c.reservedUntil = now + graceSeconds;
      j.copies.put(c.id, c);
      m.copies.add(c);
      m.copies.sort(BY_ID);
      touch(m);
      j.unplanned.remove(c.cursor, c.end);
      taken.add(c.cursor, c.end);
      reserved++;
    }
    workChanged = true;
    pump(now);
  }

  /** Copies in the order they were handed out (a worker computes them in that order). */
  private static final java.util.Comparator<Copy> BY_ID = java.util.Comparator.comparingLong((Copy c) -> c.id);

  /** A worker's session started: a new worker, or one coming back. */
  public void workerJoined(WorkerInfo info, double now) {
    workerJoined(info, List.of(), now);
  }

  /**
   * A worker's session started, the worker holding {@code claims}: copies it kept computing while
   * it was away from this master (a restart, a cut). A claim of a copy the controller still keeps
   * for this worker is taken up where its acknowledged pieces end (its later pieces follow); any
   * other claim is cancelled, and the worker's reserved copies it did not claim go to others.
   */
  public void workerJoined(WorkerInfo info, List<Held> claims, double now) {
    Member m = members.get(info.id());
    if (m != null && m.state != Member.State.DOWN) {
      // a new session while the old one looked alive: what it claims of its copies stays with it
      for (Held h : claims) {
        JobLedger j = jobs.get(h.job());
        Copy c = j == null ? null : j.copies.get(h.copyId());
        if (c != null && c.worker == m && !c.reserved()) {
          c.reservedUntil = now;
          reserved++;
          touch(m);
        }
      }
      workerLost(info.id(), "replaced by a new session", false, now);
    }
    if (m == null || m.unseen) {
      if (m == null) {
        m = new Member(info, now);
        members.put(m.id, m);
      } else {
        m.update(info, now);
        m.unseen = false;
      }
      estimator.history(m.id, info.pastInterruptions(), info.pastExposureSeconds());
    } else {
      m.update(info, now);
    }
    counted(m, 1);
    joined(now);
    takeUp(m, claims, now);
    estimator.up(m.id, now, info.availableUntil());
    for (Map.Entry<String, Double> e : info.calibrated().entrySet()) {
      estimator.calibrated(m.id, e.getKey(), e.getValue());
    }
    touch(m);
    waiters.wake(m);
    if (!m.refused) {
      replanFor(m, "worker " + m.id + (m.sessions > 1 ? " returned" : " joined"));
    }
    pump(now);
  }

  /** The worker finishes what it holds and takes nothing new; its queued work goes to others. */
  public void workerDraining(String id, double now) {
    Member m = members.get(id);
    if (m == null || m.state != Member.State.UP) {
      return;
    }
    counted(m, -1);
    m.state = Member.State.DRAINING;
    waiters.forget(m);
    for (JobLedger j : live()) {
      WorkQueue q = j.queues.remove(id);
      if (q != null && !j.phase.ended()) {
        reroute(j, id, orphansOf(j, q.toList(), id), now);
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
    lost(id, why, interrupted, interrupted, true, now);
  }

  /**
   * The worker's owner came back and it vacated, having saved what it computed: an interruption in
   * its history, but not a crash (see {@link Handout#hazardBounded}). What it held follows the
   * recovery lists and the job is re-planned, as at any loss.
   */
  public void workerVacated(String id, String why, double now) {
    lost(id, why, true, false, true, now);
  }

  /**
   * The master ended the worker's session for a request it may not make (a malformed or oversized
   * result, a message its role may not send, a revoked token). What it held follows the recovery
   * lists, as at any loss, but this is not an interruption and re-plans nothing: a broken or hostile
   * worker that logs in and is refused again and again must not make the master re-plan every job
   * each time. Its next joins re-plan nothing either, until a piece of it counts.
   */
  public void workerRefused(String id, String why, double now) {
    Member m = members.get(id);
    if (m != null) {
      m.refused = true;
    }
    lost(id, why, false, false, false, now);
  }

  private void lost(String id, String why, boolean interrupted, boolean crash, boolean replan, double now) {
    Member m = members.get(id);
    if (m == null || m.state == Member.State.DOWN) {
      return;
    }
    if (m.up()) {
      counted(m, -1);
    }
    m.state = Member.State.DOWN;
    waiters.forget(m);
    estimator.down(id, now, interrupted, crash);
    for (JobLedger j : live()) {
      List<ChunkPlan> lost = withdraw(m, j, null, now);
      if (!lost.isEmpty() && !j.phase.ended() && j.phase != JobPhase.ENDING) {
        reroute(j, id, orphansOf(j, lost, id), now);
      }
      if (j.collecting()) {
        settleEnding(j, now);
      }
    }
    for (JobLedger j : live()) {
      if (j.active() && replan) {
        replanLater(j, "worker " + id + " lost: " + why);
      }
    }
    pump(now);
  }

  /**
   * Takes the worker's copies and queue of a job back: the unsaved rest of each copy, then its
   * queue, as chunks keeping their checkpoints. With {@code cancelWhy}, the worker is told to stop
   * each copy (a worker that is gone is not).
   */
  private List<ChunkPlan> withdraw(Member m, JobLedger j, String cancelWhy, double now) {
    List<ChunkPlan> parts = new ArrayList<>();
    for (Copy c : List.copyOf(m.copies)) {
      if (c.job != j || c.reserved()) {
        continue;
      }
      out.add(cancelWhy != null ? new Action.Cancel(m.id, j.def.id(), c.id, cancelWhy)
          : new Action.Withdrawn(m.id, j.def.id(), c.id));
      removeCopy(c, now);
      if (c.check != null) {
        j.checks.addFirst(c.check);
        workChanged = true;
        continue;
      }
      if (c.cursor < c.end) {
        // (a copy collected at a cancel ends where its worker had reported up to: nothing of it is left)
        parts.add(JobLedger.part(c.cursor, c.end, c.checkpoints));
      }
    }
    WorkQueue q = j.queues.remove(m.id);
    if (q != null) {
      parts.addAll(q.toList());
    }
    return parts;
  }

  /** The worker's claims taken up or cancelled; its reserved copies it did not claim go to others. */
  private void takeUp(Member m, List<Held> claims, double now) {
    java.util.Set<Copy> claimed = new java.util.HashSet<>();
    for (Held h : claims) {
      JobLedger j = jobs.get(h.job());
      Copy c = j == null ? null : j.copies.get(h.copyId());
      boolean live = j != null && !j.phase.ended() && j.phase != JobPhase.ENDING;
      if (live && c != null && c.worker == m && c.reserved() && c.start == h.start() && h.acked() <= c.end) {
        c.reservedUntil = Double.NaN;
        reserved--;
        claimed.add(c);
        if (h.acked() > c.cursor) {
          // acknowledged as saved elsewhere (a duplicate) after the store's last piece of this copy
          long from = c.cursor;
          c.cursor = h.acked();
          reroute(j, m.id, orphansOf(j, List.of(JobLedger.part(from, c.cursor, c.checkpoints)), null), now);
        }
        if (h.end() < c.end) {
          // the worker stops earlier than the store says (a truncation the store missed, a stop)
          long oldEnd = c.end;
          c.end = Math.max(c.cursor, h.end());
          reroute(j, m.id, orphansOf(j, List.of(JobLedger.part(c.end, oldEnd, c.checkpoints)), null), now);
        } else if (h.end() > c.end) {
          // it may have computed past a truncation it missed: such a piece is taken (and counted once)
          c.assignedEnd = Math.max(c.assignedEnd, h.end());
          out.add(new Action.Truncate(m.id, j.def.id(), c.id, c.end, false, "its worker came back past a truncation it missed"));
        }
        c.progressAt = now;
        if (c.cursor >= c.end) {
          // nothing of it is left to report: its pieces on the way are duplicates
          removeCopy(c, now);
          claimed.remove(c);
        }
      } else {
        if (j != null && c == null && h.copyId() < j.nextCopyId) {
          // its pieces still on the way are acknowledged and not counted, not refused
          j.ended.putIfAbsent(h.copyId(), m.id);
        }
        out.add(new Action.Cancel(m.id, h.job(), h.copyId(), j == null ? "the master knows no job " + h.job()
            : !live ? "job " + h.job() + " has ended" : "the master no longer keeps this copy for worker " + m.id));
      }
    }
    for (Copy c : List.copyOf(m.copies)) {
      if (c.reserved() && !claimed.contains(c)) {
        release(c, "worker " + m.id + " came back without it", now);
      }
    }
    m.copies.sort(BY_ID);
    if (!m.copies.isEmpty()) {
      m.copies.get(0).started(now);
    }
    touch(m);
  }

  /** A reserved copy's units go to the others: its worker did not claim it in time. */
  private void release(Copy c, String why, double now) {
    JobLedger j = c.job;
    removeCopy(c, now);
    out.add(new Action.Withdrawn(c.worker.id, j.def.id(), c.id));
    if (!j.phase.ended() && j.phase != JobPhase.ENDING) {
      reroute(j, c.worker.id, orphansOf(j, List.of(JobLedger.part(c.cursor, Math.max(c.cursor, c.end), c.checkpoints)),
          null), now);
      if (j.active()) {
        replanLater(j, why);
      }
    }
  }

  /**
   * Reserved copies whose workers did not come back within the grace go to others; so do those of a
   * job with nothing else left for an idle worker, once {@link #IDLE_RESERVED_SECONDS} have passed.
   */
  private void expireReserved(double now) {
    if (reserved == 0) {
      return;
    }
    for (JobLedger j : live()) {
      boolean idle = false;
      boolean idleKnown = false;
      for (Copy c : List.copyOf(j.copies.values())) {
        if (!c.reserved() || c.worker.state != Member.State.DOWN) {
          continue;
        }
        if (c.reservedUntil <= now) {
          release(c, "worker " + c.worker.id + " did not come back for its copy " + c.id, now);
        } else if (now - c.progressAt >= IDLE_RESERVED_SECONDS) {
          if (!idleKnown) {
            idle = j.active() && unstarted(j) == 0 && waiters.anyBelowWindow(j);
            idleKnown = true;
          }
          if (idle) {
            release(c, "worker " + c.worker.id + " is not back and others are idle", now);
          }
        }
      }
    }
  }

  /** Seconds a job whose units are all committed waits for a worker able to take its remaining checks. */
  static final double CHECK_WAIT_SECONDS = 60;

  /**
   * A job with every unit committed whose remaining checks no connected worker may take (one
   * worker; a tie-break with two) ends after {@link #CHECK_WAIT_SECONDS} with them not done,
   * saying so, instead of waiting forever.
   */
  private void settleStuckChecks(double now) {
    for (JobLedger j : live()) {
      if (!j.active() || j.checks.isEmpty() || !j.checking.isEmpty() || j.committed.size() < j.units()
          || j.copies.values().stream().anyMatch(c -> c.check != null)) {
        j.checksStuckSince = Double.NaN;
        continue;
      }
      boolean takeable = j.checks.stream().anyMatch(k -> members.values().stream()
          .anyMatch(m -> m.up() && j.takes(m) && !k.excluded().contains(m.id)));
      if (takeable) {
        j.checksStuckSince = Double.NaN;
        continue;
      }
      if (Double.isNaN(j.checksStuckSince)) {
        j.checksStuckSince = now;
        j.message = "waiting for a worker that may check the last pieces (not the one that computed them)";
      } else if (now - j.checksStuckSince >= CHECK_WAIT_SECONDS) {
        long units = 0;
        for (JobLedger.Check k : j.checks) {
          units += k.units();
          if (k.tieBreak()) {
            j.mismatches.add("units [" + k.start() + ", " + k.end() + "): " + k.dissenter() + " disagreed with "
                + k.committer() + " and no third worker came to decide; " + k.committer() + "'s result stands");
          }
        }
        j.mismatches.add(units + " units picked for checking were not checked: no other worker within "
            + (long) CHECK_WAIT_SECONDS + " s");
        j.checks.clear();
        endIfDone(j, now);
      }
    }
  }

  /** Seconds after a restart before reserved copies go to workers that have nothing else to do. */
  static final double IDLE_RESERVED_SECONDS = 10;

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
   * A write the body made durable the way it saves a piece (a worker's session, recorded as it
   * joins) took {@code seconds}. Until the first piece is saved this stands for eps, so that the
   * first pieces of a job are cut for the store's real cost, not for {@link Handout#EPS_PRIOR}.
   * (The write completes after the join that made it: a job already waiting when the first worker
   * joins has that worker's first copies cut for {@link Handout#EPS_PRIOR} still.)
   */
  public void durableWrite(double seconds) {
    estimator.overheadPrior(seconds);
  }

  /**
   * A worker reported the result of units {@code [start, end)} of a copy. On {@link Verdict#COMMIT}
   * the body makes it durable, acknowledges it, then calls {@link #committed}; on
   * {@link Verdict#DUPLICATE} and {@link Verdict#DISCARD} it acknowledges it and counts nothing; on
   * {@link Verdict#REFUSE} it refuses the worker's session.
   */
  /**
   * Part of the worker's next piece of the copy has arrived, or waits at the master for memory to
   * be joined in: the worker is reporting, so the copy's lease runs from now. (A large result on a
   * slow link, or one waiting its turn, is not a worker that stopped.)
   */
  public void reporting(String worker, String job, long copyId, double now) {
    JobLedger j = jobs.get(job);
    Copy c = j == null ? null : j.copies.get(copyId);
    if (c != null && c.worker.id.equals(worker) && !Double.isNaN(c.progressAt)) {
      c.progressAt = Math.max(c.progressAt, now);
      touch(c.worker);
    }
  }

  public Verdict piece(String worker, String job, long copyId, long start, long end, double now) {
    return piece(worker, job, copyId, start, end, false, now);
  }

  /**
   * A piece arrived, with whether its worker marked it final (the last of its copy: where the copy
   * ends, or where a truncation made it stop). See {@link #piece(String, String, long, long, long, double)}.
   */
  public Verdict piece(String worker, String job, long copyId, long start, long end, boolean last, double now) {
    JobLedger j = jobs.get(job);
    if (j == null) {
      return Verdict.REFUSE;
    }
    Copy c = j.copies.get(copyId);
    if (c == null) {
      if (!worker.equals(j.ended.get(copyId))) {
        return Verdict.REFUSE;
      }
      // a duplicate is acknowledged as saved: only units already durable are (pending ones may still fail)
      return end > start && j.committed.containsAll(start, end) ? Verdict.DUPLICATE : Verdict.DISCARD;
    }
    if (!c.worker.id.equals(worker) || end <= start || start < c.start || end > c.assignedEnd) {
      return Verdict.REFUSE;
    }
    if (c.check != null) {
      return checkPiece(j, c, start, end, now);
    }
    if (end <= c.cursor) {
      // sent again (a new session resends what was not acknowledged): a duplicate once durable
      return j.committed.containsAll(start, end) ? Verdict.DUPLICATE : Verdict.DISCARD;
    }
    if (start != c.cursor) {
      return Verdict.REFUSE;
    }
    c.started(now);
    c.cursor = end;
    c.progressAt = now;
    touch(c.worker);
    Verdict v;
    if (j.committed.containsAll(start, end)) {
      v = Verdict.DUPLICATE;
    } else if (j.savedAny(start, end)) {
      v = Verdict.DISCARD;
    } else {
      j.pending.add(start, end);
      v = Verdict.COMMIT;
    }
    // a copy collected at a cancel ends with its final piece: one sent before the truncation arrived
    // may already reach past its new end
    if (c.cursor >= c.end && (!c.collected || last)) {
      removeCopy(c, now);
    }
    if (v == Verdict.DISCARD && j.phase != JobPhase.ENDING) {
      List<ChunkPlan> parts = orphansOf(j, List.of(new ChunkPlan(start, end, new long[0])), null);
      if (!parts.isEmpty()) {
        reroute(j, worker, parts, now);
      }
    }
    settleEnding(j, now);
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
        if (m.refused && m.up()) {
          // a worker refused before does real work again: its share is planned now
          m.refused = false;
          replanFor(m, "worker " + m.id + " returned");
        }
      }
    }
    if (computeSeconds > 0) {
      estimator.computed(worker, j.def.workload(), end - start, computeSeconds);
    }
    if (j.replicated) {
      cancelCovered(j, now);
    }
    if (added > 0 && j.def.verify() > 0 && j.active() && j.checkedSelected < j.def.verify() * j.committed.size()) {
      // paced so that the share checked follows the share asked for as the job goes
      j.checks.addLast(new JobLedger.Check(start, end, java.util.Set.of(worker), worker, null));
      j.checkedSelected += end - start;
      workChanged = true;
    }
    endIfDone(j, now);
    pump(now);
  }

  /**
   * Whether the job ends DONE, with no message, as soon as the pieces it waits to hear are durable
   * are reported {@link #committed}, if nothing else happens first: every unit is committed or
   * pending, none is checked, and it has not ended. A body that writes those pieces may write the
   * job's end in the same transaction.
   */
  public boolean endsWhenPendingCommit(String job) {
    JobLedger j = jobs.get(job);
    return j != null && !j.phase.ended() && j.phase != JobPhase.ENDING && j.def.verify() == 0 && !j.pending.isEmpty()
        && j.mismatches.isEmpty() && j.checksSettled() && j.committed.size() + j.pending.size() == j.units();
  }

  /** Every unit committed and every check settled: DONE; at the deadline, once nothing is pending: DONE_PARTIAL. */
  private void endIfDone(JobLedger j, double now) {
    if (j.committed.size() == j.units() && j.checksSettled() && !j.phase.ended()) {
      finish(j, JobPhase.DONE, j.mismatches.isEmpty() ? "" : j.mismatches.size() + " check(s) to note: "
          + String.join("; ", j.mismatches.subList(0, Math.min(3, j.mismatches.size())))
          + (j.mismatches.size() > 3 ? "; ..." : ""), now);
    } else if (j.phase == JobPhase.ENDING && j.pending.isEmpty() && !j.collecting()) {
      endPartial(j, now);
    }
  }

  /** A piece of a check copy: only its whole range compares; anything else sends the check back to the queue. */
  private Verdict checkPiece(JobLedger j, Copy c, long start, long end, double now) {
    JobLedger.Check k = c.check;
    removeCopy(c, now);
    if (start != k.start() || end != k.end() || j.phase.ended() || j.phase == JobPhase.ENDING) {
      if (!j.phase.ended() && j.phase != JobPhase.ENDING) {
        j.checks.addFirst(k);
        workChanged = true;
      }
      pump(now);
      return Verdict.DISCARD;
    }
    j.checking.put(c.id, k);
    pump(now);
    return k.tieBreak() ? Verdict.TIE_BREAK : Verdict.CHECK;
  }

  /**
   * The body compared a check's result (see {@link Verdict#CHECK}, {@link Verdict#TIE_BREAK}).
   *
   * @param agrees whether it equals the committed result
   * @param agreesWithDissent for a tie-break: whether it equals the dissenting check's result (the
   *     body has then replaced the committed result with it)
   */
  public void checked(String worker, String job, long copyId, boolean agrees, boolean agreesWithDissent, double now) {
    JobLedger j = jobs.get(job);
    JobLedger.Check k = j == null ? null : j.checking.remove(copyId);
    if (k == null || j.phase.ended()) {
      return;
    }
    String range = "units [" + k.start() + ", " + k.end() + ")";
    if (!k.tieBreak()) {
      if (agrees) {
        j.verified += k.units();
      } else {
        JobLedger.Check notHere = k.excluding(worker);
        j.checks.addFirst(new JobLedger.Check(k.start(), k.end(), notHere.excluded(), k.committer(), worker));
        workChanged = true;
      }
    } else if (agrees) {
      j.verified += k.units();
      j.mismatches.add(range + ": " + k.dissenter() + " disagreed with " + k.committer() + "; " + worker
          + " agrees with " + k.committer() + ", whose result stands");
    } else if (agreesWithDissent) {
      j.verified += k.units();
      j.mismatches.add(range + ": " + k.committer() + "'s result was wrong; " + k.dissenter() + " and " + worker
          + " agree, and their result replaced it");
    } else {
      finish(j, JobPhase.FAILED, range + " gave three different results (" + k.committer() + ", " + k.dissenter()
          + ", " + worker + "): the workload is not deterministic, or workers are faulty", now);
      pump(now);
      return;
    }
    endIfDone(j, now);
    pump(now);
  }

  /**
   * The body could not make a piece durable (a full disk, a failing store): it is not acknowledged
   * and not counted, its units go back to the queues, and the job goes on (saying why) instead of
   * failing: a store that can write again takes the next pieces.
   */
  public void commitFailed(String worker, String job, long copyId, long start, long end, String why, double now) {
    JobLedger j = jobs.get(job);
    if (j == null) {
      return;
    }
    j.pending.remove(start, end);
    storeHoldUntil = now + Math.max(1, config.replanInterval());
    if (!j.phase.ended() && j.phase != JobPhase.ENDING) {
      j.message = "the store could not save a piece (" + why + "); its units are queued again";
      reroute(j, worker, orphansOf(j, List.of(new ChunkPlan(start, end, new long[0])), null), now);
    }
    endIfDone(j, now);
    pump(now);
  }

  /**
   * The body could not record a copy before sending it: it is not sent, and its units go back to
   * the queues.
   */
  public void assignFailed(String worker, String job, long copyId, double now) {
    JobLedger j = jobs.get(job);
    Copy c = j == null ? null : j.copies.get(copyId);
    if (c == null || !c.worker.id.equals(worker)) {
      return;
    }
    removeCopy(c, now);
    storeHoldUntil = now + Math.max(1, config.replanInterval());
    if (c.check != null) {
      j.checks.addFirst(c.check);
      workChanged = true;
    } else if (!j.phase.ended() && j.phase != JobPhase.ENDING) {
      j.message = "the store could not record a chunk; its units are queued again";
      reroute(j, worker, orphansOf(j, List.of(JobLedger.part(c.cursor, Math.max(c.cursor, c.end), c.checkpoints)),
          null), now);
    }
    pump(now);
  }

  /**
   * The worker could not compute a copy (the program failed, not the computer). Its next piece is
   * tried again on another worker; a piece that failed {@code maxAttempts} times fails the job with
   * the last message, and a worker that failed twice on a job gets none of it any more (as Work
   * Queue and HTCondor set a failing host aside).
   */
  public void chunkFailed(String worker, String job, long copyId, String message, double now) {
    Copy c = failed(worker, job, copyId, message, now);
    if (c == null) {
      pump(now);
      return;
    }
    JobLedger j = c.job;
    out.add(new Action.Cancel(worker, job, c.id, "its computation failed"));
    removeCopy(c, now);
    List<ChunkPlan> rest = new ArrayList<>();
    rest.add(JobLedger.part(c.cursor, Math.max(c.cursor, c.end), c.checkpoints));
    boolean othersLeft = accepting(j) - (c.worker.up() && j.takes(c.worker) ? 1 : 0) > 0;
    // the last worker that takes the job is never set aside: its failures count toward maxAttempts
    if (j.failuresOf(worker) >= 2 && othersLeft && j.setAside.add(worker)) {
      // its other copies and its queue of this job go to others too
      rest.addAll(withdraw(c.worker, j, "worker set aside from this job after failures", now));
      j.message = "worker " + worker + " was set aside after " + j.failuresOf(worker) + " failures: " + message;
      replanLater(j, "worker " + worker + " set aside");
    }
    reroute(j, worker, orphansOf(j, rest, worker), now);
    pump(now);
  }

  /**
   * Counts a failure of the copy's next piece; when that piece has failed {@code maxAttempts} times
   * the job fails with the last message, and this returns true.
   */
  private boolean countFailure(Copy c, String message, double now) {
    JobLedger j = c.job;
    long cut = c.nextCut();
    j.failures.add(new JobLedger.Failure(c.cursor, cut, c.worker.id, message));
    List<JobLedger.Failure> here = j.failuresWithin(c.cursor, cut);
    if (here.size() < config.maxAttempts()) {
      return false;
    }
    String who = here.stream().map(JobLedger.Failure::worker).distinct().collect(
        java.util.stream.Collectors.joining(", "));
    finish(j, JobPhase.FAILED, "units [" + c.cursor + ", " + cut + ") failed " + here.size() + " times (on " + who
        + "); the last error, on " + c.worker.id + ": " + message, now);
    return true;
  }

  /**
   * The worker sent a result of a copy that cannot be read; the body ends its session. It counts
   * as a failure of that piece, as {@link #chunkFailed} does, so a piece whose result is malformed
   * everywhere fails its job instead of being tried forever.
   */
  public void badResult(String worker, String job, long copyId, String message, double now) {
    failed(worker, job, copyId, message, now);
    pump(now);
  }

  /**
   * A copy of this worker failed (its computation, or its result): a check goes back to the queue
   * for another worker (its units are committed), anything else counts as a failure of its next
   * piece. Returns the copy when it is still to be dealt with (neither a check nor the job's end);
   * null when there is nothing more to do (no such live copy, a check, the job failed).
   */
  private Copy failed(String worker, String job, long copyId, String message, double now) {
    JobLedger j = jobs.get(job);
    Copy c = j == null || j.phase.ended() ? null : j.copies.get(copyId);
    if (c == null || !c.worker.id.equals(worker)) {
      // a copy that had already ended (cancelled, split, covered): nothing of it is outstanding
      return null;
    }
    if (c.check != null) {
      requeueCheck(j, c, worker, now);
      return null;
    }
    return countFailure(c, message, now) ? null : c;
  }

  /** A check copy ends unsettled: its check goes back to the queue, never to {@code worker} again. */
  private void requeueCheck(JobLedger j, Copy c, String worker, double now) {
    JobLedger.Check k = c.check;
    removeCopy(c, now);
    j.checks.addFirst(k.excluding(worker));
    workChanged = true;
  }

  /** The job fails for a reason outside the controller (the store, the merge). */
  public void fail(String job, String message, double now) {
    JobLedger j = jobs.get(job);
    if (j != null && !j.phase.ended()) {
      finish(j, JobPhase.FAILED, message, now);
      pump(now);
    }
  }

  /**
   * Ends a running job, keeping what is saved. With a grace, what its workers computed since their
   * last piece is kept too: each copy being computed is truncated where its worker has reported up
   * to, so the worker stops at the end of its current step and reports what it has as a final
   * piece (as it does when its owner comes back), and the job ends once every such copy has sent
   * it, or its worker is lost, or the grace has passed, whichever comes first. Copies not started,
   * checks and copies of absent workers are cancelled at once; nothing new is handed out. Without
   * a grace, every copy is cancelled at once; a second cancel without a grace ends the wait.
   *
   * @param graceSeconds how long to wait for the last pieces; 0 for none
   * @return false if the job is unknown or has ended
   */
  public boolean cancel(String job, String reason, double graceSeconds, double now) {
    JobLedger j = jobs.get(job);
    if (j == null || j.phase.ended()) {
      return false;
    }
    j.cancelled = reason;
    String why = "the job was cancelled: " + reason;
    if (j.phase != JobPhase.ENDING) {
      if (graceSeconds > 0 && j.phase == JobPhase.RUNNING) {
        collect(j, why, now);
        // the job's deadline still holds: what comes after it is not waited for
        j.collectUntil = Math.min(now + graceSeconds, j.def.deadline());
        j.message = String.format(Locale.ROOT, "being cancelled (%s): waiting up to %.0f s for the last pieces of %d"
            + " chunk(s)", reason, j.collectUntil - now, j.copies.size());
      } else {
        cancelAll(j, why, now);
      }
      j.phase = JobPhase.ENDING;
    } else if (!(graceSeconds > 0) && j.collecting()) {
      j.collectUntil = now;
    }
    settleEnding(j, now);
    pump(now);
    return true;
  }

  /** Truncates the copies being computed where their workers have reported up to; cancels the rest. */
  private void collect(JobLedger j, String why, double now) {
    for (Copy c : List.copyOf(j.copies.values())) {
      boolean computing = c.check == null && !c.reserved() && c.worker.state != Member.State.DOWN
          && !Double.isNaN(c.startedAt) && c.cursor < c.end;
      if (computing) {
        c.collected = true;
        c.end = c.cursor;
        touch(c.worker);
        out.add(new Action.Truncate(c.worker.id, j.def.id(), c.id, c.cursor, false,
            why + "; its worker reports what it computed up to its current step"));
      } else {
        out.add(new Action.Cancel(c.worker.id, j.def.id(), c.id, why));
        removeCopy(c, now);
      }
    }
    dropPlans(j);
  }

  /**
   * An ending job: once the last pieces of a cancel are in (or their grace has passed), the copies
   * left are cancelled, and once nothing is pending it ends.
   */
  private void settleEnding(JobLedger j, double now) {
    if (j.phase != JobPhase.ENDING) {
      return;
    }
    if (j.collecting()) {
      if (!j.copies.isEmpty() && now < j.collectUntil) {
        return;
      }
      j.collectUntil = Double.NaN;
      cancelAll(j, (j.cancelled != null ? "the job was cancelled: " + j.cancelled : "the job's deadline passed")
          + " (its last pieces did not come in time)", now);
    }
    if (j.pending.isEmpty()) {
      endPartial(j, now);
    }
  }

  /** An ended job is dropped from the controller's books (its status, its counts). */
  public void forget(String job) {
    JobLedger j = jobs.get(job);
    if (j != null && j.phase.ended()) {
      jobs.remove(job);
      liveStale = true;
    }
  }

  /** The jobs that have not ended (see {@link #live}); the list is never changed once returned. */
  List<JobLedger> live() {
    if (liveStale) {
      List<JobLedger> next = new ArrayList<>(live.size() + arrived.size());
      for (List<JobLedger> from : List.of(live, arrived)) {
        for (JobLedger j : from) {
          if (!j.phase.ended() && jobs.get(j.def.id()) == j) {
            next.add(j);
          }
        }
      }
      arrived.clear();
      live = next;
      liveStale = false;
    }
    return live;
  }

  /** Time passed: deadlines, drifting estimates, due re-plans, tails worth splitting. */
  public void tick(double now) {
    remember(now);
    expireReserved(now);
    expireLeases(now);
    settleStuckChecks(now);
    for (JobLedger j : live()) {
      if (j.active() && !j.setAside.isEmpty() && accepting(j) == 0) {
        // only set-aside workers are left: they take the job again rather than let it stall
        j.setAside.clear();
        workChanged = true;
      }
    }
    for (JobLedger j : live()) {
      if ((j.phase == JobPhase.RUNNING || j.phase == JobPhase.QUEUED) && j.def.deadline() <= now) {
        endAtDeadline(j, now);
      } else if (j.collecting()) {
        settleEnding(j, now);
      } else if (j.active() && !j.replanDue) {
        String drift = planner.drift(j, now);
        if (drift != null) {
          replanLater(j, drift);
        }
      }
    }
    workChanged = true;
    pump(now);
  }

  /**
   * A worker computing a copy without a piece for longer than its lease loses its session and its
   * work, as if it had been interrupted: heartbeats prove a process, not progress.
   */
  private void expireLeases(double now) {
    // workerLost changes a member's state, never the map
    for (Member m : members.values()) {
      if (m.state == Member.State.DOWN || m.copies.isEmpty()) {
        continue;
      }
      Copy c = m.copies.get(0);
      double silent = now - c.progressAt;
      // no lease is shorter than the floor: most workers are not looked up at all
      if (!(silent > config.leaseFloor()) || c.job.phase.ended() || c.job.phase == JobPhase.ENDING) {
        continue;
      }
      double lease = lease(m, c);
      if (silent > lease) {
        String why = String.format(Locale.ROOT, "no piece of chunk %s for %.0f s (its lease: %.0f s)", c, silent,
            lease);
        out.add(new Action.Drop(m.id, why));
        // a piece that hangs everywhere (a program that never ends) must not be tried forever
        if (c.check == null) {
          countFailure(c, why, now);
        }
        workerLost(m.id, why, true, now);
      }
    }
  }

  /** Seconds the copy's next piece may take: {@code leaseFactor} times its expected time, at least the floor. */
  double lease(Member m, Copy c) {
    double speed = handout.speed(m, c.job);
    // a first piece of a job with input may wait for the one port behind every other worker's input
    if (!(speed > 0) || c.job.def.hasInput() && c.cursor == c.start) {
      return config.leaseFloor() * config.leaseFactor();
    }
    return Math.max(config.leaseFloor(), config.leaseFactor() * (c.nextCut() - c.cursor) / speed);
  }

  // ---------------------------------------------------------------- deciding

  private void pump(double now) {
    boolean holdBack = joining(now);
    boolean planned = false;
    for (JobLedger j : live()) {
      if (j.phase == JobPhase.QUEUED) {
        start(j, now);
      } else if (j.active() && j.replanDue && now - j.lastPlanAt >= config.replanInterval() && !holdBack) {
        planner.replan(j, now);
        planned = true;
      }
    }
    if (planned && !Double.isNaN(burstSince)) {
      // a burst still going on waits as long again for its next re-plan
      burstSince = now;
    }
    if (workChanged) {
      waiters.workAppeared();
      workChanged = false;
    }
    waiters.serve(now);
  }

  private void start(JobLedger j, double now) {
    if (j.committed.size() == j.units() && j.checksSettled()) {
      // every unit was saved before a restart: the job ends now, whoever is connected
      j.phase = JobPhase.RUNNING;
      j.message = "";
      finish(j, JobPhase.DONE, "", now);
      return;
    }
    int accepting = handout.accepting(j);
    int need = Math.max(1, j.def.minWorkers());
    if (accepting < need) {
      j.message = "waiting for " + need + " worker(s) that accept workload '" + j.def.workload() + "' ("
          + accepting + " connected" + (j.def.workload().equals("exec")
              ? "; a worker runs programs only when started with --allow-exec" : "") + ")";
      return;
    }
    j.phase = JobPhase.RUNNING;
    j.message = "";
    // a job a restarted master took up keeps its plan's recovery lists and homes, and plans its rest again
    j.replanWhy = j.replans < 0 ? "first plan" : "the master restarted";
    planner.replan(j, now);
  }

  /** A worker joined now: notes whether workers are joining in a burst (see {@link #joining}). */
  private void joined(double now) {
    if (now - lastJoinAt < config.replanInterval()) {
      if (Double.isNaN(burstSince)) {
        burstSince = lastJoinAt;
      }
    } else {
      burstSince = Double.NaN;
    }
    lastJoinAt = now;
  }

  /**
   * Whether workers are joining in a burst (each less than {@code replanInterval} after the one
   * before): re-plans then wait until one {@code replanInterval} passes without a join, but no
   * longer than {@link #BURST_REPLANS} intervals since the burst began or last re-planned. 10,000 workers connecting
   * within a minute make a handful of re-plans instead of one per interval (or, with the plan of
   * 10,000 workers taking longer than the interval on a master's clock, one per join). The workers
   * that join get work meanwhile: the pool, other queues, tails of running copies.
   */
  private boolean joining(double now) {
    return !Double.isNaN(burstSince) && now - lastJoinAt < config.replanInterval()
        && now - burstSince < BURST_REPLANS * config.replanInterval();
  }

  /** Re-plan intervals a burst of joins may hold back its re-plan (see {@link #joining}). */
  static final double BURST_REPLANS = 10;

  /** Every active job the worker takes is re-planned at the next chance. */
  private void replanFor(Member m, String why) {
    for (JobLedger j : live()) {
      if (j.active() && j.takes(m)) {
        replanLater(j, why);
      }
    }
  }

  void replanLater(JobLedger j, String why) {
    if (!j.replanDue) {
      j.replanDue = true;
      j.replanWhy = why;
    }
  }


  /** The copy is over (complete, lost, cancelled): its worker's next copy starts. */
  void removeCopy(Copy c, double now) {
    if (c.job.copies.remove(c.id) == null) {
      return;
    }
    if (c.reserved()) {
      c.reservedUntil = Double.NaN;
      reserved--;
    }
    c.job.ended.put(c.id, c.worker.id);
    Member m = c.worker;
    m.copies.remove(c);
    if (!m.copies.isEmpty()) {
      m.copies.get(0).started(now);
    }
    touch(m);
    waiters.wake(m);
  }

  /** The worker's copies, or its speed, changed: its place in the indexes of copies is out of date. */
  void touch(Member m) {
    // a flag, not a set: several touches per event, on the hand-out's hot path
    if (!m.touched) {
      m.touched = true;
      touched.add(m);
    }
  }

  /** Files every touched worker again in each running job's indexes of copies (see {@link Finishes}, {@link Surplus}). */
  void refile() {
    if (touched.isEmpty()) {
      return;
    }
    for (JobLedger j : live()) {
      if (j.phase.ended()) {
        continue;
      }
      for (Member m : touched) {
        j.finishes.refile(m, handout.speed(m, j));
        j.surplus.refile(m, config.window());
      }
    }
    for (Member m : touched) {
      m.touched = false;
    }
    touched.clear();
  }

  /** The estimator's figures of a worker changed (its speed, its bandwidth). */
  private void estimateChanged(String worker) {
    Member m = members.get(worker);
    if (m != null) {
      touch(m);
    }
    for (JobLedger j : live()) {
      j.queues.speedChanged(worker);
    }
  }

  /** Counts a worker in (or out of) the up workers of each workload it accepts. */
  private void counted(Member m, int delta) {
    for (String w : m.workloads) {
      upByWorkload.merge(w, delta, Integer::sum);
    }
  }

  /** Up workers that may take the job: those that accept its workload, less those set aside. */
  int accepting(JobLedger j) {
    int n = upByWorkload.getOrDefault(j.def.workload(), 0);
    for (String id : j.setAside) {
      Member m = members.get(id);
      if (m != null && m.up() && m.accepts(j.def.workload())) {
        n--;
      }
    }
    return n;
  }

  /** Cancels every live copy whose units still to come are all saved by another copy. */
  private void cancelCovered(JobLedger j, double now) {
    for (Copy c : List.copyOf(j.copies.values())) {
      if (c.check == null && c.cursor < c.end && j.saved(c.cursor, c.end)) {
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
        String to = j.firstOnList(p.home(), candidate -> {
          Member w = members.get(candidate);
          return w != null && w.up() && !candidate.equals(from) && j.takes(w);
        });
        ChunkPlan part = JobLedger.part(p.from(), p.to(), c.checkpoints());
        j.homes.assign(p.from(), p.to(), p.home());
        if (to == null) {
          toPool.add(part);
        } else {
          j.queue(to).addLast(part);
          waiters.wake(members.get(to));
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

  /**
   * The job's deadline: as at a cancel with a grace, each copy being computed is truncated where its
   * worker has reported up to, so that the worker stops at its current step and reports what it
   * computed (a long piece is not lost for being under way at the deadline); the rest is cancelled,
   * and the job ends once those last pieces are in or {@link #DEADLINE_GRACE} (at least three
   * checkpoint round trips) has passed.
   */
  private void endAtDeadline(JobLedger j, double now) {
    collect(j, "the job's deadline passed", now);
    Estimate eps = estimator.eps();
    j.collectUntil = now + Math.max(DEADLINE_GRACE, eps.known() ? 3 * eps.value() : 0);
    j.phase = JobPhase.ENDING;
    settleEnding(j, now);
  }

  /** Seconds the last pieces of a job at its deadline are waited for (see {@link #endAtDeadline}). */
  public static final double DEADLINE_GRACE = 5;

  private void endPartial(JobLedger j, double now) {
    RangeSet notDone = RangeSet.of(j.def.start(), j.def.end());
    notDone.removeAll(j.committed);
    JobPhase phase = j.cancelled != null ? JobPhase.CANCELLED : JobPhase.DONE_PARTIAL;
    String message = String.format(Locale.ROOT, "%s: %d of %d units done, %d not done in %d range(s)",
        j.cancelled != null ? "cancelled (" + j.cancelled + ")" : "deadline reached", j.committed.size(), j.units(),
        notDone.size(), notDone.rangeCount());
    j.phase = phase;
    j.message = message;
    liveStale = true;
    out.add(new Action.Finished(j.def.id(), phase, notDone, message));
  }

  void finish(JobLedger j, JobPhase phase, String message, double now) {
    cancelAll(j, phase == JobPhase.DONE ? "the job is done" : "the job failed", now);
    j.phase = phase;
    j.message = message;
    liveStale = true;
    out.add(new Action.Finished(j.def.id(), phase, new RangeSet(), message));
  }

  private void cancelAll(JobLedger j, String why, double now) {
    for (Copy c : List.copyOf(j.copies.values())) {
      out.add(new Action.Cancel(c.worker.id, j.def.id(), c.id, why));
      removeCopy(c, now);
    }
    dropPlans(j);
  }

  /** Nothing of the job is left to hand out. */
  private void dropPlans(JobLedger j) {
    j.queues.clear();
    j.pool.clear();
    j.unplanned.clear();
    j.checks.clear();
    j.finishes.clear();
    j.surplus.clear();
    j.replanDue = false;
    // nothing planned remains to be drawn
    j.timeline = Timeline.EMPTY;
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
      Map<String, Long> shares, String scheme, List<Action.Rerouted> reroutes, long queued, long held, long verified,
      List<String> mismatches) {}

  /** The latest mismatches a job view carries (a faulty worker may cause thousands). */
  static final int MISMATCHES_SHOWN = 50;

  /** A worker's state and the estimates the planner uses, each with its observation count. */
  public record WorkerView(String id, String state, Map<String, Estimate> speeds, Estimate bandwidth,
      Estimator.Risk risk, List<String> copies, long unitsDone, int sessions) {
    /** Its fastest measured speed over the workloads, units/s; 0 before any is known. */
    public double bestSpeed() {
      double best = 0;
      for (Estimate e : speeds.values()) {
        if (e.known()) {
          best = Math.max(best, e.value());
        }
      }
      return best;
    }
  }

  public JobView job(String id) {
    JobLedger j = jobs.get(id);
    return j == null ? null : view(j);
  }

  /**
   * A job's progress, read in constant time (a {@link JobView} gathers its queues and copies): for
   * a body that looks after every event, as the simulator does.
   *
   * @param handedOut copies handed out so far (assignments, split tails, replicas, moved copies)
   * @param replans plans made after the first
   */
  public record Progress(JobPhase phase, long units, long committed, long handedOut, int replans) {}

  /** The job's progress, or null for no such job. */
  public Progress progress(String id) {
    JobLedger j = jobs.get(id);
    return j == null ? null : new Progress(j.phase, j.units(), j.committed.size(), j.nextCopyId - j.def.firstCopyId(),
        Math.max(0, j.replans));
  }

  public List<JobView> jobs() {
    List<JobView> out = new ArrayList<>();
    for (JobLedger j : jobs.values()) { // ended ones too
      out.add(view(j));
    }
    return out;
  }

  private JobView view(JobLedger j) {
    RangeSet notDone = new RangeSet();
    if (j.phase == JobPhase.DONE_PARTIAL || j.phase == JobPhase.CANCELLED) {
      notDone = RangeSet.of(j.def.start(), j.def.end());
      notDone.removeAll(j.committed);
    }
    // the units held is a set built from every copy: once per view, not twice
    RangeSet held = j.held();
    return new JobView(j.def.id(), j.def.workload(), j.phase, j.message, j.strategy, j.reason, j.units(),
        j.committed.size(), notDone, j.expectedWork, Math.max(0, j.replans), j.def.deadline(),
        Map.copyOf(j.unitsByWorker), j.scheme == null ? "" : j.scheme.name(), List.copyOf(j.reroutes),
        j.phase.ended() ? 0 : unstarted(j, held), held.size(), j.verified,
        List.copyOf(j.mismatches.subList(Math.max(0, j.mismatches.size() - MISMATCHES_SHOWN), j.mismatches.size())));
  }

  /**
   * The job's recovery lists (worker, where its unfinished work goes), each cut to its first
   * {@code entries}: N workers make N lists of N, too many to show whole.
   */
  public Map<String, List<String>> recovery(String job, int entries) {
    JobLedger j = jobs.get(job);
    Map<String, List<String>> out = new LinkedHashMap<>();
    if (j == null || j.scheme == null) {
      return out;
    }
    int length = j.scheme.n() - 1;
    for (int i = 0; i < j.members.size(); i++) {
      // entry by entry: whole lists of 10,000 workers are 10^8 entries
      List<String> ids = new ArrayList<>(Math.min(entries, length));
      for (int k = 0; k < length && k < entries; k++) {
        ids.add(j.members.get(j.scheme.at(i, k)));
      }
      out.put(j.members.get(i), ids);
    }
    return out;
  }

  /** The length of every recovery list of the job (the number of its planned workers but one). */
  public int recoveryLength(String job) {
    JobLedger j = jobs.get(job);
    return j == null || j.scheme == null ? 0 : j.scheme.n() - 1;
  }

  /** Units queued that nobody has started or saved. */
  private static long unstarted(JobLedger j) {
    return unstarted(j, j.held());
  }

  private static long unstarted(JobLedger j, RangeSet held) {
    RangeSet q = j.queued();
    q.removeAll(j.savedSet());
    q.removeAll(held);
    return q.size();
  }

  public List<WorkerView> workers(double now) {
    return workers(now, Integer.MAX_VALUE);
  }

  /** The first {@code max} workers, in the order they first joined (see {@link #workers(double)}). */
  public List<WorkerView> workers(double now, int max) {
    List<WorkerView> out = new ArrayList<>(Math.min(max, members.size()));
    for (Member m : members.values()) {
      if (out.size() >= max) {
        break;
      }
      out.add(workerView(m, now));
    }
    return out;
  }

  /** Whether the worker has ever joined (since this controller started). */
  public boolean knowsWorker(String id) {
    return members.containsKey(id);
  }

  /** Each worker's id and state ({@code UP}, {@code DRAINING}, {@code DOWN}), cheaply: for counts. */
  public void forEachWorkerState(java.util.function.BiConsumer<String, String> each) {
    for (Member m : members.values()) {
      each.accept(m.id, m.state.name());
    }
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

  /**
   * What the job's current plan predicts: when each worker receives its work and saves each piece.
   *
   * @param at when the plan was made (the controller's seconds); its timeline counts from there
   * @param timeline empty before the first plan and while probe chunks measure the workers
   */
  public record PlannedTimeline(double at, Timeline timeline) {}

  /** The job's current plan's timeline, or null for no such job. */
  public PlannedTimeline plannedTimeline(String job) {
    JobLedger j = jobs.get(job);
    return j == null ? null : new PlannedTimeline(j.lastPlanAt, j.timeline);
  }

  /**
   * Where the job stands now, for a forecast: its units not yet saved, and the workers that can take
   * it (up, or down after an interruption) with the estimator's figures. Null for no such job or one
   * that ended.
   */
  public Outset outset(String job, double now) {
    JobLedger j = jobs.get(job);
    if (j == null || j.phase.ended()) {
      return null;
    }
    JobDef d = j.def;
    RangeSet left = d.remaining().copy();
    left.removeAll(j.committed);
    if (left.isEmpty()) {
      return null;
    }
    // what the pieces under way have computed by now, at their workers' speeds: saved at the pieces'
    // ends, so counted as saved (a forecast that computed them again would lose up to a piece a worker)
    RangeSet underWay = new RangeSet();
    for (Copy c : j.copies.values()) {
      if (c.check != null || c.worker.state != Member.State.UP || c.cursor >= c.end) {
        continue;
      }
      // where its worker probably is (its cursor while not started or of unknown speed), short of the next cut
      long computed = (long) Math.floor(Math.min(c.nextCut(), c.position(now, handout.speed(c.worker, d.workload()))))
          - c.cursor;
      if (computed > 0) {
        underWay.add(c.cursor, c.cursor + computed);
      }
    }
    long before = left.size();
    left.removeAll(underWay);
    long credited = before - left.size();
    if (left.isEmpty()) {
      return null;
    }
    // the job has its workers already (no minimum to wait for again), and its cuts need no alignment
    // (which may read the job's input: not on a forecast's thread)
    JobDef rest = d.withRemaining(left, 1).withMinWorkers(1).withInput(d.bytesPerUnit(), x -> x);
    List<Outset.Host> hosts = new ArrayList<>();
    double fleetDowntime = estimator.fleetDowntime(now);
    for (Member m : members.values()) {
      double down = estimator.downFor(m.id, now);
      boolean up = m.state == Member.State.UP;
      if (m.unseen || !m.workloads.contains(d.workload()) || !up && !(down <= Estimator.DEPARTED_AFTER)) {
        continue;
      }
      double speed = handout.speed(m, d.workload());
      if (!(speed > 0)) {
        continue;
      }
      Estimator.Risk r = estimator.risk(m.id, now);
      double bandwidth = d.bytesPerUnit() > 0 ? estimator.plannedBandwidth(m.id) : Double.POSITIVE_INFINITY;
      hosts.add(new Outset.Host(m.id, speed, bandwidth, r.rate(), r.interruptions(), r.exposureSeconds(),
          up ? estimator.upFor(m.id, now) : Double.NaN, up ? Double.NaN : down,
          estimator.downtime(m.id, now, fleetDowntime), estimator.returns(m.id), m.availableUntil, m.savesOnVacate));
    }
    Estimate eps = estimator.eps();
    return new Outset(rest, j.committed.size() + credited, now, hosts, eps.known() ? eps.value() : Double.NaN,
        estimator.upVariability(), estimator.downVariability());
  }

  /** The committed units of a job (a copy). */
  public RangeSet committedUnits(String job) {
    JobLedger j = jobs.get(job);
    return j == null ? new RangeSet() : j.committed.copy();
  }

  /**
   * Checks the ledger of a job: every unit of it is committed, pending, held, queued or (once it
   * ended at its deadline) not done; nothing is both held and queued (replicas aside), nothing both
   * committed and pending. For tests and assertions.
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
    // queued units may be saved already (a holder that missed a truncation saved them first): they
    // are dropped when taken; but nobody may hold units that are still queued, replicas aside
    if (!j.replicated) {
      for (long[] r : queued.ranges()) {
        if (held.intersects(r[0], r[1])) {
          return "queued units in [" + r[0] + ", " + r[1] + ") are also held";
        }
      }
    }
    return null;
  }
}
