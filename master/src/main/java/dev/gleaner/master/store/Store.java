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
import java.util.concurrent.TimeUnit;
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
 * the batch, then send what depends on it). So a piece is durable before anyone acknowledges it,
 * the chunk record before its Assign, and whatever one pass produced costs one fsync. An operation
 * submitted from another thread is handed to the loop and joins its next pass. Until a loop
 * {@link #attach}es, operations run at once on the caller's thread, each in its own transaction
 * (the master's start, tests, tools). Large reads that need nothing uncommitted go to
 * {@link #read}, which runs them on a reader thread of its own connection (SQLite's WAL lets it
 * read while the loop writes). Pieces are keyed by (job, start, end) and inserted with
 * {@code INSERT OR IGNORE}: a retransmitted piece changes nothing.
 */
public final class Store implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Store.class);
  /** The most operations one transaction takes; a pass with more commits in several. */
  static final int BATCH = 4096;

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

    /** Runs a statement that returns no rows (INSERT, UPDATE, DELETE) with {@code values}; returns the rows it changed. */
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
        throw new IllegalArgumentException("the statement takes " + wanted + " values, given " + vs.length + ": " + sql);
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
        } else if (v instanceof Boolean b) {
          p.setInt(i + 1, b ? 1 : 0);
        } else if (v instanceof byte[] b) {
          p.setBytes(i + 1, b);
        } else {
          throw new IllegalArgumentException("value " + (i + 1) + " is a " + v.getClass().getName()
              + ", which the store does not bind (String, Long, Integer, Boolean, byte[] or null): " + sql);
        }
      }
      return p;
    }

    PreparedStatement prepare(String sql) throws SQLException {
      PreparedStatement p = statements.get(sql);
      if (p == null) {
        p = connection.prepareStatement(sql);
        statements.put(sql, p);
      }
      p.clearParameters();
      return p;
    }

    Statement statement() throws SQLException {
      return connection.createStatement();
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

  private record Pending<T>(Op<T> op, CompletableFuture<T> future) {}

  private final Path file;
  private final DataDirLock lock;
  private final Connection connection;
  private final Tx tx;
  /** Operations of the loop's current pass, in the order submitted (the loop's thread only). */
  private final List<Pending<?>> pass = new ArrayList<>();
  /** The loop that owns the store, once attached: its thread, and how to hand it work. */
  private volatile Thread owner;
  private volatile java.util.concurrent.Executor ownerExecutor;
  private volatile boolean closing;
  /** Delete the data folder at the close (see {@link #deleteOnClose}). */
  private volatile boolean deleteOnClose;
  /** Copies the WAL into the database once a second, on its own thread and connection (see {@link #attach}). */
  private java.util.concurrent.ScheduledExecutorService checkpointer;
  private Connection checkpointConnection;
  /** The reader: its own connection on its own thread, opened at the first {@link #read}. */
  private java.util.concurrent.ExecutorService reader;
  private Connection readConnection;
  private Tx readTx;

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
      this.connection = opened;
      try (Statement s = connection.createStatement()) {
        s.execute("PRAGMA journal_mode=WAL");
        s.execute("PRAGMA synchronous=FULL");
        s.execute("PRAGMA busy_timeout=5000");
        s.execute("CREATE TABLE IF NOT EXISTS jobs(id TEXT PRIMARY KEY, seq INTEGER, name TEXT, workload TEXT,"
            + " spec BLOB, state TEXT, range_start INTEGER, range_end INTEGER, strategy TEXT,"
            + " submitted_at INTEGER, finished_at INTEGER, result BLOB, message TEXT)");
        s.execute("CREATE TABLE IF NOT EXISTS chunks(job_id TEXT, chunk_id INTEGER, start INTEGER, end INTEGER,"
            + " worker_id TEXT, state TEXT, PRIMARY KEY(job_id, chunk_id))");
        s.execute("CREATE TABLE IF NOT EXISTS pieces(job_id TEXT, chunk_id INTEGER, start INTEGER, end INTEGER,"
            + " worker_id TEXT, result BLOB, committed_at INTEGER, PRIMARY KEY(job_id, start, end))");
        s.execute("CREATE TABLE IF NOT EXISTS workers(id TEXT PRIMARY KEY, host TEXT, cores INTEGER,"
            + " first_seen INTEGER, last_seen INTEGER, interruptions INTEGER DEFAULT 0)");
        s.execute("CREATE TABLE IF NOT EXISTS worker_events(worker_id TEXT, at INTEGER, kind TEXT, detail TEXT)");
        s.execute("CREATE TABLE IF NOT EXISTS worker_sessions(id INTEGER PRIMARY KEY AUTOINCREMENT, worker_id TEXT,"
            + " started_at INTEGER, ended_at INTEGER, interrupted INTEGER)");
        addColumn(s, "jobs", "not_done", "TEXT");
        // every chunk handed out is recorded before it is sent: ids are never reused, and a restarted
        // master knows which worker holds what (state ASSIGNED) and under which lease
        addColumn(s, "chunks", "checkpoints", "TEXT");
        addColumn(s, "chunks", "lease_ms", "INTEGER");
        addColumn(s, "chunks", "assigned_at", "INTEGER");
        addColumn(s, "jobs", "submit_key", "TEXT");
        // what a running job's controller keeps across restarts: its plan (recovery scheme, homes) and
        // its verification (checks picked, mismatches); see JobMemory
        addColumn(s, "jobs", "plan_memory", "TEXT");
        addColumn(s, "jobs", "checks_memory", "TEXT");
        // why a job still running was cancelled: a master restarted before it ended ends it at once
        addColumn(s, "jobs", "cancel_reason", "TEXT");
        // a check's result that disagreed with the committed one, kept for the tie-break
        s.execute("CREATE TABLE IF NOT EXISTS dissents(job_id TEXT, start INTEGER, end INTEGER, worker_id TEXT,"
            + " result BLOB, PRIMARY KEY(job_id, start, end))");
        // revoked token ids: their generations below next_generation log in no more
        s.execute("CREATE TABLE IF NOT EXISTS revocations(role TEXT, id TEXT, next_generation INTEGER, at INTEGER,"
            + " by TEXT, reason TEXT, PRIMARY KEY(role, id))");
        s.execute("CREATE UNIQUE INDEX IF NOT EXISTS jobs_by_key ON jobs(submit_key) WHERE submit_key IS NOT NULL");
      }
      connection.setAutoCommit(false);
      tx = new Tx(connection);
    } catch (SQLException e) {
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
  }

  /** Adds a column that an older store lacks. */
  private static void addColumn(Statement s, String table, String column, String type) throws SQLException {
    try (ResultSet r = s.executeQuery("PRAGMA table_info(" + table + ")")) {
      while (r.next()) {
        if (r.getString("name").equals(column)) {
          return;
        }
      }
    }
    s.execute("ALTER TABLE " + table + " ADD COLUMN " + column + " " + type);
  }

  public Path file() {
    return file;
  }

  /**
   * From now on the loop running on {@code thread} owns the store: operations submitted on that
   * thread wait for its {@link #commitPass}, and those submitted elsewhere are handed to it with
   * {@code executor}, which must run them on that thread.
   */
  public void attach(Thread thread, java.util.concurrent.Executor executor) {
    synchronized (this) {
      // the WAL is copied into the database by a thread of its own: a checkpoint fsyncs the database
      // file, and run inside a pass's commit (SQLite's default, every 1000 pages) it held that pass,
      // and every reply waiting on it, for tens of milliseconds
      try (Statement st = connection.createStatement()) {
        st.execute("PRAGMA wal_autocheckpoint=0");
        connection.commit();
      } catch (SQLException e) {
        log.warn("the store checkpoints in its commits: cannot turn that off: {}", e.getMessage(), e);
      }
      checkpointer = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(t -> {
        Thread th = new Thread(t, "gleaner-store-checkpoint");
        th.setDaemon(true);
        return th;
      });
      checkpointer.scheduleWithFixedDelay(this::checkpoint, CHECKPOINT_MILLIS, CHECKPOINT_MILLIS, TimeUnit.MILLISECONDS);
      this.ownerExecutor = executor;
      this.owner = thread;
    }
  }

  /** How often the WAL is copied into the database. */
  static final long CHECKPOINT_MILLIS = 1000;

  /**
   * Copies what the WAL holds into the database, without holding up the writer (a passive
   * checkpoint: it copies what no reader still needs, and the WAL starts over once all of it is in).
   */
  private void checkpoint() {
    checkpoint("PASSIVE");
  }

  /** A checkpoint of {@code mode} (PASSIVE, or TRUNCATE after a full disk). */
  private void checkpoint(String mode) {
    try {
      if (checkpointConnection == null) {
        org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
        config.setBusyTimeout(5000);
        config.setGetGeneratedKeys(false);
        checkpointConnection = config.createConnection("jdbc:sqlite:" + file);
      }
      try (Statement st = checkpointConnection.createStatement();
           ResultSet r = st.executeQuery("PRAGMA wal_checkpoint(" + mode + ")")) {
        if (r.next() && r.getInt(1) != 0) {
          log.debug("a checkpoint of the store was busy; the next one tries again");
        } else if (mode.equals("TRUNCATE")) {
          walTruncations.incrementAndGet();
          log.warn("the disk holding the store is full: its WAL was copied into the database and truncated, to give"
              + " back the space it held; writes are tried again as they come");
        }
      }
    } catch (SQLException | RuntimeException e) {
      if (!closing && checkpoints.allow()) {
        log.warn("copying the store's WAL into its database failed (tried again each second): {}", e.getMessage(), e);
      }
      closeQuietly(checkpointConnection);
      checkpointConnection = null;
    }
  }

  /** Failed writes: a line per 10 s at most, and the count of the rest (see {@link ProblemLog}). */
  private final ProblemLog writeFailures = new ProblemLog(log, System::nanoTime);
  /** WAL truncations after a full disk: at most one a second. */
  private final RateLimit walTruncationsAsked = new RateLimit(1, 1000);
  /** How many times the WAL was truncated after a full disk (for tests and the log). */
  private final java.util.concurrent.atomic.AtomicLong walTruncations = new java.util.concurrent.atomic.AtomicLong();

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
   * The disk is full: the WAL is copied into the database and truncated to nothing (at most once a
   * second), on the checkpoint thread, so that the space its old frames hold is given back instead of
   * being kept by the WAL (on a small disk the WAL took the space a failed write freed, and the
   * master never recovered).
   */
  private void giveWalSpaceBack() {
    java.util.concurrent.ScheduledExecutorService c = checkpointer;
    if (c == null || closing || !walTruncationsAsked.allow()) {
      return;
    }
    try {
      c.execute(() -> checkpoint("TRUNCATE"));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      log.debug("the store is closing: no WAL truncation", e);
    }
  }

  /** How many times the WAL was truncated after a full disk. */
  public long walTruncations() {
    return walTruncations.get();
  }

  /** Failed checkpoints logged at most 3 per minute: a full disk must not flood the log. */
  private final RateLimit checkpoints = new RateLimit(3, 60_000);

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

  /** Runs {@code op} in the owning loop's next transaction; the future completes after its commit. */
  public <T> CompletableFuture<T> submit(Op<T> op) {
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
    } catch (java.util.concurrent.RejectedExecutionException e) {
      f.completeExceptionally(new IllegalStateException("the store is closed", e));
    }
    return f;
  }

  /** Runs {@code op} and waits for its commit; never from the owning loop's thread, whose pass would wait on itself. */
  public <T> T call(Op<T> op) {
    if (Thread.currentThread() == owner) {
      throw new IllegalStateException("Store.call on the loop's own thread would wait for its own pass");
    }
    return submit(op).join();
  }

  /**
   * Runs a read at once: on the owning loop's thread (or any thread before a loop attaches), on the
   * writer's connection. It sees everything committed and nothing of the current pass, whose
   * writes run at its end. For small reads a task needs before it can go on (a submit key).
   */
  public <T> T now(Op<T> op) {
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
  public boolean hasPending() {
    return !pass.isEmpty();
  }

  /**
   * Commits the pass: runs its operations in one transaction (several if there are more than
   * {@link #BATCH}), then completes their futures, here, on the owning loop's thread. Operations
   * the completions submit wait for the next pass.
   */
  public void commitPass() {
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
      runBatch(batch);
      tx.unbind();
    }
  }

  /**
   * Runs {@code op} on the reader's own connection and thread: for large reads of what is
   * committed (a job's pieces to merge, a stored result), which must not hold up the loop. The
   * future completes on the reader's thread.
   */
  public <T> CompletableFuture<T> read(Op<T> op) {
    CompletableFuture<T> f = new CompletableFuture<>();
    java.util.concurrent.ExecutorService r;
    synchronized (this) {
      if (closing) {
        f.completeExceptionally(new IllegalStateException("the store is closed"));
        return f;
      }
      if (reader == null) {
        reader = java.util.concurrent.Executors.newSingleThreadExecutor(t -> {
          Thread th = new Thread(t, "gleaner-store-read");
          th.setDaemon(true);
          return th;
        });
      }
      r = reader;
    }
    try {
      r.execute(() -> {
        try {
          if (readConnection == null) {
            org.sqlite.SQLiteConfig config = new org.sqlite.SQLiteConfig();
            config.setReadOnly(true);
            config.setBusyTimeout(5000);
            config.setGetGeneratedKeys(false);
            readConnection = config.createConnection("jdbc:sqlite:" + file);
            readTx = new Tx(readConnection);
          }
          T result = op.run(readTx);
          readTx.unbind();
          f.complete(result);
        } catch (SQLException | RuntimeException e) {
          log.error("store read failed: {}", e.getMessage(), e);
          readTx = null;
          closeQuietly(readConnection);
          readConnection = null;
          f.completeExceptionally(e);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      f.completeExceptionally(new IllegalStateException("the store is closed", e));
    }
    return f;
  }

  private static void closeQuietly(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        log.debug("closing a store connection failed: {}", e.getMessage());
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
          giveWalSpaceBack();
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
    java.util.concurrent.ExecutorService r;
    java.util.concurrent.ScheduledExecutorService c;
    synchronized (this) {
      if (closing) {
        return;
      }
      closing = true;
      r = reader;
      c = checkpointer;
    }
    if (c != null) {
      c.shutdown();
      try {
        if (!c.awaitTermination(3, TimeUnit.SECONDS)) {
          log.warn("a checkpoint of the store did not end within 3 s of the close");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      closeQuietly(checkpointConnection);
    }
    if (r != null) {
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
      closeQuietly(readConnection);
    }
    for (Pending<?> p : pass) {
      p.future().completeExceptionally(new IllegalStateException("the store is closed"));
    }
    pass.clear();
    synchronized (this) {
      try {
        connection.close();
      } catch (SQLException e) {
        log.warn("closing the store failed: {}", e.getMessage(), e);
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

  // ---- fault injection ----

  /**
   * Caps the database at {@code pages} pages (0: SQLite's default, no cap), so writes that need more
   * fail as on a full disk: fault injection for tests and chaos runs.
   */
  public static Op<Long> capPages(long pages) {
    return c -> {
      try (Statement st = c.statement()) {
        long now;
        try (ResultSet r = st.executeQuery("PRAGMA page_count")) {
          r.next();
          now = r.getLong(1);
        }
        st.execute("PRAGMA max_page_count = " + (pages <= 0 ? 1_073_741_823L : Math.max(now, pages)));
        return now;
      }
    };
  }
}
