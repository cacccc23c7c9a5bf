package dev.gleaner.master.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies the store's WAL into its database once a second, on a thread and a connection of its own,
 * so that no pass of the loop pays for the fsync of the database file.
 *
 * <p>How: a passive checkpoint each second copies what no reader still needs, without holding up the
 * writer; the WAL starts over once all of it is in. After a write failed on a full disk, a truncating
 * checkpoint (at most one a second) copies the WAL in and cuts it to nothing, to give back the space
 * its old frames hold: on a small disk the WAL took the space a failed write freed, and the master
 * never recovered.
 */
final class WalCheckpointer {
  /** Logs as the store, the name operators' log settings know. */
  private static final Logger log = LoggerFactory.getLogger(Store.class);
  /** How often the WAL is copied into the database. */
  static final long CHECKPOINT_MILLIS = 1000;

  private final Path file;
  private volatile ScheduledExecutorService thread;
  private volatile boolean closing;
  /** The checkpointer's own connection, opened on its thread (and used there only). */
  private Connection connection;
  /** Failed checkpoints logged at most 3 per minute: a full disk must not flood the log. */
  private final RateLimit failuresLogged = new RateLimit(3, 60_000);
  /** WAL truncations after a full disk: at most one a second. */
  private final RateLimit truncationsAsked = new RateLimit(1, 1000);
  /** How many times the WAL was truncated after a full disk (for tests and the log). */
  private final AtomicLong truncations = new AtomicLong();

  WalCheckpointer(Path file) {
    this.file = file;
  }

  /** Starts the checkpoints, once a second from a second from now. */
  void start() {
    ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread th = new Thread(r, "gleaner-store-checkpoint");
      th.setDaemon(true);
      return th;
    });
    t.scheduleWithFixedDelay(() -> checkpoint("PASSIVE"), CHECKPOINT_MILLIS, CHECKPOINT_MILLIS, TimeUnit.MILLISECONDS);
    thread = t;
  }

  /** A checkpoint of {@code mode} (PASSIVE, or TRUNCATE after a full disk). */
  private void checkpoint(String mode) {
    try {
      if (connection == null) {
        org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
        config.setBusyTimeout(5000);
        config.setGetGeneratedKeys(false);
        connection = config.createConnection("jdbc:sqlite:" + file);
      }
      try (Statement st = connection.createStatement();
           ResultSet r = st.executeQuery("PRAGMA wal_checkpoint(" + mode + ")")) {
        if (r.next() && r.getInt(1) != 0) {
          log.debug("a checkpoint of the store was busy; the next one tries again");
        } else if (mode.equals("TRUNCATE")) {
          truncations.incrementAndGet();
          log.warn("the disk holding the store is full: its WAL was copied into the database and truncated, to give"
              + " back the space it held; writes are tried again as they come");
        }
      }
    } catch (SQLException | RuntimeException e) {
      if (!closing && failuresLogged.allow()) {
        log.warn("copying the store's WAL into its database failed (tried again each second): {}", e.getMessage(), e);
      }
      Store.closeQuietly(connection);
      connection = null;
    }
  }

  /**
   * A write failed on a full disk: the WAL is copied into the database and truncated to nothing (at
   * most once a second), on the checkpointer's thread. Nothing before {@link #start}.
   */
  void giveSpaceBack() {
    ScheduledExecutorService t = thread;
    if (t == null || closing || !truncationsAsked.allow()) {
      return;
    }
    try {
      t.execute(() -> checkpoint("TRUNCATE"));
    } catch (RejectedExecutionException e) {
      log.debug("the store is closing: no WAL truncation", e);
    }
  }

  /** How many times the WAL was truncated after a full disk. */
  long truncations() {
    return truncations.get();
  }

  /** Stops the checkpoints, letting the one under way end (3 s at most), and closes the connection. */
  void close() {
    closing = true;
    ScheduledExecutorService t = thread;
    if (t == null) {
      return;
    }
    t.shutdown();
    try {
      if (!t.awaitTermination(3, TimeUnit.SECONDS)) {
        log.warn("a checkpoint of the store did not end within 3 s of the close");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Store.closeQuietly(connection);
  }

  /** At most {@code n} events per {@code millis}. */
  private static final class RateLimit {
    private final int n;
    private final long millis;
    private long windowStart;
    private int inWindow;

    RateLimit(int n, long millis) {
      this.n = n;
      this.millis = millis;
    }

    synchronized boolean allow() {
      long now = System.currentTimeMillis();
      if (now - windowStart >= millis) {
        windowStart = now;
        inWindow = 0;
      }
      return ++inWindow <= n;
    }
  }
}
