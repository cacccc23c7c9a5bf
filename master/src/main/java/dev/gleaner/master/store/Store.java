package dev.gleaner.master.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's durable state in one SQLite file: jobs, chunks, committed pieces, workers and their
 * interruption history.
 *
 * <p>How: the store has no thread of its own. The master's control loop owns it: every operation
 * submitted during one pass of the loop waits in the pass, and at the end of the pass the loop
 * calls {@link #commitPass}, which runs them all in one transaction, commits it (one fsync) and
 * only then completes their futures, on the loop's thread (group commit, in raft's rhythm: persist
 * the batch, then send what depends on it; see {@link CommitEngine}). So a piece is durable before
 * anyone acknowledges it, the chunk record before its Assign, and whatever one pass produced costs
 * one fsync. An operation submitted from another thread is handed to the loop and joins its next
 * pass. Until a loop {@link #attach}es, operations run at once on the caller's thread, each in its
 * own transaction (the master's start, tests, tools). Large reads that need nothing uncommitted go
 * to {@link #read}, which runs them on a reader thread of its own connection (SQLite's WAL lets it
 * read while the loop writes). The operations themselves are built by the table classes
 * ({@link JobTable}, {@link ChunkTable}, {@link PieceTable}, {@link WorkerTable}, {@link DissentTable},
 * {@link RevocationTable}) with the binder of {@link Tx}.
 */
public final class Store implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Store.class);

  /** Work done on the store's connection inside a transaction. */
  @FunctionalInterface
  public interface Op<T> {
    T run(Tx tx) throws SQLException;
  }

  /** Reads one row of a query's result into a value. */
  @FunctionalInterface
  public interface Row<T> {
    T map(ResultSet r) throws SQLException;
  }

  /**
   * The store's connection, with the binder every operation writes its SQL with: each value is bound
   * by its runtime type (a String as text, a Long or an Integer as an integer, a Boolean as 1 or 0, a
   * byte[] as a blob, null as NULL), and each statement is prepared once and kept for reuse.
   */
  public static final class Tx {
    private final Connection connection;
    private final java.util.Map<String, PreparedStatement> statements = new java.util.HashMap<>();

    Tx(Connection connection) {
      this.connection = connection;
    }

    /** Runs a statement without rows (INSERT, UPDATE, DELETE) with {@code values}; returns the rows it changed. */
    public int update(String sql, Object... values) throws SQLException {
      return bind(sql, values).executeUpdate();
    }

    /** Runs a query with {@code values}; returns each row of its result as {@code row} reads it, in order. */
    public <T> List<T> query(String sql, Row<T> row, Object... values) throws SQLException {
      List<T> out = new ArrayList<>();
      try (ResultSet r = bind(sql, values).executeQuery()) {
        while (r.next()) {
          out.add(row.map(r));
        }
      }
      return out;
    }

    /** Runs a query with {@code values}; returns its first row as {@code row} reads it, or null when it has none. */
    public <T> T one(String sql, Row<T> row, Object... values) throws SQLException {
      try (ResultSet r = bind(sql, values).executeQuery()) {
        return r.next() ? row.map(r) : null;
      }
    }

    /** The statement of {@code sql}, prepared once and kept, with {@code values} bound in order. */
    private PreparedStatement bind(String sql, Object... values) throws SQLException {
      // a lone null literal comes as no array at all: it is one NULL value
      Object[] vs = values == null ? new Object[] {null} : values;
      PreparedStatement p = prepare(sql);
      int wanted = p.getParameterMetaData().getParameterCount();
      if (vs.length != wanted) {
        // SQLite would take a missing value as NULL without a word
        throw new IllegalArgumentException("the statement takes " + wanted + " values, given " + vs.length + ": "
            + sql);
      }
      for (int i = 0; i < vs.length; i++) {
        Object v = vs[i];
        if (v == null) {
          p.setNull(i + 1, java.sql.Types.NULL);
        } else if (v instanceof String s) {
          p.setString(i + 1, s);
        } else if (v instanceof Long n) {
          p.setLong(i + 1, n);
        } else if (v instanceof Integer n) {
          p.setInt(i + 1, n);
        } else if (v instanceof Double d) {
          p.setDouble(i + 1, d);
        } else if (v instanceof Boolean b) {
          p.setInt(i + 1, b ? 1 : 0);
        } else if (v instanceof byte[] b) {
          p.setBytes(i + 1, b);
        } else {
          throw new IllegalArgumentException("value " + (i + 1) + " is a " + v.getClass().getName()
              + ", which the store does not bind (String, Long, Integer, Double, Boolean, byte[] or null): " + sql);
        }
      }
      return p;
    }

    /** The statement of {@code sql}, prepared at its first use and kept, with no values bound. */
    PreparedStatement prepare(String sql) throws SQLException {
      PreparedStatement p = statements.get(sql);
      if (p == null) {
        p = connection.prepareStatement(sql);
        statements.put(sql, p);
      }
      p.clearParameters();
      return p;
    }

    /**
     * Lets go of the values bound to the cached statements: a result of hundreds of megabytes
     * bound to the last job update must not stay in memory until the next one.
     */
    void unbind() {
      for (PreparedStatement p : statements.values()) {
        try {
          p.clearParameters();
        } catch (SQLException e) {
          log.debug("clearing a cached statement's parameters failed: {}", e.getMessage());
        }
      }
    }

    /** Closes the cached statements (after a failed transaction they may be left mid-execution). */
    void reset() {
      for (PreparedStatement p : statements.values()) {
        try {
          p.close();
        } catch (SQLException e) {
          log.debug("closing a cached statement failed: {}", e.getMessage());
        }
      }
      statements.clear();
    }
  }

  private final Path file;
  private final DataDirLock lock;
  private final CommitEngine engine;
  /** Copies the WAL into the database once a second, on its own thread and connection (see {@link #attach}). */
  private final WalCheckpointer checkpointer;
  /** The reader: its own connection on its own thread, opened at the first {@link #read}. */
  private final StoreReader reader;
  private boolean closed;
  /** Delete the data folder at the close (see {@link #deleteOnClose}). */
  private volatile boolean deleteOnClose;

  public Store(Path dataDir) {
    try {
      Files.createDirectories(dataDir);
      this.file = dataDir.resolve("gleaner.db");
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot create the data directory " + dataDir + ": " + e.getMessage(), e);
    }
    // two masters on one store would both hand out job-1 and commit each other's pieces
    this.lock = DataDirLock.acquire(dataDir);
    Connection opened = null;
    try {
      org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
      // no generated keys after each update: the driver would parse every statement and run one more query
      // (a session's row id is read with last_insert_rowid() where it is needed)
      config.setGetGeneratedKeys(false);
      opened = config.createConnection("jdbc:sqlite:" + file);
      try (Statement s = opened.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA synchronous=FULL");
        s.execute("PRAGMA busy_timeout=5000");
        Schema.apply(s);
      }
      opened.setAutoCommit(false);
    } catch (SQLException | RuntimeException e) {
      if (opened != null) {
        try {
          opened.close();
        } catch (SQLException c) {
          e.addSuppressed(c);
        }
      }
      lock.close();
      throw new IllegalStateException("cannot open the store in " + dataDir + ": " + e.getMessage(), e);
    }
    this.checkpointer = new WalCheckpointer(file);
    this.engine = new CommitEngine(opened, checkpointer::giveSpaceBack);
    this.reader = new StoreReader(file);
  }

  public Path file() {
    return file;
  }

  /**
   * From now on the loop running on {@code thread} owns the store: operations submitted on that
   * thread wait for its {@link #commitPass}, and those submitted elsewhere are handed to it with
   * {@code executor}, which must run them on that thread. The WAL is copied into the database by a
   * thread of its own from now on ({@link WalCheckpointer}).
   */
  public void attach(Thread thread, Executor executor) {
    checkpointer.start();
    engine.attach(thread, executor);
  }

  /** Runs {@code op} in the owning loop's next transaction; the future completes after its commit. */
  public <T> CompletableFuture<T> submit(Op<T> op) {
    return engine.submit(op);
  }

  /** Runs {@code op} and waits for its commit; never from the owning loop's thread, whose pass would wait on itself. */
  public <T> T call(Op<T> op) {
    return engine.call(op);
  }

  /**
   * Runs a read at once: on the owning loop's thread (or any thread before a loop attaches), on the
   * writer's connection. It sees everything committed and nothing of the current pass, whose
   * writes run at its end. For small reads a task needs before it can go on (a submit key).
   */
  public <T> T now(Op<T> op) {
    return engine.now(op);
  }

  /** Whether operations wait in the current pass (the owning loop's thread only). */
  public boolean hasPending() {
    return engine.hasPending();
  }

  /**
   * Commits the pass: runs its operations in one transaction (several if there are more than
   * {@link CommitEngine#BATCH}), then completes their futures, here, on the owning loop's thread.
   * Operations the completions submit are committed too, in later transactions of the same call:
   * when it returns, every operation submitted on the loop's thread is durable or has failed.
   */
  public void commitPass() {
    engine.commitPass();
  }

  /**
   * Runs {@code op} on the reader's own connection and thread: for large reads of what is
   * committed (a job's pieces to merge, a stored result), which must not hold up the loop. The
   * future completes on the reader's thread.
   */
  public <T> CompletableFuture<T> read(Op<T> op) {
    return reader.read(op);
  }

  /** How many times the WAL was truncated after a full disk. */
  public long walTruncations() {
    return checkpointer.truncations();
  }

  /** Closes {@code c}, if any, logging a failure (the reader's and the checkpointer's connections). */
  static void closeQuietly(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        log.debug("closing a store connection failed: {}", e.getMessage());
      }
    }
  }

  /**
   * Marks a store whose folder this master made a moment ago, and that failed to start, to be deleted
   * with the folder at the close: its files while the folder's lock is still held, then the folder
   * if nothing else is in it by then.
   */
  public void deleteOnClose() {
    deleteOnClose = true;
  }

  /**
   * Closes the store. The owning loop must have stopped, after committing its last pass; operations
   * submitted after that fail.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    engine.refuse();
    reader.close();
    checkpointer.close();
    try {
      engine.close();
    } finally {
      Path dir = file.getParent();
      if (deleteOnClose) {
        // under the lock: no other master can have opened this folder's store meanwhile
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
          for (Path f : files.toList()) {
            Files.deleteIfExists(f);
          }
        } catch (java.io.IOException e) {
          log.warn("cannot remove the data folder {} this master made: {}", dir, e.toString(), e);
        }
      }
      lock.close();
      if (deleteOnClose) {
        try {
          Files.deleteIfExists(dir);
        } catch (java.io.IOException e) {
          // another master took the folder after the lock was released: it stays
          log.warn("cannot remove the data folder {} this master made: {}", dir, e.toString(), e);
        }
      }
    }
  }
}
