package dev.gleaner.common.control;

import dev.gleaner.common.control.decide.Decisions;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.estimate.Estimates;
import dev.gleaner.common.estimate.Estimator;
import dev.gleaner.common.port.PortRule;
import java.time.ZoneId;
import java.util.List;
import java.util.function.Consumer;

/**
 * Every runtime decision of every job: what to send to whom next, how big, with which checkpoints,
 * when to re-plan, where lost work goes, when to split a tail or start a replica, when a job ends.
 *
 * <p>Events are method calls with the current time in seconds (any origin, never going back);
 * decisions accumulate as {@link Action}s that the body takes as one {@link Ready} and carries out
 * (the master with Netty and SQLite, the simulator on its own clock), best with {@link #drive}. Not
 * thread-safe: a body calls it from one thread.
 *
 * <p>How: this class only routes. Each event goes to the one decision of its concern
 * ({@code control.decide}: membership, losses and leases, commits, verification, failures,
 * endings, restarts, ticks), which works on the controller's one state ({@code control.state}) and
 * on the decisions below it; then the controller pumps once: jobs whose workers are there start,
 * due re-plans are made, and the waiting workers are served. Events that only bring a figure (a
 * transfer timed, a round trip, a calibration, a past session) pump nothing. What the controller
 * shows is read through {@link #views()} and {@link #estimates()}, never changed there.
 *
 * <p>How it decides, in short (each decision's class says more):
 * <ol>
 *   <li><b>Plan.</b> A job starts once {@code minWorkers} workers that accept its workload are up.
 *       Its work not yet handed out is planned with the job's strategy over the workers whose speed
 *       is known; while nobody's is, fixed probe chunks go to a shared pool. The plan's per-worker
 *       chunk lists become queues, its service order the port's order ({@link Action.Stream#rank()}).
 *   <li><b>Hand out.</b> A worker below its window takes the head of its queue, else of the pool,
 *       each piece cut to what fits before the deadline and to its hazard; a worker with nothing in
 *       hand takes from others (a queue's back, a running chunk's tail or a replica of it, a chunk
 *       not started). Each choice is a look-up in an index, not a scan.
 *   <li><b>Commit.</b> A piece counts once: the first commit of a range wins.
 *   <li><b>Lose.</b> A lost worker's unsaved units follow Klonowska's static recovery lists; then
 *       the job is re-planned (at most once per {@code replanInterval}, fewer in a burst of joins).
 *   <li><b>End.</b> DONE when every unit is committed; at the deadline or a cancel, the pieces under
 *       way are reported and made durable, and the job ends with the units not done listed.
 * </ol>
 */
public final class Controller {
  /**
   * Rounds of carrying out a batch of actions that {@link #drive} allows before it fails: a body
   * whose every action answers with an event that decides more would otherwise never return.
   */
  public static final int MAX_ROUNDS = 1000;

  private final ControlState state;
  private final Decisions decide;
  private final ControllerViews views;

  public Controller(ControlConfig config) {
    this.state = new ControlState(config);
    this.decide = new Decisions(state);
    this.views = new ControllerViews(state);
  }

  public Controller() {
    this(ControlConfig.defaults());
  }

  // ---------------------------------------------------------------- what was decided

  /** The actions decided since the last call, as one batch. */
  public Ready ready() {
    return new Ready(state.takeActions());
  }

  /**
   * Hands the body every batch of actions until none is left (carrying one out may decide more, as
   * when the simulator reports a worker lost at once).
   *
   * @throws IllegalStateException after {@link #MAX_ROUNDS} batches
   */
  public void drive(Consumer<Ready> body) {
    for (int round = 0; round < MAX_ROUNDS; round++) {
      Ready r = ready();
      if (r.isEmpty()) {
        return;
      }
      body.accept(r);
    }
    throw new IllegalStateException("the controller still decided after " + MAX_ROUNDS + " batches of actions"
        + " carried out: its body answers its actions with events that decide more, without end");
  }

  // ---------------------------------------------------------------- jobs

  /** A job to run; one already fully committed (a restart) finishes at once. */
  public void addJob(JobDef def, double now) {
    addJob(def, List.of(), 0, null, null, now);
  }

  /** A job a restarted master takes up again, with the chunks its store says were handed out (see below). */
  public void addJob(JobDef def, List<Held> handedOut, double graceSeconds, double now) {
    addJob(def, handedOut, graceSeconds, null, null, now);
  }

  /**
   * A job a restarted master takes up again, with the chunks its store says were handed out and
   * not finished (each with {@code acked} the end of its committed pieces; their ids below the
   * job's {@link JobDef#firstChunkId()}), kept {@code graceSeconds} for their workers to claim, and
   * its memories from before the restart (the last {@link Action.Remember} texts; null for none).
   *
   * @throws IllegalArgumentException if the job is known, a chunk is not its own, or a memory does
   *     not parse (the job is then not added)
   */
  public void addJob(JobDef def, List<Held> handedOut, double graceSeconds, String planMemory, String checksMemory,
      double now) {
    decide.restarts.add(def, handedOut, graceSeconds, planMemory, checksMemory, now);
    pump(now);
  }

  /**
   * Ends a running job, keeping what is saved and, within {@code graceSeconds}, what its workers
   * computed since their last pieces (0: none; a second cancel without a grace ends the wait).
   *
   * @return false if the job is unknown or has ended
   */
  public boolean cancel(String job, String reason, double graceSeconds, double now) {
    boolean cancelled = decide.endings.cancel(job, reason, graceSeconds, now);
    pump(now);
    return cancelled;
  }

  /** The job fails for a reason outside the controller (the store, the merge). */
  public void fail(String job, String message, double now) {
    decide.endings.fail(job, message, now);
    pump(now);
  }

  /** An ended job is dropped from the controller's books (its status, its counts). */
  public void forget(String job) {
    state.forget(job);
  }

  // ---------------------------------------------------------------- workers

  /** A worker's session started: a new worker, or one coming back. */
  public void workerJoined(WorkerInfo info, double now) {
    workerJoined(info, List.of(), now);
  }

  /**
   * A worker's session started, the worker holding {@code claims}: chunks it kept computing while
   * it was away from this master (a restart, a cut); see {@code decide.Membership}.
   */
  public void workerJoined(WorkerInfo info, List<Held> claims, double now) {
    decide.membership.joined(info, claims, now);
    pump(now);
  }

  /** The worker finishes what it holds and takes nothing new; its queued work goes to others. */
  public void workerDraining(String id, double now) {
    decide.losses.draining(id, now);
    pump(now);
  }

  /**
   * The worker's session ended: closed, silent, or said goodbye. What it held and had queued that
   * nobody else has follows the recovery lists, then the job is re-planned.
   *
   * @param interrupted whether this counts as an interruption in its history (a drain does not)
   */
  public void workerLost(String id, String why, boolean interrupted, double now) {
    workerLost(id, why, interrupted, false, now);
  }

  /**
   * As {@link #workerLost(String, String, boolean, double)}; with {@code held}, the connection
   * went away but the worker likely did not (the relay it came through is gone): the chunks it
   * holds stay reserved for it for their lease, for it to take up when it is back, and only its
   * queue follows the recovery lists now.
   */
  public void workerLost(String id, String why, boolean interrupted, boolean held, double now) {
    dev.gleaner.common.control.state.Member m = state.members.get(id);
    // a draining worker does not come back: what it holds goes to others at once, as before
    if (held && m != null && m.up()) {
      decide.restarts.hold(m, now);
    }
    decide.losses.lost(id, why, interrupted, interrupted, false, true, now);
    pump(now);
  }

  /**
   * The worker's owner came back and it vacated, having saved what it computed: AWAY, an
   * interruption in its history but not a crash. What it held follows the recovery lists and the
   * job is re-planned, as at any loss.
   */
  public void workerVacated(String id, String why, double now) {
    decide.losses.lost(id, why, true, false, true, true, now);
    pump(now);
  }

  /**
   * The master ended the worker's session for a request it may not make (a malformed or oversized
   * result, a message its role may not send, a revoked token). What it held follows the recovery
   * lists, as at any loss, but this is not an interruption and re-plans nothing: a broken or hostile
   * worker that logs in and is refused again and again must not make the master re-plan every job
   * each time. Its next joins re-plan nothing either, until a piece of it counts.
   */
  public void workerRefused(String id, String why, double now) {
    decide.losses.refused(id, why, now);
    pump(now);
  }

  // ---------------------------------------------------------------- pieces

  /** Part of the worker's next piece of the chunk arrived: the chunk's lease runs from now. */
  public void reporting(String worker, String job, long chunkId, double now) {
    decide.commits.reporting(worker, job, chunkId, now);
  }

  /** A piece arrived (not marked final); see {@link #piece(String, String, long, long, long, boolean, double)}. */
  public Verdict piece(String worker, String job, long chunkId, long start, long end, double now) {
    return piece(worker, job, chunkId, start, end, false, now);
  }

  /**
   * A worker reported the result of units {@code [start, end)} of a chunk, marked final when it is
   * the chunk's last. On {@link Verdict#COMMIT} the body makes it durable, acknowledges it, then
   * calls {@link #committed}; on {@link Verdict#DUPLICATE} and {@link Verdict#DISCARD} it
   * acknowledges it and counts nothing; on {@link Verdict#CHECK} and {@link Verdict#TIE_BREAK} it
   * compares it and calls {@link #checked}; on {@link Verdict#REFUSE} it refuses the worker's session.
   */
  public Verdict piece(String worker, String job, long chunkId, long start, long end, boolean last, double now) {
    Verdict v = decide.commits.piece(worker, job, chunkId, start, end, last, now);
    pump(now);
    return v;
  }

  /** A piece the controller said to commit is durable; its round trip was not measured. */
  public void committed(String worker, String job, long chunkId, long start, long end, double computeSeconds,
      double now) {
    committed(worker, job, chunkId, start, end, computeSeconds, 0, now);
  }

  /**
   * A piece the controller said to commit is durable.
   *
   * @param computeSeconds the seconds the worker spent computing it (0 if unknown)
   * @param roundTripSeconds the seconds from its arrival to its durable record, a checkpoint's cost
   *     (eps; 0 if not measured)
   */
  public void committed(String worker, String job, long chunkId, long start, long end, double computeSeconds,
      double roundTripSeconds, double now) {
    if (roundTripSeconds > 0) {
      state.estimator.overhead(roundTripSeconds);
    }
    decide.commits.committed(worker, job, chunkId, start, end, computeSeconds, now);
    pump(now);
  }

  /**
   * Whether the job ends DONE as soon as the pieces it waits to hear are durable are reported
   * {@link #committed}, if nothing else happens first: a body that writes those pieces may write the
   * job's end in the same transaction.
   */
  public boolean endsWhenPendingCommit(String job) {
    return decide.commits.endsWhenPendingCommit(job);
  }

  /** The body could not make a piece durable: its units go back to the queues and the job goes on. */
  public void commitFailed(String worker, String job, long chunkId, long start, long end, String why, double now) {
    decide.commits.commitFailed(worker, job, chunkId, start, end, why, now);
    pump(now);
  }

  /**
   * The body could not record a chunk before sending it ({@code why}, for the job's message): it is
   * not sent, and its units go back to the queues.
   */
  public void assignFailed(String worker, String job, long chunkId, String why, double now) {
    decide.commits.assignFailed(worker, job, chunkId, why, now);
    pump(now);
  }

  /**
   * The body compared a check's result.
   *
   * @param agrees whether it equals the committed result
   * @param agreesWithDissent for a tie-break: whether it equals the dissenting check's result (the
   *     body has then replaced the committed result with it)
   */
  public void checked(String worker, String job, long chunkId, boolean agrees, boolean agreesWithDissent, double now) {
    decide.verification.checked(worker, job, chunkId, agrees, agreesWithDissent, now);
    pump(now);
  }

  /**
   * The worker could not compute a chunk (the program failed, not the computer): its next piece is
   * tried on another worker, a piece that failed {@code maxAttempts} times fails the job, and a
   * worker that failed twice on a job is set aside from it.
   */
  public void chunkFailed(String worker, String job, long chunkId, String message, double now) {
    decide.failures.chunkFailed(worker, job, chunkId, message, now);
    pump(now);
  }

  /** The worker sent a result that cannot be read: a failure of that piece; the body ends its session. */
  public void badResult(String worker, String job, long chunkId, String message, double now) {
    decide.failures.badResult(worker, job, chunkId, message, now);
    pump(now);
  }

  // ---------------------------------------------------------------- figures

  /** {@code bytes} of a chunk's input arrived at its worker in {@code seconds} (its link's speed). */
  public void streamed(String worker, String job, long chunkId, long bytes, double seconds, double now) {
    streamed(worker, job, chunkId, bytes, seconds, false, now);
  }

  /**
   * {@code bytes} of a chunk's input arrived at its worker in {@code seconds}; {@code own}: its rate is
   * the link's own, not a share of the master's egress (no other worker's stream shared the wire with
   * it, or it came well below its fair share of the egress beside them), so that a drop of it shows.
   */
  public void streamed(String worker, String job, long chunkId, long bytes, double seconds, boolean own,
      double now) {
    if (bytes > 0 && seconds > 0) {
      state.estimator.transferred(worker, bytes, seconds, own);
    }
  }

  /**
   * The worker's link was seen cut while a transfer crossed it (its worker's paces, over {@code
   * seconds}, put it at {@code bytesPerSecond}): its estimate restarts from there, and work moves at
   * once, not when the transfer ends ({@link Estimator#linkCut}).
   */
  public void linkCut(String worker, double bytesPerSecond, double seconds, double now) {
    if (state.estimator.linkCut(worker, bytesPerSecond, seconds)) {
      pump(now);
    }
  }

  /**
   * How the master's port sends chunk input now ({@code rule}'s budget in bytes/s: the egress as the
   * port knows it), for the plans made from now on.
   */
  public void port(PortRule rule) {
    state.port = java.util.Objects.requireNonNull(rule, "rule");
  }

  /** How the master's port sends chunk input, as last told ({@link #port(PortRule)}). */
  public PortRule port() {
    return state.port;
  }

  /**
   * The owner's weight in the fair share of the workers among owners (1 unless set; see {@link
   * JobDef.Tenant}): with weights 3 and 1, two busy owners get workers 3 to 1; 0 takes the owner
   * back to the default. From the next pump on.
   */
  public void share(String owner, double weight, double now) {
    String refusal = shareRefusal(weight);
    if (refusal != null) {
      throw new IllegalArgumentException(refusal);
    }
    java.util.Objects.requireNonNull(owner, "owner");
    if (weight == 0) {
      state.shareWeights.remove(owner);
    } else {
      state.shareWeights.put(owner, weight);
    }
    state.workChanged = true;
    pump(now);
  }

  /** The least weight of an owner's share (a weight next to 0 would never be dealt a worker). */
  public static final double MIN_SHARE = 0.001;
  /** The most weight of an owner's share. */
  public static final double MAX_SHARE = 1e6;

  /** Null if {@code weight} may be an owner's share (0: back to the default, 1), else why not, in one line. */
  public static String shareRefusal(double weight) {
    return weight == 0 || weight >= MIN_SHARE && weight <= MAX_SHARE ? null
        : "a share's weight is 0 (back to the default, 1) or a number from 0.001 to 1000000, not " + weight;
  }

  /** The owners' weights an operator set (an owner not here weighs 1). */
  public java.util.Map<String, Double> shares() {
    return java.util.Map.copyOf(state.shareWeights);
  }

  /** A checkpoint round trip (a piece received, made durable, acknowledged) took {@code seconds}. */
  public void overhead(double seconds) {
    state.estimator.overhead(seconds);
  }

  /**
   * A write the body made durable the way it saves a piece (a worker's session, recorded as it
   * joins) took {@code seconds}. Until the first piece is saved this stands for eps, so that the
   * first pieces of a job are cut for the store's real cost, not for {@link ControlConfig#EPS_PRIOR}.
   */
  public void durableWrite(double seconds) {
    state.estimator.overheadPrior(seconds);
  }

  /** A worker calibrated a workload again: a new prior for its speed. */
  public void calibrated(String worker, String workload, double unitsPerSecond) {
    state.estimator.calibrated(worker, workload, unitsPerSecond);
  }

  /**
   * The wall clock at controller time 0 and the zone of the owners' hours: from now on,
   * interruptions are also counted by hour of the week (see {@link Estimator#wallClock}).
   */
  public void wallClock(double epochSeconds, ZoneId zone) {
    state.estimator.wallClock(epochSeconds, zone);
  }

  /** A session of a worker before this controller started, from the body's store (epoch seconds). */
  public void pastSession(String worker, double startEpoch, double endEpoch, boolean interrupted) {
    state.estimator.pastSession(worker, startEpoch, endEpoch, interrupted);
  }

  // ---------------------------------------------------------------- time

  /** Time passed: deadlines, leases, reserved chunks, drifting estimates, due re-plans, tails worth splitting. */
  public void tick(double now) {
    decide.ticks.tick(now);
    pump(now);
  }

  /**
   * Every running job whose memories changed says so now, however recently it last did: the body
   * is stopping, and a restart must find the checks picked since.
   */
  public void rememberNow(double now) {
    decide.memories.remember(now, true);
  }

  /** The body could not store the job's last memories: they are sent again, whole, at the next tick. */
  public void memoryLost(String job) {
    decide.memories.lost(job);
  }

  // ---------------------------------------------------------------- reading

  public ControlConfig config() {
    return state.config;
  }

  /** The estimator's figures, read only. */
  public Estimates estimates() {
    return state.estimator;
  }

  /** Jobs, workers, recovery lists, plans and outsets, read only. */
  public ControllerViews views() {
    return views;
  }

  /** What the controller knows, for the white-box audits of its indexes (this package's tests). */
  ControlState state() {
    return state;
  }

  private void pump(double now) {
    decide.pump(now);
  }
}
