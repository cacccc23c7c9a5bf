package dev.gleaner.master.store;

import dev.gleaner.master.store.Store.Op;
import dev.gleaner.master.store.Store.Tx;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Large reads of what is committed (a job's pieces to merge, a stored result), on a thread and a
 * read-only connection of their own, opened at the first read: SQLite's WAL lets them read while the
 * loop writes, and they never hold up the loop.
 */
final class StoreReader {
  /** Logs as the store, the name operators' log settings know. */
  private static final Logger log = LoggerFactory.getLogger(Store.class);

  private final Path file;
  private boolean closing;
  private ExecutorService thread;
  /** The reader's connection and its statements, opened on its thread (and used there only). */
  private Connection connection;
  private Tx tx;

  StoreReader(Path file) {
    this.file = file;
  }

  /** See {@link Store#read}. */
  <T> CompletableFuture<T> read(Op<T> op) {
    CompletableFuture<T> f = new CompletableFuture<>();
    ExecutorService r;
    synchronized (this) {
      if (closing) {
        f.completeExceptionally(new IllegalStateException("the store is closed"));
        return f;
      }
      if (thread == null) {
        thread = Executors.newSingleThreadExecutor(t -> {
          Thread th = new Thread(t, "gleaner-store-read");
          th.setDaemon(true);
          return th;
        });
      }
      r = thread;
    }
    try {
      r.execute(() -> {
        try {
          if (connection == null) {
            org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
            config.setReadOnly(true);
            config.setBusyTimeout(5000);
            config.setGetGeneratedKeys(false);
            connection = config.createConnection("jdbc:sqlite:" + file);
            tx = new Tx(connection);
          }
          T result = op.run(tx);
          tx.unbind();
          f.complete(result);
        } catch (SQLException | RuntimeException e) {
          log.error("store read failed: {}", e.getMessage(), e);
          tx = null;
          Store.closeQuietly(connection);
          connection = null;
          f.completeExceptionally(e);
        }
      });
    } catch (RejectedExecutionException e) {
      f.completeExceptionally(new IllegalStateException("the store is closed", e));
    }
    return f;
  }

  /** Refuses reads from now on and closes the connection once the read under way ends (3 s at most). */
  void close() {
    ExecutorService r;
    synchronized (this) {
      closing = true;
      r = thread;
    }
    if (r == null) {
      return;
    }
    r.shutdown();
    try {
      // bounded: a stop must not wait for a long read (a merge goes on a restarted master)
      if (!r.awaitTermination(3, TimeUnit.SECONDS)) {
        log.warn("a store read did not end within 3 s of the close; the store closes under it");
        r.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Store.closeQuietly(connection);
  }
}
