package dev.gleaner.master.store;

import dev.gleaner.master.store.Store.Op;
import dev.gleaner.master.store.Store.Tx;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group commit on the store's writing connection: the operations of one pass of the owning loop
 * run in one transaction, and their futures complete only after it commits.
 *
 * <p>How: an operation submitted on the loop's thread waits in the pass; one submitted on another
 * thread is handed to the loop with its executor and joins its next pass. {@link #commitPass} runs
 * the pass in batches of at most {@link #BATCH} operations, commits each batch (one fsync), then
 * completes the batch's futures on the loop's thread; what those completions submit waits for the
 * next pass. A batch that fails is rolled back and replayed one operation at a time, so one bad
 * operation fails alone and the others commit. Until a loop attaches, each operation runs at once
 * in a transaction of its own.
 */
final class CommitEngine {
  /** Logs as the store, the name operators' log settings know. */
  private static final Logger log = LoggerFactory.getLogger(Store.class);
  /** The most operations one transaction takes; a pass with more commits in several. */
  static final int BATCH = 4096;

  private record Pending<T>(Op<T> op, CompletableFuture<T> future) {}

  private final Connection connection;
  private final Tx tx;
  /** Told of a write that failed on a full disk. */
  private final Runnable diskFull;
  /** Operations of the loop's current pass, in the order submitted (the loop's thread only). */
  private final List<Pending<?>> pass = new ArrayList<>();
  /** The loop that owns the store, once attached: its thread, and how to hand it work. */
  private volatile Thread owner;
  private volatile Executor ownerExecutor;
  private volatile boolean closing;
  /** Failed writes: a line per 10 s at most, and the count of the rest (see {@link ProblemLog}). */
  private final ProblemLog writeFailures = new ProblemLog(log, System::nanoTime);

  /** On {@code connection}, open and out of auto-commit. */
  CommitEngine(Connection connection, Runnable diskFull) {
    this.connection = connection;
    this.tx = new Tx(connection);
    this.diskFull = diskFull;
  }

  /** See {@link Store#attach}. */
  void attach(Thread thread, Executor executor) {
    synchronized (this) {
      // the WAL is copied into the database by a thread of its own (WalCheckpointer): a checkpoint
      // fsyncs the database file, and run inside a pass's commit (SQLite's default, every 1000 pages)
      // it held that pass, and every reply waiting on it, for tens of milliseconds
      try (Statement st = connection.createStatement()) {
        st.execute("PRAGMA wal_autocheckpoint=0");
        connection.commit();
      } catch (SQLException e) {
        log.warn("the store checkpoints in its commits: cannot turn that off: {}", e.getMessage(), e);
      }
      this.ownerExecutor = executor;
      this.owner = thread;
    }
  }

  /** See {@link Store#submit}. */
  <T> CompletableFuture<T> submit(Op<T> op) {
    CompletableFuture<T> f = new CompletableFuture<>();
    if (closing) {
      f.completeExceptionally(new IllegalStateException("the store is closed"));
      return f;
    }
    Thread loop = owner;
    if (loop == null) {
      synchronized (this) {
        if (owner == null) {
          // no loop yet: at once, in a transaction of its own
          runBatch(List.of(new Pending<>(op, f)));
          tx.unbind();
          return f;
        }
      }
      loop = owner;
    }
    if (Thread.currentThread() == loop) {
      pass.add(new Pending<>(op, f));
      return f;
    }
    try {
      ownerExecutor.execute(() -> {
        if (closing && !f.isDone()) {
          f.completeExceptionally(new IllegalStateException("the store is closed"));
        } else {
          pass.add(new Pending<>(op, f));
        }
      });
    } catch (RejectedExecutionException e) {
      f.completeExceptionally(new IllegalStateException("the store is closed", e));
    }
    return f;
  }

  /** See {@link Store#call}. */
  <T> T call(Op<T> op) {
    if (Thread.currentThread() == owner) {
      throw new IllegalStateException("Store.call on the loop's own thread would wait for its own pass");
    }
    return submit(op).join();
  }

  /** See {@link Store#now}. */
  <T> T now(Op<T> op) {
    Thread loop = owner;
    if (loop != null && Thread.currentThread() != loop) {
      throw new IllegalStateException("Store.now off the loop's thread");
    }
    synchronized (this) {
      try {
        T result = op.run(tx);
        // ends the read's transaction: a snapshot held open would keep the WAL from being checkpointed
        connection.commit();
        return result;
      } catch (SQLException e) {
        rollback(e);
        throw new IllegalStateException("the store cannot be read: " + e.getMessage(), e);
      } finally {
        tx.unbind();
      }
    }
  }

  /** Whether operations wait in the current pass (the owning loop's thread only). */
  boolean hasPending() {
    return !pass.isEmpty();
  }

  /** See {@link Store#commitPass}. */
  void commitPass() {
    writeFailures.flush();
    while (!pass.isEmpty()) {
      List<Pending<?>> batch;
      if (pass.size() <= BATCH) {
        batch = new ArrayList<>(pass);
        pass.clear();
      } else {
        batch = new ArrayList<>(pass.subList(0, BATCH));
        pass.subList(0, BATCH).clear();
      }
      try {
        runBatch(batch);
      } catch (Error e) {
        // the operations not tried yet fail with it: none may pass for durable, nor wait for ever
        List<Pending<?>> left = new ArrayList<>(pass);
        pass.clear();
        for (Pending<?> p : left) {
          p.future().completeExceptionally(new IllegalStateException("the store's pass failed: " + e, e));
        }
        throw e;
      } finally {
        tx.unbind();
      }
    }
  }

  /**
   * Runs a batch in one transaction. If one operation fails, the batch is rolled back and each
   * operation is replayed in a transaction of its own, so one bad operation fails alone.
   */
  private void runBatch(List<Pending<?>> batch) {
    Object[] results = new Object[batch.size()];
    try {
      for (int i = 0; i < batch.size(); i++) {
        results[i] = batch.get(i).op().run(tx);
      }
      connection.commit();
    } catch (Error e) {
      // out of memory while binding a large result, say: nothing of the batch is durable, and each
      // operation hears so (a piece is queued again, a chunk not sent) before the error goes on up
      Exception cause = new IllegalStateException("the store's batch failed: " + e, e);
      rollback(cause);
      for (Pending<?> p : batch) {
        p.future().completeExceptionally(cause);
      }
      throw e;
    } catch (SQLException | RuntimeException e) {
      rollback(e);
      if (batch.size() > 1) {
        for (Pending<?> p : batch) {
          runBatch(List.of(p));
        }
      } else {
        // a full disk fails every write of a busy master: one line per 10 s, with a count of the rest
        writeFailures.error("write", "store operation failed: " + e.getMessage(), e);
        if (isFull(e)) {
          diskFull.run();
        }
        batch.get(0).future().completeExceptionally(e);
      }
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      complete(batch.get(i), results[i]);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> void complete(Pending<T> p, Object result) {
    try {
      p.future().complete((T) result);
    } catch (RuntimeException e) {
      // a completion's own failure must not fail the operations after it, which are committed
      log.error("after a store commit: {}", e.toString(), e);
    }
  }

  /** Whether {@code e} is SQLite's "database or disk is full". */
  private static boolean isFull(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof org.sqlite.SQLiteException s && s.getResultCode() == org.sqlite.SQLiteErrorCode.SQLITE_FULL) {
        return true;
      }
    }
    return false;
  }

  /**
   * Undoes the failed transaction and starts a clean one. SQLite rolls some failures back by itself
   * (a full disk): the driver then still believes in a transaction and would run what follows
   * outside any, each statement committing alone; so the driver's state is reset, and the cached
   * statements with it.
   */
  private void rollback(Exception cause) {
    try {
      connection.rollback();
    } catch (SQLException r) {
      cause.addSuppressed(r);
      try {
        connection.setAutoCommit(true);
      } catch (SQLException again) {
        // it tried to commit a transaction SQLite had already ended
        log.debug("resetting the store's transaction: {}", again.getMessage());
      }
    }
    try {
      if (connection.getAutoCommit()) {
        connection.setAutoCommit(false);
      }
    } catch (SQLException again) {
      cause.addSuppressed(again);
    }
    tx.reset();
  }

  /** From now on operations fail at once: the store is closing. */
  void refuse() {
    closing = true;
  }

  /** Fails the operations still in the pass and closes the connection; the owning loop has stopped. */
  void close() {
    closing = true;
    for (Pending<?> p : pass) {
      p.future().completeExceptionally(new IllegalStateException("the store is closed"));
    }
    pass.clear();
    synchronized (this) {
      try {
        connection.close();
      } catch (SQLException e) {
        log.warn("closing the store failed: {}", e.getMessage(), e);
      }
    }
  }
}
