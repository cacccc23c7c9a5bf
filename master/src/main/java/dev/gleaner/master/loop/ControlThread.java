package dev.gleaner.master.loop;

import dev.gleaner.master.metrics.MasterMetrics;
import dev.gleaner.master.store.ProblemLog;
import dev.gleaner.master.store.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's control thread: every event is a task run on it, so the controller and the loop's
 * {@link Books} are never touched concurrently. It runs in passes, raft's rhythm: it takes every
 * task waiting (up to {@link #PASS_TASKS}), runs each and then {@code afterEach} (which carries out
 * what the controller decided), then commits every store write the pass made in one transaction
 * ({@link Store#commitPass}: one fsync however many pieces and chunk records it holds), which
 * completes the writes' futures here, and only then runs what waited for that commit (the
 * messages of the pass: a chunk's Assign after its record). A write's completion that decides
 * more makes writes that the same commit takes in a further transaction, so its messages go out
 * with the others, once every write made so far is durable (or has failed, and said so).
 *
 * <p>Tasks that only read (status requests) go before those queued, so a person asking is
 * answered after the task running now, not after thousands of queued events.
 */
final class ControlThread {
  // one logger for the whole loop: what an operator reads and filters is the control loop's
  private static final Logger log = LoggerFactory.getLogger(ControlLoop.class);

  /** The most tasks one pass runs before it commits: a flood of events still commits regularly. */
  static final int PASS_TASKS = 4096;

  /** How long a stop lets the thread finish the tasks it has queued (acknowledgements, mostly) before it drops them. */
  static final long CLOSE_PATIENCE_MILLIS = 1_000;

  private static final Runnable NOTHING = () -> { };

  private final Store store;
  private final MasterMetrics metrics;
  private final ProblemLog storeProblems;
  private final LinkedBlockingQueue<Runnable> tasks = new LinkedBlockingQueue<>();
  private final ConcurrentLinkedQueue<Runnable> urgent = new ConcurrentLinkedQueue<>();
  private final Thread thread;
  /** Set by {@link #close}: the thread runs what is queued, commits it and ends. */
  private volatile boolean closed;
  /** Set by {@link #close} when the thread has not ended in time: it drops what is queued and ends. */
  private volatile boolean abandon;
  /** Whether the urgent tasks are being run now (they are not run within themselves). */
  private boolean servingUrgent;
  private Runnable afterEach = NOTHING;
  private Runnable beforeCommit = NOTHING;
  /** What waits for the current pass's commit, in order (this thread only). */
  private List<Runnable> afterCommit = new ArrayList<>();

  ControlThread(Store store, MasterMetrics metrics, ProblemLog storeProblems) {
    this.store = store;
    this.metrics = metrics;
    this.storeProblems = storeProblems;
    this.thread = new Thread(this::loop, "gleaner-control");
    thread.setDaemon(true);
  }

  /**
   * Starts the thread; from here the store's writes wait for its passes.
   *
   * @param afterEach run after every task (carries out the controller's decisions)
   * @param beforeCommit run before each pass commits (writes what must share its transaction)
   */
  void start(Runnable afterEach, Runnable beforeCommit) {
    this.afterEach = afterEach;
    this.beforeCommit = beforeCommit;
    store.attach(thread, this::enqueue);
    thread.start();
  }

  /** Whether the caller is the control thread. */
  boolean onThread() {
    return Thread.currentThread() == thread;
  }

  /** Runs a task on the thread, in its next pass (from any thread; dropped, said so, once closed). */
  void post(Runnable task) {
    try {
      enqueue(() -> run(task));
    } catch (RejectedExecutionException e) {
      log.debug("control loop stopped; an event is dropped: {}", e.getMessage());
    }
  }

  /** Posts a task that only reads: it runs before the tasks queued. */
  void postUrgent(Runnable task) {
    urgent.add(task);
    // wakes an idle thread; a busy one finds the task before its next one
    post(NOTHING);
  }

  /** Runs {@code f} on the thread; the future completes with its value, or fails as it did or when the thread is closed. */
  <T> CompletableFuture<T> call(Supplier<T> f) {
    return call(f, false);
  }

  /**
   * As {@link #call(Supplier)}, for a request whose IllegalArgumentException is its answer (an unknown
   * job, another client's, one not ended yet): the caller says it to whoever asked, and it is not the
   * loop's error. Any other exception is logged as one too.
   */
  <T> CompletableFuture<T> ask(Supplier<T> f) {
    return call(f, true);
  }

  private <T> CompletableFuture<T> call(Supplier<T> f, boolean answers) {
    CompletableFuture<T> out = new CompletableFuture<>();
    try {
      enqueue(() -> run(() -> {
        try {
          out.complete(f.get());
        } catch (IllegalArgumentException refused) {
          out.completeExceptionally(refused);
          if (!answers) {
            throw refused;
          }
        } catch (RuntimeException e) {
          out.completeExceptionally(e);
          throw e;
        }
      }));
    } catch (RejectedExecutionException e) {
      out.completeExceptionally(new IllegalStateException("the master is stopping", e));
    }
    return out;
  }

  /**
   * What follows a store write's completion: at once when on the thread (completions run there, at
   * the end of the pass that committed them, so a commit's consequences come before any later
   * event), else as a task.
   */
  void then(Runnable task) {
    if (onThread()) {
      // a pass's commit may complete thousands of writes: a status asked meanwhile need not wait for all
      serveUrgent();
      run(task);
    } else {
      post(task);
    }
  }

  /** Runs {@code send} once the current pass has committed (the thread only): what it sends waits for the pass's records. */
  void afterCommit(Runnable send) {
    afterCommit.add(send);
  }

  boolean closed() {
    return closed;
  }

  /**
   * Stops the thread: what it has queued gets {@link #CLOSE_PATIENCE_MILLIS}, then is dropped (an
   * acknowledgement not sent is a piece the worker sends again to the next master, which finds it
   * stored), and a task still running is interrupted and left to end on its own.
   */
  void close() {
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

  /** Hands a task to the thread (the store's way in, too). */
  private void enqueue(Runnable task) {
    if (closed) {
      throw new RejectedExecutionException("the control loop is closed");
    }
    tasks.add(task);
  }

  /** The loop: a pass runs the tasks waiting, then commits what they wrote and runs what waited for it. */
  private void loop() {
    while (true) {
      Runnable first;
      try {
        first = waiting() ? tasks.poll() : tasks.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        log.warn("the control loop was interrupted; it stops");
        commitPass();
        return;
      }
      if (first == null) {
        if (waiting()) {
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

  /** Whether writes or messages wait for a commit. */
  private boolean waiting() {
    return store.hasPending() || !afterCommit.isEmpty();
  }

  private void commitPass() {
    storeProblems.flush();
    try {
      beforeCommit.run();
      if (store.hasPending()) {
        long t0 = System.nanoTime();
        store.commitPass();
        metrics.storeCommit.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
      }
    } catch (RuntimeException | Error e) {
      // the writes that failed said so to each of their futures (a chunk not recorded is not sent)
      storeProblems.error("commit", "control loop: committing the store's pass failed: " + e, e);
    }
    // every write made so far is durable or has failed: what waited for them goes now, in order
    List<Runnable> sends = afterCommit;
    afterCommit = new ArrayList<>();
    for (Runnable send : sends) {
      try {
        send.run();
      } catch (RuntimeException e) {
        log.error("control loop: sending after a commit: {}", e.toString(), e);
      }
    }
  }

  private void runGuarded(Runnable task) {
    try {
      run(task);
    } catch (Error e) {
      // an error must not end the loop: deadlines, leases and every later event depend on it
      log.error("control loop: {}", e.toString(), e);
    }
  }

  private void run(Runnable task) {
    try {
      task.run();
      afterEach.run();
    } catch (RuntimeException e) {
      log.error("control loop: {}", e.toString(), e);
    }
  }

  /** Runs the urgent tasks waiting; on the thread, between two tasks. */
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
}
