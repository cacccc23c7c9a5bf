package dev.gleaner.master.loop;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.Held;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.WorkerView;
import dev.gleaner.common.port.PortRule;
import dev.gleaner.common.time.Ticker;
import dev.gleaner.common.workload.Workload;
import dev.gleaner.master.auth.Caller;
import dev.gleaner.master.metrics.MasterMetrics;
import dev.gleaner.master.store.ProblemLog;
import dev.gleaner.master.store.ShareTable;
import dev.gleaner.master.store.Store;
import dev.gleaner.master.store.WorkerTable;
import dev.gleaner.protocol.Availability;
import dev.gleaner.protocol.ChunkFailed;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.Speed;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's body around the {@link Controller}: the one door through which the network, the
 * job service and the status reach the controller.
 *
 * <p>Which thread runs what is the shape of this package. Every public method of this class runs
 * on its caller's thread (a connection's, the store reader's, the timer's) and does nothing there
 * but hand an event to the {@link ControlThread} (or read what is safe from any thread); every
 * other class of the package runs on the control thread only: {@link Sessions} (workers logging
 * in, leaving, going away), {@link PieceIntake} (pieces made durable, then acknowledged),
 * {@link ActionRunner} (the controller's decisions carried out: records in the pass, messages
 * after its commit), {@link JobEnds} (results merged and stored), {@link JobCalls} (jobs taken up,
 * cancelled, forgotten, read), over one {@link Books}, as the controller's decisions work over its
 * one state. After every task the controller's decisions are carried out, once. Controller time is
 * the injected ticker's seconds since the loop started ({@link MasterClock}).
 */
public final class ControlLoop implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ControlLoop.class);

  /** Weeks of past sessions the hours-of-the-week risk is learned from at start. */
  static final int RISK_WEEKS = 12;

  private final Books books;
  private final ControlThread thread;
  private final Sessions sessions;
  private final PieceIntake intake;
  private final ActionRunner runner;
  private final JobEnds ends;
  private final JobCalls calls;
  private final List<LoopListener> listeners = new CopyOnWriteArrayList<>();
  /** Posts the controller's ticks (one waiting at most: a busy loop does not pile them up). */
  private final ScheduledExecutorService timer;
  private final AtomicBoolean tickWaiting = new AtomicBoolean();
  /** Ticks so far (on the control thread). */
  private long ticks;

  public ControlLoop(Store store, MasterMetrics metrics, Ticker ticker, ControlConfig config) {
    MasterClock clock = new MasterClock(ticker);
    Controller controller = new Controller(config);
    ProblemLog storeProblems = new ProblemLog(log, ticker::nanos);
    this.books = new Books(controller, store, metrics, clock, storeProblems, store.call(WorkerTable.histories()));
    // interruptions by hour of the week, on this machine's clock and zone (the owners' hours), from
    // the sessions of the last RISK_WEEKS weeks: owners' habits change, and a start stays quick
    controller.wallClock(clock.epochMillis() / 1000.0, ZoneId.systemDefault());
    long since = clock.epochMillis() - RISK_WEEKS * 7L * 86_400_000L;
    for (WorkerTable.Session s : store.call(WorkerTable.sessions(since))) {
      controller.pastSession(s.workerId(), s.startedAt() / 1000.0, s.endedAt() / 1000.0, s.interrupted());
    }
    // the owners' weights in the fair share, as operators set them
    store.call(ShareTable.all()).forEach((owner, weight) -> {
      try {
        controller.share(owner, weight, clock.now());
      } catch (IllegalArgumentException e) {
        log.warn("the store's share of {} is not used: {}", owner, e.getMessage());
      }
    });
    this.thread = new ControlThread(store, metrics, storeProblems);
    this.sessions = new Sessions(books, thread);
    this.intake = new PieceIntake(books, thread);
    this.ends = new JobEnds(books, thread);
    this.runner = new ActionRunner(books, thread, ends);
    this.calls = new JobCalls(books, thread, ends, listeners);
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gleaner-ticks");
      t.setDaemon(true);
      return t;
    });
    thread.start(() -> controller.drive(runner::carryOut), () -> {
      runner.beforeCommit();
      ends.endWithLastPieces();
    });
  }

  // ---------------------------------------------------------------- the loop itself

  /** Starts the controller's clock ticks, every {@code tickMillis}. */
  public void start(long tickMillis) {
    timer.scheduleAtFixedRate(() -> {
      if (!tickWaiting.compareAndSet(false, true)) {
        return;
      }
      thread.post(() -> {
        tickWaiting.set(false);
        double now = books.clock.now();
        books.controller.tick(now);
        if (++ticks % Math.max(1, 1000 / tickMillis) == 0) {
          labelWorkers();
        }
        for (LoopListener l : listeners) {
          l.tick(books, now);
        }
      });
    }, tickMillis, tickMillis, TimeUnit.MILLISECONDS);
  }

  /** Tells {@code l}, on the control thread, of every tick and every job taken up from now on. */
  public void listen(LoopListener l) {
    listeners.add(l);
  }

  /**
   * Workers are expected to go down after {@code meanUpSeconds} up on average: each worker's
   * history is given {@link Books#PRIOR_WEIGHT} interruptions over that many times
   * {@code meanUpSeconds} before its own (what `gleaner simulate --history 10 --mean-up H` gives the
   * simulator).
   */
  public void expectUp(double meanUpSeconds) {
    thread.post(() -> books.expectedUpSeconds = meanUpSeconds);
  }

  /**
   * Workers interrupted are expected back after {@code meanDownSeconds} on average: each worker's
   * history is given {@link Books#PRIOR_WEIGHT} outages of that mean before its own (what `gleaner
   * simulate --mean-down H` gives the simulator).
   */
  public void expectDown(double meanDownSeconds) {
    thread.post(() -> books.expectedDownSeconds = meanDownSeconds);
  }

  /** Runs {@code f} over the books on the control thread; the future gives its value. */
  public <T> CompletableFuture<T> read(Function<Books, T> f) {
    return thread.call(() -> f.apply(books));
  }

  /** Runs {@code task} over the books on the control thread, before the events queued (it only reads). */
  public void readSoon(java.util.function.Consumer<Books> task) {
    thread.postUrgent(() -> task.accept(books));
  }

  /** Runs {@code task} over the books on the control thread, in its next pass. */
  public void execute(java.util.function.Consumer<Books> task) {
    thread.post(() -> task.accept(books));
  }

  /** The port a batch's input streams are queued on together (see {@link StreamBatch}). */
  public void streamsThrough(StreamBatch port) {
    books.streamBatch = port;
  }

  /** The relays logged in: the connections' threads keep it, the status reads it. */
  public Relays relays() {
    return books.relays;
  }

  /** The master's clocks (safe from any thread). */
  public MasterClock clock() {
    return books.clock;
  }

  /** Whether the loop is closed (safe from any thread). */
  public boolean closed() {
    return thread.closed();
  }

  /**
   * The master is stopping: the sessions about to close are not lost workers. Their chunks stay
   * recorded as theirs, so the workers, which keep computing, claim them from the next master.
   */
  public void stopping() {
    // set, not asked of the loop: a loop busy for minutes must not hold up the stop; a loss it
    // takes up after this reads the flag and is not counted
    books.stopping = true;
    // the memories changed since the last tick go with the last pass, if the loop comes to it
    thread.post(() -> books.controller.rememberNow(books.clock.now()));
  }

  /** Stops the ticks and the loop (see {@link ControlThread#close}); a stop does not wait for a busy loop. */
  @Override
  public void close() {
    timer.shutdownNow();
    thread.close();
  }

  // ---------------------------------------------------------------- workers' sessions

  /** A worker authenticated: it joins the controller with its calibration, its history and its declared end. */
  public void joined(WorkerLink link, Hello hello) {
    long at = books.clock.epochMillis();
    thread.post(() -> sessions.joined(link, hello, at));
  }

  /** The worker's owner policy says whether it takes work (see {@link Sessions#availability}). */
  public void availability(WorkerLink link, Availability a) {
    thread.post(() -> sessions.availability(link, a));
  }

  /** A worker's later calibration: a new prior for its estimator. */
  public void calibrated(WorkerLink link, List<Speed> speeds) {
    thread.post(() -> sessions.calibrated(link, speeds));
  }

  /** The worker asked to leave: it finishes what it holds and gets nothing new. */
  public void draining(WorkerLink link) {
    thread.post(() -> sessions.draining(link));
  }

  /**
   * The session ended (closed, silent, said goodbye).
   *
   * @param interrupted whether it counts in the worker's interruption history
   */
  public void lost(WorkerLink link, String why, boolean interrupted) {
    thread.post(() -> sessions.ended(link, why, interrupted, false));
  }

  /** The master ended the session for a request the worker may not make: not an interruption, and no re-plan. */
  public void refused(WorkerLink link, String why) {
    thread.post(() -> sessions.ended(link, "refused: " + why, false, true));
  }

  // ---------------------------------------------------------------- pieces

  /**
   * A piece arrived. Its result is read here, on the connection's thread (reading a large result
   * is not the loop's work): one that cannot be read is refused before it counts (the session
   * ends, and it is a failure of that piece); the others go to the loop.
   */
  public void piece(WorkerLink link, Piece p) {
    byte[] result = p.getResult().toByteArray();
    Workload workload = books.workloadOf.get(p.getJobId());
    String malformed = workload == null ? null : PieceIntake.malformed(workload, p, result, link.workerId());
    if (malformed != null) {
      badResult(link, p.getJobId(), p.getChunkId(), malformed);
      link.refuse(Error.Code.BAD_RESULT, malformed);
      return;
    }
    thread.post(() -> intake.piece(link, p, result));
  }

  /** Part of the worker's next piece of a chunk arrived, or waits at the master for memory: its lease runs from now. */
  public void reporting(WorkerLink link, String jobId, long chunkId) {
    thread.post(() -> intake.reporting(link, jobId, chunkId));
  }

  /**
   * A result of this worker refused before it counted: a failure of that piece. Call before the
   * session is refused, so that it is still this link's.
   */
  public void badResult(WorkerLink link, String jobId, long chunkId, String why) {
    thread.post(() -> intake.badResult(link, jobId, chunkId, why));
  }

  /**
   * A chunk's input has all arrived at its worker, {@code bytes} of it in {@code seconds} from the first
   * byte to the last; {@code clean}: over a link the stream did not share a bound egress on, so that
   * its rate measures the link (otherwise it measures a share, and counts only for a link not measured);
   * {@code own}: its rate is the link's own, not a share (see {@code InputArrival}); {@code port}: the
   * port's rule as it stands after this transfer (its egress in bytes/s), for the plans.
   */
  public void inputArrived(WorkerLink link, String jobId, long chunkId, long bytes, double seconds, boolean clean,
      boolean own, PortRule port) {
    thread.post(() -> intake.inputArrived(link, jobId, chunkId, bytes, seconds, clean, own, port));
  }

  /**
   * The worker's link was seen cut while a transfer crossed it: its paces put it at {@code
   * bytesPerSecond}, measured over {@code seconds} ({@code LinkCut}).
   */
  public void linkCut(WorkerLink link, double bytesPerSecond, double seconds) {
    thread.post(() -> intake.linkCut(link, bytesPerSecond, seconds));
  }

  /** The worker cannot compute a chunk. */
  public void chunkFailed(WorkerLink link, ChunkFailed f) {
    thread.post(() -> intake.chunkFailed(link, f));
  }

  // ---------------------------------------------------------------- jobs

  /** A job to take up (resumed after a restart): its chunks handed out before, and its memories (null: none). */
  public void addJob(MasterJob job, JobDef def, List<Held> handedOut, String planMemory, String checksMemory) {
    books.workloadOf.put(job.id, job.workload);
    thread.post(() -> calls.add(job, def, handedOut, planMemory, checksMemory));
  }

  /** A job that had ended before the master started: for status only. */
  public void addEnded(MasterJob job) {
    thread.post(() -> calls.add(job, null, List.of(), null, null));
  }

  /** Ends a running job now, keeping what is saved (see {@link Controller#cancel}). */
  public CompletableFuture<JobOutcome> cancel(String jobId, String reason) {
    return cancel(jobId, reason, 0, Caller.TRUSTED);
  }

  /** The longest a cancel waits for the last pieces of the chunks being computed. */
  public static final long MAX_CANCEL_GRACE_MS = 10 * 60 * 1000;

  /**
   * Ends a running job, keeping what is saved and, within {@code graceMs}, what its workers
   * computed since their last pieces; refused if the job is another client's.
   */
  public CompletableFuture<JobOutcome> cancel(String jobId, String reason, long graceMs, Caller caller) {
    if (graceMs < 0 || graceMs > MAX_CANCEL_GRACE_MS) {
      return CompletableFuture.completedFuture(JobOutcome.refused("a cancel waits at most "
          + MAX_CANCEL_GRACE_MS / 60_000 + " min for the last pieces, not " + graceMs + " ms"));
    }
    CompletableFuture<JobOutcome> out = new CompletableFuture<>();
    thread.post(() -> calls.cancel(jobId, reason, graceMs, caller, out));
    return out;
  }

  /** Drops an ended job and everything stored of it; refused if the job is another client's. */
  public CompletableFuture<JobOutcome> forget(String jobId, Caller caller) {
    CompletableFuture<JobOutcome> out = new CompletableFuture<>();
    thread.post(() -> calls.forget(jobId, caller, out));
    return out;
  }

  /**
   * The whole rendered result of an ended job, for a client to stream; fails with a sentence when
   * the job is unknown, another client's, still running, or failed.
   */
  public CompletableFuture<byte[]> result(String jobId, Caller caller) {
    return thread.ask(() -> calls.readable(jobId, caller)).thenCompose(calls::result);
  }

  /**
   * Asks a connected worker to leave (a person's `gleaner drain`): it drains as on SIGTERM and
   * exits. Completes with false when no such worker is connected.
   */
  public CompletableFuture<Boolean> askToLeave(String workerId, String reason) {
    return thread.call(() -> calls.askToLeave(workerId, reason));
  }

  /**
   * Stores an owner's weight in the fair share of the workers (0: removes it, the owner weighs 1
   * again), then shares the workers by it; the future gives every weight set, by owner.
   */
  public CompletableFuture<Map<String, Double>> share(String owner, double weight) {
    return books.store.submit(ShareTable.set(owner, weight)).thenCompose(all -> thread.call(() -> {
      books.controller.share(owner, weight, books.clock.now());
      log.info("owner {} weighs {} in the fair share of the workers (weights set: {})", owner,
          weight == 0 ? 1 : weight, all);
      return all;
    }));
  }

  /** The owners' weights in the fair share, as operators set them (an owner not there weighs 1). */
  public CompletableFuture<Map<String, Double>> shares() {
    return thread.call(books.controller::shares);
  }

  /** Ids of the workers with a session. */
  public CompletableFuture<List<String>> liveWorkers() {
    return thread.call(calls::liveWorkers);
  }

  // ---------------------------------------------------------------- for the job service, in this package

  /** Runs a task on the control thread, in its next pass. */
  void post(Runnable task) {
    thread.post(task);
  }

  /** Gives a job to the controller now, on the control thread (its first chunk records join the pass of its row). */
  void addJobNow(MasterJob job, JobDef def) {
    calls.add(job, def, List.of(), null, null);
  }

  /** A submitted job's row could not be stored: it fails and is forgotten. */
  void notStored(MasterJob job, Throwable cause) {
    thread.post(() -> calls.notStored(job, cause));
  }

  /** Per-worker series of /metrics, from the controller's views: once a second. */
  private void labelWorkers() {
    List<MasterMetrics.WorkerFigures> out = new ArrayList<>();
    for (WorkerView w : books.controller.views().workers(books.clock.now())) {
      out.add(new MasterMetrics.WorkerFigures(w.id(), w.unitsDone(), w.bestSpeed(), books.seenInterruptions(w),
          books.links.containsKey(w.id())));
    }
    books.metrics.workers(out);
  }
}
