package dev.gleaner.master.control;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.Held;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.JobView;
import dev.gleaner.common.control.Verdict;
import dev.gleaner.common.control.WorkerInfo;
import dev.gleaner.common.control.WorkerView;
import dev.gleaner.common.time.Ticker;
import dev.gleaner.common.util.RangeSet;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.master.metrics.MasterMetrics;
import dev.gleaner.master.store.ChunkState;
import dev.gleaner.master.store.ChunkTable;
import dev.gleaner.master.store.DissentTable;
import dev.gleaner.master.store.JobTable;
import dev.gleaner.master.store.PieceTable;
import dev.gleaner.master.store.Store;
import dev.gleaner.master.store.WorkerTable;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Cancel;
import dev.gleaner.protocol.ChunkFailed;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.HeldChunk;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.PieceAck;
import dev.gleaner.protocol.Speed;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.Truncate;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's body around the {@link Controller}: runs it on one thread, turns what the network
 * and the store report into its events, and carries out its actions (frames to workers, input
 * through the one port, durable writes).
 *
 * <p>How: every event is a task on the loop's single thread, so the controller is never touched
 * concurrently; after each task the loop drains the controller's actions and executes them (sends
 * are non-blocking; store writes return futures). The loop runs in passes: it takes every task
 * waiting (up to {@link #PASS_TASKS}), runs them, then commits every store write they made in one
 * transaction ({@link Store#commitPass}: one fsync per pass, however many pieces and chunk records
 * it holds), and only then completes the writes' futures, on this thread, which send what depended
 * on them (etcd's raft rhythm: persist the batch, then send). So a piece is durable before its
 * acknowledgement and a chunk's record before its Assign, and no write crosses a thread. Controller
 * time is the injected ticker's seconds since the loop started.
 */
public final class ControlLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ControlLoop.class);

  private final Controller controller;
  private final Store store;
  private final MasterMetrics metrics;
  private final Ticker ticker;
  /** The units the workers computed per second over the last hour, for the web page's chart. */
  private final ComputedHistory computed = new ComputedHistory();
  private final long originNanos;
  /** The loop's tasks, run in passes on {@link #thread}. */
  private final java.util.concurrent.LinkedBlockingQueue<Runnable> tasks = new java.util.concurrent.LinkedBlockingQueue<>();
  /**
   * Tasks that go before those queued: status requests, which read and change nothing, so a person
   * or a script asking is answered after the task running now, not after thousands of queued events.
   */
  private final java.util.concurrent.ConcurrentLinkedQueue<Runnable> urgent =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  private final Thread thread;
  /** Posts the controller's ticks (one waiting at most: a busy loop does not pile them up). */
  private final ScheduledExecutorService timer;
  private final java.util.concurrent.atomic.AtomicBoolean tickWaiting = new java.util.concurrent.atomic.AtomicBoolean();
  /** Set by {@link #close}: the loop runs what is queued, commits it and ends. */
  private volatile boolean closed;
  /** Set by {@link #close} when the loop has not ended in time: it drops what is queued and ends. */
  private volatile boolean abandon;
  /** The current session of each connected worker. */
  private final Map<String, WorkerLink> links = new HashMap<>();
  /** Each session's row in the store's history, once written. */
  private final Map<WorkerLink, CompletableFuture<Long>> sessionRows = new HashMap<>();
  private final Map<String, MasterJob> jobs = new LinkedHashMap<>();
  /** Each job's workload, for the connections' threads to check results before the loop sees them. */
  private final Map<String, Workload> workloadOf = new java.util.concurrent.ConcurrentHashMap<>();
  /** Set when the master stops (by any thread, without waiting for the loop): sessions closing then are not workers lost. */
  private volatile boolean stopping;
  /** The last status replies, for requests the loop is too busy to answer at once. */
  private final StatusSnapshots snapshots = new StatusSnapshots();
  /** The registry status reads its meters from, once a status was asked. */
  private volatile MeterRegistry statusRegistry;
  /** Chunks being recorded before their Assign is sent, with what must follow it. */
  private final Map<String, List<Runnable>> unrecorded = new HashMap<>();
  /** Each session's Hello: what the worker is, to join the controller again when it comes back from away. */
  private final Map<WorkerLink, Hello> hellos = new HashMap<>();
  /** Connected workers that take no work now (their owner's policy), by id: why, and when they expect to be back. */
  private final Map<String, Away> away = new HashMap<>();
  /** Workers' histories from the store, read once at start; the estimator keeps them up to date. */
  private final Map<String, WorkerTable.History> histories;
  /** Store failures, a line per kind per 10 s at most: a full disk fails every write. */
  private final dev.gleaner.master.store.ProblemLog storeProblems;

  public ControlLoop(Store store, MasterMetrics metrics, Ticker ticker, ControlConfig config) {
    this.histories = store.call(WorkerTable.histories());
    this.controller = new Controller(config);
    this.store = store;
    this.metrics = metrics;
    this.ticker = ticker;
    this.originNanos = ticker.nanos();
    this.storeProblems = new dev.gleaner.master.store.ProblemLog(log, ticker::nanos);
    // interruptions by hour of the week, on this machine's clock and zone (the owners' hours), from
    // the sessions of the last RISK_WEEKS weeks: owners' habits change, and a start stays quick
    controller.wallClock(ticker.epochMillis() / 1000.0, java.time.ZoneId.systemDefault());
    long since = ticker.epochMillis() - RISK_WEEKS * 7L * 86_400_000L;
    for (WorkerTable.Session s : store.call(WorkerTable.sessions(since))) {
      controller.pastSession(s.workerId(), s.startedAt() / 1000.0, s.endedAt() / 1000.0, s.interrupted());
    }
    this.thread = new Thread(this::loop, "gleaner-control");
    thread.setDaemon(true);
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gleaner-ticks");
      t.setDaemon(true);
      return t;
    });
    // from here the store's writes wait for this loop's passes
    store.attach(thread, this::enqueue);
    thread.start();
  }

  /** The most tasks one pass runs before it commits: a flood of events still commits regularly. */
  static final int PASS_TASKS = 4096;

  /** The loop: a pass runs the tasks waiting, then commits what they wrote and completes it. */
  private void loop() {
    while (true) {
      Runnable first;
      try {
        first = store.hasPending() ? tasks.poll() : tasks.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        log.warn("the control loop was interrupted; it stops");
        commitPass();
        return;
      }
      if (first == null) {
        if (store.hasPending()) {
          commitPass();
        } else if (closed) {
          return;
        }
        continue;
      }
      int n = 0;
      for (Runnable task = first; task != null; task = ++n < PASS_TASKS ? tasks.poll() : null) {
        serveUrgent();
        if (abandon) {
          int dropped = 1 + tasks.size();
          tasks.clear();
          commitPass();
          log.warn("the control loop was busy at the stop: {} queued event(s) dropped (nothing stored is lost;"
              + " workers send unacknowledged pieces again)", dropped);
          return;
        }
        runGuarded(task);
      }
      commitPass();
    }
  }

  /** Jobs a piece of which commits in the current pass (the loop's thread only). */
  private final java.util.Set<MasterJob> committing = new java.util.LinkedHashSet<>();

  /** The most pieces a job may have for its end to be written in the pass of its last piece. */
  static final int END_WITH_LAST_PIECE = 256;

  /**
   * Before a pass commits: a small job that this pass's pieces complete has its result merged and
   * its end written in the same transaction, so the client hears DONE one fsync after the last
   * piece arrived, not two (see {@link #finish}).
   */
  private void endWithLastPieces() {
    for (MasterJob job : committing) {
      if (job.state == null && job.ending == null && job.piecesCommitted < END_WITH_LAST_PIECE
          && controller.endsWhenPendingCommit(job.id)) {
        long at = ticker.epochMillis();
        job.ending = store.submit(tx -> Ending.write(tx, job, at));
      }
    }
    committing.clear();
  }

  private void runGuarded(Runnable task) {
    try {
      run(task);
    } catch (java.lang.Error e) {
      // an error must not end the loop: deadlines, leases and every later event depend on it
      log.error("control loop: {}", e.toString(), e);
    }
  }

  private void commitPass() {
    storeProblems.flush();
    try {
      endWithLastPieces();
      if (store.hasPending()) {
        long t0 = System.nanoTime();
        store.commitPass();
        metrics.storeCommit.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
      }
    } catch (RuntimeException | java.lang.Error e) {
      storeProblems.error("commit", "control loop: committing the store's pass failed: " + e, e);
    }
  }

  /** Hands a task to the loop's thread (the store's way in, too). */
  private void enqueue(Runnable task) {
    if (closed) {
      throw new java.util.concurrent.RejectedExecutionException("the control loop is closed");
    }
    tasks.add(task);
  }

  /**
   * Workers are expected to go down after {@code meanUpSeconds} up on average: each worker's
   * history is given {@link #PRIOR_WEIGHT} interruptions over that many times {@code meanUpSeconds}
   * before its own (what `gleaner simulate --history 10 --mean-up H` gives the simulator).
   */
  public void expectUp(double meanUpSeconds) {
    post(() -> expectedUpSeconds = meanUpSeconds);
  }

  /** Interruptions of each worker's history that are the risk prior's, not seen (0 without one). */
  int priorInterruptions() {
    return expectedUpSeconds > 0 ? PRIOR_WEIGHT : 0;
  }

  /** The interruptions seen of a worker: its risk's, less the prior's. */
  long seenInterruptions(WorkerView w) {
    return Math.max(0, w.risk().interruptions() - priorInterruptions());
  }

  /** Weeks of past sessions the hours-of-the-week risk is learned from at start. */
  static final int RISK_WEEKS = 12;

  /** What a risk prior weighs, in interruptions seen. */
  static final int PRIOR_WEIGHT = 10;
  /** The risk prior's mean time up (0: none); read and written on the loop's thread. */
  private double expectedUpSeconds;

  /** Ticks so far (on the loop's thread). */
  private long ticks;

  /** Per-worker series of /metrics, from the controller's views: once a second. */
  private void labelWorkers() {
    List<MasterMetrics.WorkerFigures> out = new ArrayList<>();
    for (WorkerView w : controller.views().workers(now())) {
      out.add(new MasterMetrics.WorkerFigures(w.id(), w.unitsDone(), w.bestSpeed(), seenInterruptions(w),
          links.containsKey(w.id())));
    }
    metrics.workers(out);
  }

  /** Keeps the running jobs' forecasts fresh; set by {@link #start}. */
  private volatile Forecasts forecasts;

  /** Starts the controller's clock ticks. */
  public void start(long tickMillis) {
    Forecasts f = new Forecasts(controller.config(), tickMillis / 1000.0);
    forecasts = f;
    timer.scheduleAtFixedRate(() -> {
      if (!tickWaiting.compareAndSet(false, true)) {
        return;
      }
      post(() -> {
        tickWaiting.set(false);
        controller.tick(now());
        if (++ticks % Math.max(1, 1000 / tickMillis) == 0) {
          labelWorkers();
        }
        refreshStatus();
        f.tick(controller, jobs, now(), this::post, this::forecast);
        long at = epochMillis();
        if (computed.due(at)) {
          Map<String, Long> counts = new HashMap<>();
          links.forEach((id, link) -> counts.put(id, link.unitsComputed()));
          computed.sample(at, counts);
        }
      });
    }, tickMillis, tickMillis, TimeUnit.MILLISECONDS);
  }

  /** A job's new forecast (null: none can be made), on the loop's thread. */
  private void forecast(String id, dev.gleaner.common.sim.Forecast.Outlook f) {
    MasterJob j = jobs.get(id);
    if (j == null || j.state != null) {
      return;
    }
    if (f == null) {
      j.forecast = null;
      return;
    }
    j.forecast = dev.gleaner.protocol.Forecast.newBuilder().setAtMillis(millis(f.at())).setRuns(f.runs())
        .setUnits(f.units()).setUnitsLow(f.unitsLow()).setUnitsHigh(f.unitsHigh()).setFinished(f.finished())
        .setEndMillis(millis(f.end())).setEndLowMillis(millis(f.endLow())).setEndHighMillis(millis(f.endHigh()))
        .build();
  }

  /** Controller time as wall-clock epoch milliseconds; 0 for infinity. */
  private long millis(double t) {
    return Double.isFinite(t) ? ticker.epochMillis() + Math.round((t - now()) * 1000) : 0;
  }

  /** Wall-clock time (epoch ms) of the injected ticker: for timestamps and deadlines only. */
  public long epochMillis() {
    return ticker.epochMillis();
  }

  /** Controller time: seconds on the injected ticker since the loop started. */
  double now() {
    return (ticker.nanos() - originNanos) / 1e9;
  }

  /** Wall-clock milliseconds as controller time. */
  double fromMillis(long epochMillis) {
    return now() + (epochMillis - ticker.epochMillis()) / 1000.0;
  }

  /**
   * What follows a store write's completion: at once when on the loop's thread (completions run
   * there, at the end of the pass that committed them, so a commit's consequences come before any
   * later event), else as a task.
   */
  private void then(Runnable task) {
    if (Thread.currentThread() == thread) {
      // a pass's commit may complete thousands of writes: a status asked meanwhile need not wait for all
      serveUrgent();
      run(task);
    } else {
      post(task);
    }
  }

  /** Whether the loop's thread is running the urgent tasks now (they are not run within themselves). */
  private boolean servingUrgent;

  /** Runs the urgent tasks waiting (see {@link #urgent}); on the loop's thread, between two tasks. */
  private void serveUrgent() {
    if (servingUrgent) {
      return;
    }
    servingUrgent = true;
    try {
      for (Runnable u = urgent.poll(); u != null; u = urgent.poll()) {
        runGuarded(u);
      }
    } finally {
      servingUrgent = false;
    }
  }

  private void post(Runnable task) {
    try {
      enqueue(() -> run(task));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      log.debug("control loop stopped; an event is dropped: {}", e.getMessage());
    }
  }

  /** Posts a task that only reads (see {@link #urgent}): it runs before the tasks queued. */
  private void postUrgent(Runnable task) {
    urgent.add(() -> run(task));
    // wakes an idle loop; a busy one finds the task before its next one
    post(NOTHING);
  }

  private static final Runnable NOTHING = () -> { };

  private void run(Runnable task) {
    try {
      task.run();
      act();
    } catch (RuntimeException e) {
      log.error("control loop: {}", e.toString(), e);
    }
  }

  <T> CompletableFuture<T> call(java.util.function.Supplier<T> f) {
    CompletableFuture<T> out = new CompletableFuture<>();
    post(() -> {
      try {
        out.complete(f.get());
      } catch (RuntimeException e) {
        out.completeExceptionally(e);
        throw e;
      }
    });
    return out;
  }

  // ---------------------------------------------------------------- events from the network

  /** A worker authenticated: it joins the controller with its calibration, its history and its declared end. */
  public void joined(WorkerLink link, Hello hello) {
    String id = link.workerId();
    long at = ticker.epochMillis();
    post(() -> {
      if (!link.isOpen()) {
        return;
      }
      WorkerLink old = links.get(id);
      if (old != null && old != link && old.isOpen() && old.instance() != link.instance()) {
        // another process under a live worker's id: refused, so the two do not evict each other
        link.refuse(Error.Code.ID_IN_USE, "worker id '" + id + "' is in use by a live worker from " + old.host()
            + "; give each worker its own --id (this one may join once that worker is gone)");
        return;
      }
      links.put(id, link);
      if (old != null && old != link) {
        old.refuse(Error.Code.SHUTTING_DOWN, "replaced by a new connection of worker " + id + " from " + link.host());
        hellos.remove(old);
        endSession(old, "left", "");
      }
      hellos.put(link, hello);
      store.submit(WorkerTable.workerSeen(id, link.host(), link.cores(), at));
      if (hello.hasAway() && !hello.getAway().getAvailable()) {
        // connected, taking nothing: it joins the controller when it says it is available
        Away was = away.put(id, new Away(hello.getAway().getReason(), hello.getAway().getBackAtMillis()));
        if (was == null) {
          controller.workerLost(id, "it came back away: " + hello.getAway().getReason(), false, now());
        }
        log.info("worker {} joined from {} with {} cores, taking no work: {}{}", id, link.host(), link.cores(),
            hello.getAway().getReason(), backAt(hello.getAway().getBackAtMillis()));
        return;
      }
      away.remove(id);
      List<Held> claims = claims(id, hello);
      controller.workerJoined(info(link, hello, hello.getAvailableUntilMillis()), claims, now());
      if (!claims.isEmpty()) {
        log.info("worker {} kept computing {} chunk(s) while away: {}", id, claims.size(), claims);
      }
      sessionStarted(link, at);
      log.info("worker {} joined from {} with {} cores{}", id, link.host(), link.cores(), until(hello.getAvailableUntilMillis()));
    });
  }

  /**
   * Records the worker's session in the store. The write is made durable as a piece is: its time
   * stands for eps until the first piece is saved, so a fresh master cuts its first pieces for
   * its store's real cost.
   */
  private void sessionStarted(WorkerLink link, long at) {
    long t0 = ticker.nanos();
    CompletableFuture<Long> row = store.submit(WorkerTable.sessionStarted(link.workerId(), at));
    sessionRows.put(link, row);
    row.thenRun(() -> then(() -> controller.durableWrite((ticker.nanos() - t0) / 1e9)));
  }

  /** What the controller knows of a worker: its Hello's calibration, its history, and when it will surely be gone. */
  private WorkerInfo info(WorkerLink link, Hello hello, long untilMillis) {
    Map<String, Double> speeds = new HashMap<>();
    for (Speed s : hello.getSpeedsList()) {
      if (s.getUnitsPerSecond() > 0 && Double.isFinite(s.getUnitsPerSecond())) {
        speeds.put(s.getWorkload(), s.getUnitsPerSecond());
      }
    }
    double until = untilMillis > 0 ? fromMillis(untilMillis) : Double.POSITIVE_INFINITY;
    WorkerTable.History h = histories.getOrDefault(link.workerId(), new WorkerTable.History(0, 0));
    // with a risk prior, every worker's history starts with PRIOR_WEIGHT interruptions at the expected rate
    long pastInterruptions = h.interruptions() + (expectedUpSeconds > 0 ? PRIOR_WEIGHT : 0);
    double pastExposure = h.exposureSeconds() + (expectedUpSeconds > 0 ? PRIOR_WEIGHT * expectedUpSeconds : 0);
    return new WorkerInfo(link.workerId(), java.util.Set.copyOf(hello.getWorkloadsList()), link.cores(), speeds, until,
        pastInterruptions, pastExposure, hello.getSavesOnVacate());
  }

  private static String until(long millis) {
    return millis > 0 ? ", available until " + java.time.Instant.ofEpochMilli(millis) : "";
  }

  private static String backAt(long millis) {
    return millis > 0 ? "; back at " + java.time.Instant.ofEpochMilli(millis) : "";
  }

  /**
   * The worker's owner policy says whether it takes work. Not available: its pieces came before
   * this message and are committed as usual; the rest of its chunks is taken back exactly as from
   * a lost worker (recovery lists, then a re-plan), an interruption is recorded in its history,
   * and it gets nothing, connected, until it says it is available again: then it joins the
   * controller anew with its new end.
   */
  public void availability(WorkerLink link, dev.gleaner.protocol.Availability a) {
    post(() -> {
      String id = link.workerId();
      if (links.get(id) != link) {
        return;
      }
      if (!a.getAvailable()) {
        if (away.put(id, new Away(a.getReason(), a.getBackAtMillis())) != null) {
          log.info("worker {} is still away: {}{}", id, a.getReason(), backAt(a.getBackAtMillis()));
          return;
        }
        WorkerView before = controller.views().worker(id, now());
        controller.workerVacated(id, "vacated: " + a.getReason(), now());
        endSession(link, "interrupted", "vacated: " + a.getReason());
        metrics.workersVacated.increment();
        log.info("worker {} vacates: {}{}{}", id, a.getReason(), backAt(a.getBackAtMillis()),
            before == null || before.copies().isEmpty() ? "" : "; its chunks " + before.copies() + " go to others");
        return;
      }
      if (away.remove(id) == null) {
        log.info("worker {} says it is available{} while it is; nothing changes", id, until(a.getUntilMillis()));
        return;
      }
      controller.workerJoined(info(link, hellos.get(link), a.getUntilMillis()), List.of(), now());
      sessionStarted(link, ticker.epochMillis());
      log.info("worker {} is available again{}: {}", id, until(a.getUntilMillis()), a.getReason());
    });
  }

  /** Why a connected worker takes no work, and when it expects to be back (epoch ms; 0: unknown). */
  record Away(String reason, long backAtMillis) {}

  /** The chunks a worker says it kept computing; a malformed one is logged and left out (the worker then drops it). */
  private static List<Held> claims(String worker, Hello hello) {
    List<Held> out = new ArrayList<>();
    for (HeldChunk h : hello.getHeldList()) {
      try {
        out.add(new Held(worker, h.getJobId(), h.getChunkId(), h.getStart(), h.getEnd(), h.getAcked(),
            h.getCheckpointsList().stream().mapToLong(Long::longValue).toArray()));
      } catch (IllegalArgumentException e) {
        log.warn("worker {} claims a malformed chunk {} of job {}: {}", worker, h.getChunkId(), h.getJobId(),
            e.getMessage());
      }
    }
    return out;
  }

  /** A worker's later calibration: a new prior for its estimator. */
  public void calibrated(WorkerLink link, List<Speed> speeds) {
    post(() -> {
      if (links.get(link.workerId()) == link) {
        for (Speed s : speeds) {
          if (s.getUnitsPerSecond() > 0 && Double.isFinite(s.getUnitsPerSecond())) {
            controller.calibrated(link.workerId(), s.getWorkload(), s.getUnitsPerSecond());
          }
        }
      }
    });
  }

  /** The worker asked to leave: it finishes what it holds and gets nothing new. */
  public void draining(WorkerLink link) {
    post(() -> {
      if (links.get(link.workerId()) == link) {
        log.info("worker {} is draining", link.workerId());
        controller.workerDraining(link.workerId(), now());
      }
    });
  }

  /**
   * The session ended (closed, silent, said goodbye).
   *
   * @param interrupted whether it counts in the worker's interruption history
   */
  public void lost(WorkerLink link, String why, boolean interrupted) {
    ended(link, why, interrupted, false);
  }

  /**
   * The master ended the session for a request the worker may not make: not an interruption, and
   * no re-plan (see {@link Controller#workerRefused}).
   */
  public void refused(WorkerLink link, String why) {
    ended(link, "refused: " + why, false, true);
  }

  private void ended(WorkerLink link, String why, boolean interrupted, boolean refused) {
    post(() -> {
      if (links.get(link.workerId()) != link || stopping) {
        return;
      }
      links.remove(link.workerId());
      hellos.remove(link);
      if (away.remove(link.workerId()) != null) {
        // it held nothing and its session in the history ended when it vacated
        log.info("worker {} left while away: {}", link.workerId(), why);
        return;
      }
      WorkerView before = controller.views().worker(link.workerId(), now());
      if (refused) {
        controller.workerRefused(link.workerId(), why, now());
      } else {
        controller.workerLost(link.workerId(), why, interrupted, now());
      }
      endSession(link, interrupted ? "interrupted" : "left", "");
      if (interrupted) {
        metrics.workerFailures.increment();
        log.warn("worker {} is down: {}{}", link.workerId(), why,
            before == null || before.copies().isEmpty() ? "" : "; it held " + before.copies());
      } else {
        log.info("worker {} left: {}", link.workerId(), why);
      }
    });
  }

  /** The session's time up ends in the history, with an event {@code kind} ("interrupted" counts as one). */
  private void endSession(WorkerLink link, String kind, String detail) {
    CompletableFuture<Long> row = sessionRows.remove(link);
    long at = ticker.epochMillis();
    boolean interrupted = kind.equals("interrupted");
    if (row != null) {
      // by way of the control thread: a submit from the store's own thread could wait on itself
      row.thenAccept(r -> then(() -> store.submit(WorkerTable.sessionEnded(r, at, interrupted))));
    }
    store.submit(WorkerTable.workerEvent(link.workerId(), at, kind, detail));
  }

  /** A piece arrived: the controller says whether it counts; new units are made durable, then acknowledged. */
  /**
   * A part of the worker's next piece of a chunk arrived, or waits at the master for memory: its
   * lease runs from now (see {@link Controller#reporting}).
   */
  public void reporting(WorkerLink link, String jobId, long chunkId) {
    post(() -> {
      if (links.get(link.workerId()) == link) {
        controller.reporting(link.workerId(), jobId, chunkId, now());
      }
    });
  }

  /**
   * A result of this worker refused before it counted (malformed, or its parts over the limit or out
   * of order): a failure of that piece, so that a piece refused on every try fails the job instead of
   * being handed out for ever. Call before the session is refused, so that it is still this link's.
   */
  public void badResult(WorkerLink link, String jobId, long chunkId, String why) {
    post(() -> {
      if (links.get(link.workerId()) == link) {
        controller.badResult(link.workerId(), jobId, chunkId, why, now());
      }
    });
  }

  public void piece(WorkerLink link, Piece p) {
    // checked on the connection's thread, not the loop's: reading a large result is not the loop's work
    Workload workload = workloadOf.get(p.getJobId());
    String malformed = workload == null ? null : malformed(workload, p, link.workerId());
    if (malformed != null) {
      // refused before it counts: the worker's session ends and its unsaved units go to others; it
      // counts as a failure of that piece (a result malformed everywhere fails the job)
      badResult(link, p.getJobId(), p.getChunkId(), malformed);
      link.refuse(Error.Code.BAD_RESULT, malformed);
      return;
    }
    post(() -> {
      String id = link.workerId();
      if (links.get(id) != link) {
        return;
      }
      if (p.getInputBytes() > 0 && p.getInputNanos() > 0) {
        // the worker timed its input's arrival: the link's speed, whatever the buffers on the way hold
        controller.streamed(id, p.getJobId(), p.getChunkId(), p.getInputBytes(), p.getInputNanos() / 1e9, now());
      }
      Verdict v = controller.piece(id, p.getJobId(), p.getChunkId(), p.getStart(), p.getEnd(), p.getFinal(), now());
      switch (v) {
        case COMMIT -> commit(link, p);
        case DUPLICATE -> {
          metrics.piecesDuplicate.increment();
          ack(link, p, true);
        }
        case DISCARD -> {
          metrics.piecesDiscarded.increment();
          log.info("job {}: piece [{}, {}) of chunk {} from worker {} does not count (its chunk was cancelled,"
              + " the job ended, or another copy saved part of it first)", p.getJobId(), p.getStart(), p.getEnd(),
              p.getChunkId(), id);
          ack(link, p, false);
        }
        case CHECK, TIE_BREAK -> compare(link, p, v == Verdict.TIE_BREAK);
        case REFUSE -> link.refuse(Error.Code.UNKNOWN_CHUNK, "piece [" + p.getStart() + ", " + p.getEnd()
            + ") of chunk " + p.getChunkId() + " of job '" + p.getJobId() + "' is not the next piece of a chunk"
            + " assigned to worker " + id);
      }
    });
  }

  /** Why a piece's result cannot be merged into its job's, or null when it can. */
  private static String malformed(Workload workload, Piece p, String worker) {
    try {
      workload.merge(workload.empty(), p.getResult().toByteArray());
      return null;
    } catch (RuntimeException e) {
      log.warn("job {}: piece [{}, {}) of chunk {} from worker {} has a result {} cannot read", p.getJobId(),
          p.getStart(), p.getEnd(), p.getChunkId(), worker, workload.name(), e);
      return "piece [" + p.getStart() + ", " + p.getEnd() + ") of chunk " + p.getChunkId() + " of job '"
          + p.getJobId() + "' has a malformed " + workload.name() + " result (" + p.getResult().size()
          + " bytes): " + e.getMessage();
    }
  }

  private void commit(WorkerLink link, Piece p) {
    long t0 = ticker.nanos();
    String id = link.workerId();
    MasterJob job = jobs.get(p.getJobId());
    if (job != null) {
      committing.add(job);
    }
    store.submit(PieceTable.commitPiece(p.getJobId(), p.getChunkId(), p.getStart(), p.getEnd(), p.getFinal(), id,
        p.getResult().toByteArray(), ticker.epochMillis())).whenComplete((isNew, err) -> then(() -> {
          if (err != null) {
            // not acknowledged, not counted: its units are queued again and the job goes on
            Throwable cause = err.getCause() != null ? err.getCause() : err;
            storeProblems.error("piece", "job " + p.getJobId() + ": cannot save piece [" + p.getStart() + ", "
                + p.getEnd() + ") from worker " + id + "; its units are queued again: " + cause.getMessage(), cause);
            metrics.storeFailures.increment();
            controller.commitFailed(id, p.getJobId(), p.getChunkId(), p.getStart(), p.getEnd(), cause.getMessage(),
                now());
            return;
          }
          long nanos = ticker.nanos() - t0;
          if (job != null) {
            job.piecesCommitted++;
          }
          metrics.pieceCommit.record(nanos, TimeUnit.NANOSECONDS);
          controller.overhead(nanos / 1e9);
          controller.committed(id, p.getJobId(), p.getChunkId(), p.getStart(), p.getEnd(),
              p.getComputeNanos() / 1e9, now());
          metrics.unitsCommitted.increment(p.getEnd() - p.getStart());
          if (p.getFinal()) {
            metrics.chunksCompleted.increment();
          }
          ack(link, p, true);
        }));
  }

  /** A check's result is compared with the committed one (and a tie-break's with the dissent) in the store. */
  private void compare(WorkerLink link, Piece p, boolean tieBreak) {
    String id = link.workerId();
    store.submit(DissentTable.compareCheck(p.getJobId(), p.getStart(), p.getEnd(), id, p.getResult().toByteArray(),
        tieBreak)).whenComplete((r, err) -> then(() -> {
          if (err != null) {
            log.error("job {}: cannot compare a check of [{}, {}): {}", p.getJobId(), p.getStart(), p.getEnd(),
                err.getMessage(), err);
            controller.fail(p.getJobId(), "the store failed: " + err.getMessage(), now());
            return;
          }
          metrics.piecesChecked.increment();
          if (!r[0]) {
            metrics.checkMismatches.increment();
            log.warn("job {}: {} of units [{}, {}) from worker {} differs from the committed result{}", p.getJobId(),
                tieBreak ? "the tie-break" : "the check", p.getStart(), p.getEnd(), id,
                !tieBreak ? "; a third worker decides" : r[1] ? "; it agrees with the dissent, which replaces it"
                    : " and from the dissent");
          }
          controller.checked(id, p.getJobId(), p.getChunkId(), r[0], r[1], now());
          ack(link, p, true);
        }));
  }

  /** Acknowledges a piece; {@code counted} false when it was discarded (nothing of it saved). */
  private static void ack(WorkerLink link, Piece p, boolean counted) {
    link.send(Envelope.newBuilder().setPieceAck(PieceAck.newBuilder().setJobId(p.getJobId())
        .setChunkId(p.getChunkId()).setEnd(p.getEnd()).setCounted(counted)).build());
  }

  /** The worker cannot compute a chunk: the job fails with its message. */
  public void chunkFailed(WorkerLink link, ChunkFailed f) {
    post(() -> {
      if (links.get(link.workerId()) == link) {
        log.warn("job {}: worker {} could not compute chunk {}: {}", f.getJobId(), link.workerId(), f.getChunkId(),
            f.getMessage());
        controller.chunkFailed(link.workerId(), f.getJobId(), f.getChunkId(), f.getMessage(), now());
      }
    });
  }

  /**
   * The port put a copy's input on the worker's wire. Counted only: the bandwidth estimate comes from
   * the worker's own timing of the arrival (see {@link #piece}), since a transfer that fits in the
   * socket buffers leaves the master much faster than the link carries it.
   */
  public void streamed(WorkerLink link, String job, long copyId, long bytes, double seconds) {
    metrics.bytesStreamed.increment(bytes);
  }

  // ---------------------------------------------------------------- jobs

  /**
   * Seconds a restarted master keeps the chunks its store says were handed out for their workers to
   * claim (workers reconnect within seconds; the backoff is capped at 30 s).
   */
  static final double REJOIN_GRACE_SECONDS = 60;

  /** A job to run (submitted, or resumed after a restart). */
  void addJob(MasterJob job, JobDef def) {
    addJob(job, def, List.of());
  }

  void addJob(MasterJob job, JobDef def, List<Held> handedOut) {
    addJob(job, def, handedOut, null, null);
  }

  /**
   * A job resumed after a restart, with the chunks handed out before it that still stand and its
   * memories (its plan's recovery lists and its checks; null for none).
   */
  void addJob(MasterJob job, JobDef def, List<Held> handedOut, String planMemory, String checksMemory) {
    workloadOf.put(job.id, job.workload);
    post(() -> addJobNow(job, def, handedOut, planMemory, checksMemory));
  }

  /** Runs a task on the loop's thread, in its next pass (the job service's way in). */
  void execute(Runnable task) {
    post(task);
  }

  /**
   * Gives a job to the controller now, on the loop's thread (its plan's first chunk records join
   * the pass that stores the job's row).
   */
  void addJobNow(MasterJob job, JobDef def, List<Held> handedOut, String planMemory, String checksMemory) {
    workloadOf.put(job.id, job.workload);
    jobs.put(job.id, job);
    if (job.state != null) {
      return;
    }
    // until a status built on this loop shows it, the last figures show it queued
    snapshots.submitted(StatusReport.queued(job));
    try {
      controller.addJob(def, handedOut, REJOIN_GRACE_SECONDS, planMemory, checksMemory, now());
    } catch (IllegalArgumentException e) {
      // JobMemory turns any parse failure into this; the job was not added
      log.error("job {}: its stored plan and checks cannot be read ({}); it is planned afresh", job.id,
          e.getMessage(), e);
      controller.addJob(def, handedOut, REJOIN_GRACE_SECONDS, null, null, now());
    }
  }

  /**
   * A submitted job's row could not be stored: the job fails here (its chunks are cancelled), and
   * is forgotten, since no restart will know it.
   */
  void notStored(MasterJob job, Throwable cause) {
    log.error("job {}: cannot store it; it fails: {}", job.id, cause.getMessage(), cause);
    metrics.storeFailures.increment();
    post(() -> {
      controller.fail(job.id, "the master could not store the job: " + cause.getMessage(), now());
      jobs.remove(job.id);
      controller.forget(job.id);
      release(job);
    });
  }

  /** A job that had ended before the master started: for status only. */
  void addEnded(MasterJob job) {
    post(() -> jobs.put(job.id, job));
  }

  // ---------------------------------------------------------------- actions

  private void act() {
    controller.drive(ready -> ready.actions().forEach(this::carryOut));
  }

  private void carryOut(Action a) {
    if (a instanceof Action.Assign x) {
      assign(x);
    } else if (a instanceof Action.Stream x) {
      afterRecorded(x.job(), x.copyId(), () -> {
        WorkerLink link = links.get(x.worker());
        MasterJob job = jobs.get(x.job());
        if (link != null && job != null && job.input != null) {
          link.stream(x.job(), x.copyId(), job.input, x.start(), x.end(), x.rank());
        }
      });
    } else if (a instanceof Action.Truncate x) {
      store.submit(ChunkTable.truncated(x.job(), x.copyId(), x.end()));
      afterRecorded(x.job(), x.copyId(), () -> {
        WorkerLink link = links.get(x.worker());
        if (link != null) {
          link.send(Envelope.newBuilder().setTruncate(Truncate.newBuilder().setJobId(x.job()).setChunkId(x.copyId())
              .setEnd(x.end())).build());
          link.truncateStream(x.job(), x.copyId(), x.end());
        }
      });
      if (x.split()) {
        metrics.splits.increment();
      }
      log.info("job {}: chunk {} of worker {} now ends at unit {}: {}", x.job(), x.copyId(), x.worker(), x.end(),
          x.why());
    } else if (a instanceof Action.Cancel x) {
      store.submit(ChunkTable.chunkEnded(x.job(), x.copyId(), ChunkState.CANCELLED));
      afterRecorded(x.job(), x.copyId(), () -> {
        WorkerLink link = links.get(x.worker());
        if (link != null) {
          link.send(Envelope.newBuilder().setCancel(Cancel.newBuilder().setJobId(x.job()).setChunkId(x.copyId())).build());
          link.cancelStream(x.job(), x.copyId());
        }
      });
      log.debug("job {}: chunk {} of worker {} cancelled: {}", x.job(), x.copyId(), x.worker(), x.why());
    } else if (a instanceof Action.Withdrawn x) {
      store.submit(ChunkTable.chunkEnded(x.job(), x.copyId(), ChunkState.WITHDRAWN));
      // a worker that vacated stays connected: the input of the copies taken back stops going to it
      afterRecorded(x.job(), x.copyId(), () -> {
        WorkerLink link = links.get(x.worker());
        if (link != null) {
          link.cancelStream(x.job(), x.copyId());
        }
      });
    } else if (a instanceof Action.Drop x) {
      WorkerLink link = links.get(x.worker());
      if (link != null) {
        link.refuse(Error.Code.LEASE_EXPIRED, "worker " + x.worker() + " lost its work: " + x.why());
      }
    } else if (a instanceof Action.Planned p) {
      metrics.plans.increment();
      MasterJob job = jobs.get(p.job());
      String before = job == null ? null : job.strategy;
      // a re-plan that picks another strategy says so, and the job's row keeps the one in use
      boolean changed = p.replan() > 0 && before != null && !before.equals(p.strategy());
      log.info("job {} {} with {}{} over {} workers ({}): {} units, {} expected; {}", p.job(),
          p.replan() == 0 ? "planned" : "re-planned", p.strategy(), changed ? " (was " + before + ")" : "",
          p.workers(), p.why(), p.units(), String.format(java.util.Locale.ROOT, "%.4g", p.expectedWork()), p.reason());
      if (job != null) {
        job.strategy = p.strategy();
      }
      if (p.replan() == 0 || changed) {
        store.submit(JobTable.updateJob(p.job(), JobPhase.RUNNING, p.strategy(), null, null, null));
      }
    } else if (a instanceof Action.Remember r) {
      store.submit(JobTable.rememberJob(r.job(), r.plan(), r.checks())).whenComplete((ok, err) -> {
        if (err != null) {
          // the job goes on; its memories are written again, whole, at the next tick
          log.warn("job {}: cannot store its plan and checks for a restart (tried again): {}", r.job(), err.toString());
          then(() -> controller.memoryLost(r.job()));
        }
      });
    } else if (a instanceof Action.Rerouted r) {
      metrics.chunksRerouted.increment(r.chunks());
      log.info("job {}: {} units of {}'s work from worker {} go to {}", r.job(), r.units(), r.origin(), r.from(),
          r.to().isEmpty() ? "the shared queue (no live worker on the recovery list)" : r.to());
    } else if (a instanceof Action.Finished f) {
      MasterJob job = jobs.get(f.job());
      if (job != null) {
        finish(job, f);
      }
    }
  }

  /**
   * Records the chunk, then sends it (persist, then send): its id is never handed out again, and a
   * restarted master knows who holds it. What the controller decides about the chunk meanwhile
   * (its input, a truncation, a cancel) follows the Assign in order.
   */
  private void assign(Action.Assign x) {
    WorkerLink link = links.get(x.worker());
    MasterJob job = jobs.get(x.job());
    if (link == null || job == null) {
      return;
    }
    long leaseMs = (long) Math.min(Integer.MAX_VALUE, Math.ceil(x.lease() * 1000));
    Assign.Builder b = job.assignPrototype.toBuilder().setChunkId(x.copyId()).setStart(x.start()).setEnd(x.end())
        .setDataBytes(x.inputBytes()).setLeaseMs((int) leaseMs);
    for (long cp : x.checkpoints()) {
      b.addCheckpoints(cp);
    }
    Envelope frame = Envelope.newBuilder().setAssign(b).build();
    String key = x.job() + "#" + x.copyId();
    List<Runnable> later = new ArrayList<>();
    unrecorded.put(key, later);
    store.submit(ChunkTable.assigned(x.job(), x.copyId(), x.worker(), x.start(), x.end(), x.checkpoints(), leaseMs,
        ticker.epochMillis())).whenComplete((ok, err) -> then(() -> {
          unrecorded.remove(key);
          if (err != null) {
            // not sent: what follows it is dropped, and its units are queued again
            Throwable cause = err.getCause() != null ? err.getCause() : err;
            storeProblems.error("assign", "job " + x.job() + ": cannot record chunk " + x.copyId() + " for worker "
                + x.worker() + "; it is not sent: " + cause.getMessage(), cause);
            metrics.storeFailures.increment();
            controller.assignFailed(x.worker(), x.job(), x.copyId(), now());
            return;
          }
          if (links.get(x.worker()) == link) {
            link.send(frame);
            metrics.chunksAssigned.increment();
            later.forEach(Runnable::run);
          }
        }));
  }

  /** Runs {@code send} once the chunk's Assign has gone out (at once if it has). */
  private void afterRecorded(String job, long copyId, Runnable send) {
    List<Runnable> later = unrecorded.get(job + "#" + copyId);
    if (later != null) {
      later.add(send);
    } else {
      send.run();
    }
  }

  /** Merges the committed pieces in unit order, checks they tile what was done, stores the result. */
  private void finish(MasterJob job, Action.Finished f) {
    CompletableFuture<Ending> ending = job.ending;
    if (ending != null) {
      job.ending = null;
      // written with the last pieces (see endWithLastPieces): it completes in the same commit as they did
      ending.whenComplete((e, err) -> then(() -> {
        if (err == null && e != null && f.phase() == JobPhase.DONE && f.message().isEmpty() && job.state == null) {
          ended(job, "DONE", e.text(), e.atMillis(), "");
        } else {
          finish(job, f);
        }
      }));
      return;
    }
    if (f.phase() == JobPhase.FAILED) {
      recordFailure(job, f.message());
      return;
    }
    // read on the store's reader thread: merging a large job must not hold up the loop
    store.read(PieceTable.pieces(job.id)).whenComplete((pieces, err) -> {
      try {
        finishFrom(job, f, pieces, err);
      } catch (RuntimeException | OutOfMemoryError e) {
        // nothing may vanish into the future: every unit is saved, so the job waits for a master
        // that can make its result (a restart takes it up and ends it at once)
        long bytes = pieces == null ? 0 : pieces.stream().mapToLong(p -> p.result().length).sum();
        String why = "its result (" + (pieces == null ? 0 : pieces.size()) + " pieces, " + bytes + " bytes) could not be"
            + " made: " + e + (e instanceof OutOfMemoryError ? "; restart the master with a larger heap"
            + " (JAVA_OPTS=-Xmx...): every unit is saved and it ends at the restart" : "");
        log.error("job {}: {}", job.id, why, e);
        post(() -> job.message = why);
      }
    });
  }

  /** Makes the job's result from its stored pieces (read with {@code err} when that failed). */
  private void finishFrom(MasterJob job, Action.Finished f, List<PieceTable.PieceRecord> pieces, Throwable err) {
    if (err != null) {
      post(() -> fail(job, "cannot read the committed pieces: " + err.getMessage()));
      return;
    }
    RangeSet done = RangeSet.of(job.start, job.end);
    done.removeAll(f.notDone());
    ResultMerge.Merged result;
    try {
      result = ResultMerge.of(job.workload, pieces, done);
    } catch (ResultMerge.NoResult e) {
      if (e.getCause() != null) {
        log.error("job {}: {}", job.id, e.getMessage(), e.getCause());
      }
      post(() -> fail(job, e.getMessage()));
      return;
    }
    String text = result.text();
    String state = f.phase().name();
    String notDone = f.notDone().isEmpty() ? null : f.notDone().toString();
    long now = ticker.epochMillis();
    Store.Op<Void> update = JobTable.updateJob(job.id, f.phase(), null, now, result.result(),
        f.message().isEmpty() ? null : f.message());
    Store.Op<Void> ranges = JobTable.jobNotDone(job.id, notDone);
    store.submit(tx -> {
      update.run(tx);
      return ranges.run(tx);
    }).whenComplete((ok, stored) -> then(() -> {
          if (stored != null) {
            fail(job, "cannot store the result: " + stored.getMessage());
            return;
          }
          ended(job, state, text, now, f.message());
        }));
  }

  /** The job's end is stored: it shows in the status, and those waiting for it hear of it. */
  private void ended(MasterJob job, String state, String text, long atMillis, String message) {
    job.result(text);
    job.finishedAtMillis = atMillis;
    job.message = message;
    job.state = state;
    release(job);
    ended(job);
    String first = text.lines().findFirst().orElse("");
    log.info("job {} {} in {} ms: {}", job.id, switch (state) {
      case "DONE" -> "done";
      case "CANCELLED" -> "cancelled";
      default -> "ended at its deadline";
    },
        atMillis - job.submittedAtMillis, first.length() > 200 ? first.substring(0, 200) + "... (" + text.length()
            + " characters in all: gleaner result " + job.id + ")" : first);
  }

  /** The job fails after the controller ended it (merging or storing its result failed). */
  private void fail(MasterJob job, String message) {
    controller.fail(job.id, message, now());
    recordFailure(job, message);
  }

  private void recordFailure(MasterJob job, String message) {
    long now = ticker.epochMillis();
    log.error("job {} failed: {}", job.id, message);
    store.submit(JobTable.updateJob(job.id, JobPhase.FAILED, null, now, null, message));
    job.state = "FAILED";
    job.message = message;
    job.finishedAtMillis = now;
    release(job);
    ended(job);
  }

  /** Every unit has arrived or will not be computed: no stream reads the input any more. */
  /** What a job holds only while it runs: its input file, its entry for checking results. */
  private void release(MasterJob job) {
    workloadOf.remove(job.id);
    if (job.input != null) {
      try {
        job.input.close();
      } catch (java.io.IOException e) {
        log.warn("closing the input of job {} failed: {}", job.id, e.getMessage(), e);
      }
    }
  }

  // ---------------------------------------------------------------- views

  /**
   * How long a status request waits for the loop before it is answered with the last figures the
   * loop took (see {@link StatusSnapshots}).
   */
  static final long STATUS_PATIENCE_MILLIS = 1_000;

  /**
   * The status reply for one job (or all), with the workers and the master's meters: built on the
   * loop's thread, or, when the loop has not come to it within {@link #STATUS_PATIENCE_MILLIS}, the
   * last reply it built for the same request (its {@code as_of_millis} says when). The first
   * request ever of a kind has no such reply and waits for the loop.
   */
  public CompletableFuture<StatusReply> status(String jobId, MeterRegistry registry) {
    return status(jobId, registry, 0, false, false);
  }

  /** The longest a status request may wait for its job's end. */
  static final long MAX_WAIT_MS = 60_000;

  /**
   * The status reply for one job once it has ended, or after {@code waitMs} (at most
   * {@link #MAX_WAIT_MS}) if it has not: a client following a job hears of its end when it
   * happens. Without a job, or with no wait, at once. Built on the loop's thread, or, when the
   * loop has not come to it within {@link #STATUS_PATIENCE_MILLIS} of when it was due, the last
   * reply the loop built for the same request (its {@code as_of_millis} says when; see
   * {@link StatusSnapshots}). The first request ever of a kind has no such reply and waits.
   */
  public CompletableFuture<StatusReply> status(String jobId, MeterRegistry registry, long waitMs, boolean jobOnly,
      boolean allWorkers) {
    statusRegistry = registry;
    if (!allWorkers) {
      snapshots.asked(jobId, ticker.epochMillis());
    }
    CompletableFuture<StatusReply> out = new CompletableFuture<>();
    long wait = Math.max(0, Math.min(waitMs, MAX_WAIT_MS));
    Runnable answer = () -> {
      if (!out.isDone()) {
        try {
          out.complete(jobOnly && !jobId.isEmpty()
              ? StatusReport.jobOnly(controller, jobs, jobId, now(), this).toBuilder().setAsOfMillis(ticker.epochMillis())
                  .build()
              : buildStatus(jobId, registry, allWorkers));
        } catch (RuntimeException e) {
          out.completeExceptionally(e);
        }
      }
    };
    postUrgent(() -> {
      MasterJob job = jobId.isEmpty() ? null : jobs.get(jobId);
      if (wait == 0 || job == null || job.state != null) {
        answer.run();
        return;
      }
      job.onEnd.add(answer);
      timer.schedule(() -> post(() -> {
        job.onEnd.remove(answer);
        answer.run();
      }), wait, TimeUnit.MILLISECONDS);
    });
    CompletableFuture.delayedExecutor(wait + STATUS_PATIENCE_MILLIS, TimeUnit.MILLISECONDS).execute(() -> {
      // a reply of every worker is never kept: it waits for the loop
      StatusReply last = out.isDone() || allWorkers ? null : snapshots.latest(jobId);
      if (last != null) {
        out.complete(last);
      }
    });
    if (closed) {
      out.completeExceptionally(new IllegalStateException("the master is stopping"));
    }
    return out;
  }

  /** The job has ended (its state is set): status requests waiting for it are answered. */
  private void ended(MasterJob job) {
    List<Runnable> waiting = new ArrayList<>(job.onEnd);
    job.onEnd.clear();
    waiting.forEach(Runnable::run);
  }

  /** Builds a status reply on the loop's thread and keeps it for requests the loop is too busy to answer. */
  private StatusReply buildStatus(String jobId, MeterRegistry registry, boolean allWorkers) {
    long t0 = System.nanoTime();
    StatusReply r = StatusReport.build(controller, jobs, links, away, registry, jobId, now(), this, allWorkers)
        .toBuilder().setAsOfMillis(ticker.epochMillis()).build();
    if (!allWorkers) {
      snapshots.built(jobId, r, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
    }
    return r;
  }

  /** On a tick, while someone watches: builds the status of all jobs again (see {@link StatusSnapshots}). */
  private void refreshStatus() {
    MeterRegistry registry = statusRegistry;
    if (registry == null || !snapshots.allDue(ticker.epochMillis())) {
      return;
    }
    try {
      buildStatus("", registry, false);
    } catch (RuntimeException e) {
      log.error("control loop: cannot build the status of all jobs: {}", e.toString(), e);
    }
  }

  /**
   * What the master's web page shows (see {@link WebStatus}), built on the loop's thread like
   * {@link #status}.
   */
  public CompletableFuture<WebStatus> webStatus(MeterRegistry registry) {
    return call(() -> StatusReport.web(controller, jobs, links, away, registry, now(), this, computed.points()));
  }

  /**
   * The whole rendered result of an ended job, for a client to stream; fails with a sentence when
   * the job is unknown, still running, or failed.
   */
  public CompletableFuture<byte[]> result(String jobId) {
    return result(jobId, Caller.TRUSTED);
  }

  /** {@link #result(String)} for {@code caller}, refused with a sentence if the job is another client's. */
  public CompletableFuture<byte[]> result(String jobId, Caller caller) {
    return call(() -> {
      MasterJob j = jobs.get(jobId);
      if (j == null) {
        throw new IllegalArgumentException("the master knows no job '" + jobId + "'");
      }
      String refusal = caller.refusal("read the result of", jobId, j.spec.getOwner());
      if (refusal != null) {
        throw new Caller.NotAllowed(refusal);
      }
      if (j.state == null) {
        throw new IllegalArgumentException("job " + jobId + " has not ended yet (gleaner status " + jobId + ")");
      }
      if (j.state.equals("FAILED")) {
        throw new IllegalArgumentException("job " + jobId + " failed: " + j.message);
      }
      return j;
    }).thenCompose(j -> {
      if (j.resultWhole) {
        return CompletableFuture.completedFuture(j.resultHead.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
      // a long result is rendered again from the store, off the loop's and the store's threads
      return store.read(JobTable.jobResult(j.id)).thenApplyAsync(merged -> {
        if (merged == null) {
          throw new IllegalStateException("the store holds no result of job " + j.id);
        }
        return j.workload.render(merged).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      }, java.util.concurrent.ForkJoinPool.commonPool());
    });
  }

  /**
   * Asks a connected worker to leave (a person's `gleaner drain`): it drains as on SIGTERM and
   * exits; its Drain, its pieces and its goodbye follow. Completes with false when no such worker
   * is connected.
   */
  public CompletableFuture<Boolean> askToLeave(String workerId, String reason) {
    return call(() -> {
      WorkerLink link = links.get(workerId);
      if (link == null || !link.isOpen()) {
        return false;
      }
      link.send(Envelope.newBuilder().setDrain(dev.gleaner.protocol.Drain.newBuilder().setReason(reason)).build());
      log.info("worker {} is asked to leave: {}", workerId, reason);
      return true;
    });
  }

  /**
   * What a cancel or a forget did: the job's state after it, or why it could not be done.
   *
   * @param state CANCELLED, ENDING (its last pieces are being saved), FORGOTTEN; null when refused
   * @param notAllowed refused because the job is another client's
   */
  public record JobOutcome(String state, String message, boolean notAllowed) {
    public JobOutcome(String state, String message) {
      this(state, message, false);
    }

    static JobOutcome notAllowed(String why) {
      return new JobOutcome(null, why, true);
    }
  }

  /** The longest a cancel waits for the last pieces of the chunks being computed. */
  public static final long MAX_CANCEL_GRACE_MS = 10 * 60 * 1000;

  /** Ends a running job now, keeping what is saved (see {@link Controller#cancel}). */
  public CompletableFuture<JobOutcome> cancel(String jobId, String reason) {
    return cancel(jobId, reason, 0);
  }

  /**
   * Ends a running job, keeping what is saved and, within {@code graceMs}, what its workers
   * computed since their last pieces (see {@link Controller#cancel(String, String, double, double)}).
   * The cancel is stored first: a master restarted before the job has ended ends it at once.
   */
  public CompletableFuture<JobOutcome> cancel(String jobId, String reason, long graceMs) {
    return cancel(jobId, reason, graceMs, Caller.TRUSTED);
  }

  /** {@link #cancel(String, String, long)} for {@code caller}, refused if the job is another client's. */
  public CompletableFuture<JobOutcome> cancel(String jobId, String reason, long graceMs, Caller caller) {
    if (graceMs < 0 || graceMs > MAX_CANCEL_GRACE_MS) {
      return CompletableFuture.completedFuture(new JobOutcome(null, "a cancel waits at most "
          + MAX_CANCEL_GRACE_MS / 60_000 + " min for the last pieces, not " + graceMs + " ms"));
    }
    CompletableFuture<JobOutcome> out = new CompletableFuture<>();
    post(() -> {
      MasterJob job = jobs.get(jobId);
      if (job == null) {
        out.complete(new JobOutcome(null, "no job '" + jobId + "' (gleaner jobs lists them)"));
        return;
      }
      String refusal = caller.refusal("cancel", jobId, job.spec.getOwner());
      if (refusal != null) {
        log.info("job {}: a cancel by {} is refused: it belongs to {}", jobId, caller, Caller.ownerText(job.spec.getOwner()));
        out.complete(JobOutcome.notAllowed(refusal));
        return;
      }
      if (job.state != null || !controller.cancel(jobId, reason, graceMs / 1000.0, now())) {
        out.complete(new JobOutcome(null, "job " + jobId + " has already ended"
            + (job.state == null ? "" : " (" + job.state + ")")));
        return;
      }
      log.info("job {} is cancelled: {}{}", jobId, reason, graceMs > 0
          ? " (its workers have up to " + graceMs + " ms to report what they computed since their last pieces)" : "");
      JobView v = controller.views().job(jobId);
      JobOutcome outcome = new JobOutcome(v.phase().name(), v.message());
      // the reply waits for the stored cancel: a master restarted after it does not run the job again
      store.submit(JobTable.cancelRequested(jobId, reason)).whenComplete((ok, err) -> {
        if (err != null) {
          log.error("job {}: cannot store its cancel; it ends all the same, but a restart before its end would run it"
              + " again: {}", jobId, err.toString(), err);
        }
        out.complete(outcome);
      });
    });
    return out;
  }

  /** Drops an ended job and everything stored of it. */
  public CompletableFuture<JobOutcome> forget(String jobId) {
    return forget(jobId, Caller.TRUSTED);
  }

  /** {@link #forget(String)} for {@code caller}, refused if the job is another client's. */
  public CompletableFuture<JobOutcome> forget(String jobId, Caller caller) {
    CompletableFuture<JobOutcome> out = new CompletableFuture<>();
    post(() -> {
      MasterJob job = jobs.get(jobId);
      if (job == null) {
        out.complete(new JobOutcome(null, "no job '" + jobId + "' (gleaner jobs lists them)"));
        return;
      }
      String refusal = caller.refusal("forget", jobId, job.spec.getOwner());
      if (refusal != null) {
        log.info("job {}: a forget by {} is refused: it belongs to {}", jobId, caller, Caller.ownerText(job.spec.getOwner()));
        out.complete(JobOutcome.notAllowed(refusal));
        return;
      }
      if (job.state == null) {
        out.complete(new JobOutcome(null, "job " + jobId + " has not ended; `gleaner cancel " + jobId + "` first"));
        return;
      }
      store.submit(JobTable.forgetJob(jobId)).whenComplete((rows, err) -> then(() -> {
        if (err != null) {
          log.error("job {}: cannot forget it: {}", jobId, err.toString(), err);
          out.complete(new JobOutcome(null, "the master could not drop job " + jobId + ": " + err.getMessage()));
          return;
        }
        jobs.remove(jobId);
        controller.forget(jobId);
        log.info("job {} is forgotten ({} stored rows dropped)", jobId, rows);
        out.complete(new JobOutcome("FORGOTTEN", rows + " stored rows dropped"));
      }));
    });
    return out;
  }

  /** Ids of the workers with a session. */
  public CompletableFuture<List<String>> liveWorkers() {
    return call(() -> new ArrayList<>(links.keySet()));
  }

  /** Wall-clock milliseconds for a controller time. */
  long toMillis(double t) {
    return ticker.epochMillis() + Math.round((t - now()) * 1000);
  }

  /**
   * The master is stopping: the sessions about to close are not lost workers. Their chunks stay
   * recorded as theirs, so the workers, which keep computing, claim them from the next master.
   */
  public void stopping() {
    // set, not asked of the loop: a loop busy for minutes must not hold up the stop; a loss it
    // takes up after this reads the flag and is not counted
    stopping = true;
    // the memories changed since the last tick go with the last pass, if the loop comes to it
    post(() -> controller.rememberNow(now()));
  }

  /** How long a stop lets the loop finish the events it has queued (acknowledgements, mostly) before it drops them. */
  static final long CLOSE_PATIENCE_MILLIS = 1_000;

  /**
   * Stops the loop: what it has queued gets {@link #CLOSE_PATIENCE_MILLIS}, then is dropped (an
   * acknowledgement not sent is a piece the worker sends again to the next master, which finds it
   * stored), and a task still running is interrupted and left to end on its own: a stop does not
   * wait for the loop.
   */
  @Override
  public void close() {
    timer.shutdownNow();
    Forecasts f = forecasts;
    if (f != null) {
      f.close();
    }
    closed = true;
    try {
      thread.join(CLOSE_PATIENCE_MILLIS);
      if (thread.isAlive()) {
        abandon = true;
        thread.interrupt();
        thread.join(CLOSE_PATIENCE_MILLIS);
      }
    } catch (InterruptedException e) {
      thread.interrupt();
      Thread.currentThread().interrupt();
    }
  }
}
