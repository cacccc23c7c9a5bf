package dev.gleaner.master.store;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's durable state in one SQLite file: jobs, chunks, committed pieces, workers and their
 * interruption history.
 *
 * <p>How: one thread owns the connection. Callers hand it operations and get a future; the thread
 * takes whatever is queued (up to {@link #BATCH} operations), runs them in one transaction and
 * completes the futures only after the commit returns (group commit). So a piece is durable before
 * anyone acknowledges it, yet thousands of pieces per second cost a handful of fsyncs. Pieces are
 * keyed by (job, start, end) and inserted with {@code INSERT OR IGNORE}: a retransmitted piece
 * changes nothing.
 */
public final class Store implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Store.class);
  static final int BATCH = 2048;

  /** Work done on the store thread inside a transaction. */
  @FunctionalInterface
  public interface Op<T> {
    T run(Tx tx) throws SQLException;
  }

  /** The store thread's connection, with prepared statements kept for reuse. */
  public static final class Tx {
    private final Connection connection;
    private final java.util.Map<String, PreparedStatement> statements = new java.util.HashMap<>();

    Tx(Connection connection) {
      this.connection = connection;
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
  private final BlockingQueue<Pending<?>> queue = new ArrayBlockingQueue<>(1 << 16);
  private final Thread thread;
  private volatile boolean closing;
  /** Set when a close stops waiting for the queue: the thread ends after the batch under way. */
  private volatile boolean abandoning;

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
      opened = DriverManager.getConnection("jdbc:sqlite:" + file);
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
        // a check's result that disagreed with the committed one, kept for the tie-break
        s.execute("CREATE TABLE IF NOT EXISTS dissents(job_id TEXT, start INTEGER, end INTEGER, worker_id TEXT,"
            + " result BLOB, PRIMARY KEY(job_id, start, end))");
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
    thread = new Thread(this::loop, "gleaner-store");
    thread.setDaemon(true);
    thread.start();
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

  /** Runs {@code op} in the next transaction; the future completes after the commit. */
  public <T> CompletableFuture<T> submit(Op<T> op) {
    CompletableFuture<T> f = new CompletableFuture<>();
    if (closing) {
      f.completeExceptionally(new IllegalStateException("the store is closed"));
      return f;
    }
    try {
      queue.put(new Pending<>(op, f));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      f.completeExceptionally(e);
    }
    return f;
  }

  /** Runs {@code op} and waits for its commit. */
  public <T> T call(Op<T> op) {
    return submit(op).join();
  }

  private void loop() {
    List<Pending<?>> batch = new ArrayList<>(BATCH);
    while ((!closing || !queue.isEmpty()) && !abandoning) {
      try {
        Pending<?> first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        queue.drainTo(batch, BATCH - 1);
        runBatch(batch);
        tx.unbind();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        batch.clear();
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
        log.error("store operation failed: {}", e.getMessage(), e);
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
    p.future().complete((T) result);
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

  /** How long a close lets the store write what it was given before it drops the rest. */
  static final long DRAIN_MILLIS = 3_000;

  /**
   * Writes what was submitted, for {@link #DRAIN_MILLIS} at most, then fails what is left (its
   * callers were not told it was stored, so nothing acknowledged is lost), lets the transaction
   * under way end, and closes the database.
   */
  @Override
  public void close() {
    closing = true;
    try {
      thread.join(DRAIN_MILLIS);
      if (thread.isAlive()) {
        abandoning = true;
        // the batch under way commits or rolls back: SQLite is not closed under it
        thread.join(TimeUnit.SECONDS.toMillis(30));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    int dropped = 0;
    for (Pending<?> p; (p = queue.poll()) != null; dropped++) {
      p.future().completeExceptionally(new IllegalStateException("the store closed before this was written"));
    }
    if (dropped > 0) {
      log.warn("the store closed with {} operation(s) not written (none of them was acknowledged to anyone)", dropped);
    }
    try {
      connection.close();
    } catch (SQLException e) {
      log.warn("closing the store failed: {}", e.getMessage(), e);
    } finally {
      lock.close();
    }
  }

  // ---- operations used by the master; each runs on the store thread ----

  /** A job a submit key names: its id and the spec it was submitted with. */
  public record KeyedJob(String id, byte[] spec) {}

  /** The job a submit key names, or null. */
  public static Op<KeyedJob> jobByKey(String key) {
    return c -> {
      PreparedStatement q = c.prepare("SELECT id, spec FROM jobs WHERE submit_key=?");
      q.setString(1, key);
      try (ResultSet r = q.executeQuery()) {
        return r.next() ? new KeyedJob(r.getString(1), r.getBytes(2)) : null;
      }
    };
  }

  /** Records the submit key of a job. */
  public static Op<Void> jobKey(String id, String key) {
    return c -> {
      PreparedStatement u = c.prepare("UPDATE jobs SET submit_key=? WHERE id=?");
      u.setString(1, key);
      u.setString(2, id);
      u.executeUpdate();
      return null;
    };
  }

  public static Op<Void> insertJob(JobRecord job) {
    return c -> {
      {
        PreparedStatement p = c.prepare("INSERT INTO jobs(id, seq, name, workload, spec, state,"
          + " range_start, range_end, strategy, submitted_at, not_done) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
        p.setString(1, job.id());
        p.setLong(2, job.seq());
        p.setString(3, job.name());
        p.setString(4, job.workload());
        p.setBytes(5, job.spec());
        p.setString(6, job.state());
        p.setLong(7, job.start());
        p.setLong(8, job.end());
        p.setString(9, job.strategy());
        p.setLong(10, job.submittedAt());
        p.setString(11, job.notDone());
        p.executeUpdate();
      }
      return null;
    };
  }

  /** Drops an ended job: its row, pieces, chunks and kept dissents; returns the rows deleted. */
  public static Op<Integer> forgetJob(String id) {
    return c -> {
      int rows = 0;
      for (String sql : new String[] {"DELETE FROM pieces WHERE job_id=?", "DELETE FROM chunks WHERE job_id=?",
          "DELETE FROM dissents WHERE job_id=?", "DELETE FROM jobs WHERE id=?"}) {
        PreparedStatement p = c.prepare(sql);
        p.setString(1, id);
        rows += p.executeUpdate();
      }
      return rows;
    };
  }

  /** A running job's memories (null: unchanged), to give back to its controller after a restart. */
  public static Op<Void> rememberJob(String id, String plan, String checks) {
    return c -> {
      PreparedStatement p = c.prepare("UPDATE jobs SET plan_memory=COALESCE(?, plan_memory),"
          + " checks_memory=COALESCE(?, checks_memory) WHERE id=?");
      p.setString(1, plan);
      p.setString(2, checks);
      p.setString(3, id);
      p.executeUpdate();
      return null;
    };
  }

  /** A job's memories as last stored: {plan, checks}, each null if none. */
  public static Op<String[]> jobMemory(String id) {
    return c -> {
      PreparedStatement p = c.prepare("SELECT plan_memory, checks_memory FROM jobs WHERE id=?");
      p.setString(1, id);
      try (ResultSet r = p.executeQuery()) {
        return r.next() ? new String[] {r.getString(1), r.getString(2)} : new String[2];
      }
    };
  }

  public static Op<Void> updateJob(String id, String state, String strategy, Long finishedAt, byte[] result, String message) {
    return c -> {
      {
        PreparedStatement p = c.prepare("UPDATE jobs SET state=?, strategy=COALESCE(?, strategy),"
          + " finished_at=COALESCE(?, finished_at), result=COALESCE(?, result), message=COALESCE(?, message) WHERE id=?");
        p.setString(1, state);
        p.setString(2, strategy);
        if (finishedAt == null) {
          p.setNull(3, java.sql.Types.INTEGER);
        } else {
          p.setLong(3, finishedAt);
        }
        p.setBytes(4, result);
        p.setString(5, message);
        p.setString(6, id);
        p.executeUpdate();
      }
      return null;
    };
  }

  public static Op<Void> upsertChunk(String jobId, long chunkId, long start, long end, String workerId, String state) {
    return c -> {
      {
        PreparedStatement p = c.prepare("INSERT INTO chunks(job_id, chunk_id, start, end, worker_id, state)"
          + " VALUES (?,?,?,?,?,?) ON CONFLICT(job_id, chunk_id) DO UPDATE SET worker_id=excluded.worker_id, state=excluded.state");
        p.setString(1, jobId);
        p.setLong(2, chunkId);
        p.setLong(3, start);
        p.setLong(4, end);
        p.setString(5, workerId);
        p.setString(6, state);
        p.executeUpdate();
      }
      return null;
    };
  }

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

  /** A chunk was handed out (recorded before it is sent). */
  public static Op<Void> assigned(String jobId, long chunkId, String workerId, long start, long end, long[] checkpoints,
      long leaseMs, long at) {
    return c -> {
      PreparedStatement p = c.prepare("INSERT INTO chunks(job_id, chunk_id, start, end, worker_id, state, checkpoints,"
          + " lease_ms, assigned_at) VALUES (?,?,?,?,?,'ASSIGNED',?,?,?)");
      p.setString(1, jobId);
      p.setLong(2, chunkId);
      p.setLong(3, start);
      p.setLong(4, end);
      p.setString(5, workerId);
      StringBuilder cps = new StringBuilder();
      for (long k : checkpoints) {
        cps.append(cps.length() == 0 ? "" : ",").append(k);
      }
      p.setString(6, cps.toString());
      p.setLong(7, leaseMs);
      p.setLong(8, at);
      p.executeUpdate();
      return null;
    };
  }

  /** The chunk now ends at {@code end} (its tail went to another worker). */
  public static Op<Void> truncated(String jobId, long chunkId, long end) {
    return c -> {
      PreparedStatement p = c.prepare("UPDATE chunks SET end=MIN(end, ?) WHERE job_id=? AND chunk_id=?");
      p.setLong(1, end);
      p.setString(2, jobId);
      p.setLong(3, chunkId);
      p.executeUpdate();
      return null;
    };
  }

  /** The chunk no longer stands (cancelled, or its worker's work went to others). */
  public static Op<Void> chunkEnded(String jobId, long chunkId, String state) {
    return c -> {
      PreparedStatement p = c.prepare("UPDATE chunks SET state=? WHERE job_id=? AND chunk_id=? AND state='ASSIGNED'");
      p.setString(1, state);
      p.setString(2, jobId);
      p.setLong(3, chunkId);
      p.executeUpdate();
      return null;
    };
  }

  /**
   * The chunks of a job that were handed out and still stand, each with the end of its committed
   * pieces (its start if none).
   */
  public static Op<List<dev.gleaner.common.control.Held>> handedOut(String jobId) {
    return c -> {
      List<dev.gleaner.common.control.Held> out = new ArrayList<>();
      PreparedStatement p = c.prepare("SELECT k.worker_id, k.chunk_id, k.start, k.end, k.checkpoints,"
          + " (SELECT MAX(end) FROM pieces WHERE job_id=k.job_id AND chunk_id=k.chunk_id)"
          + " FROM chunks k WHERE k.job_id=? AND k.state='ASSIGNED' ORDER BY k.chunk_id");
      p.setString(1, jobId);
      try (ResultSet r = p.executeQuery()) {
        while (r.next()) {
          long start = r.getLong(3);
          long end = r.getLong(4);
          long acked = r.getLong(6);
          acked = r.wasNull() ? start : Math.max(start, Math.min(end, acked));
          String cps = r.getString(5);
          long[] checkpoints = cps == null || cps.isEmpty() ? new long[0]
              : java.util.Arrays.stream(cps.split(",")).mapToLong(Long::parseLong).filter(k -> k > start && k < end)
                  .toArray();
          if (end > start) {
            out.add(new dev.gleaner.common.control.Held(r.getString(1), jobId, r.getLong(2), start, end, acked,
                checkpoints));
          }
        }
      }
      return out;
    };
  }

  /**
   * Inserts a piece unless the same range is already committed; returns whether it was new. The
   * piece that ends its chunk also records the chunk, so chunk ids are not reused after a restart.
   */
  public static Op<Boolean> commitPiece(String jobId, long chunkId, long start, long end, boolean last,
      String workerId, byte[] result, long at) {
    return c -> {
      if (last) {
        upsertChunk(jobId, chunkId, start, end, workerId, "DONE").run(c);
      }
      PreparedStatement p = c.prepare("INSERT OR IGNORE INTO pieces(job_id, chunk_id, start, end,"
          + " worker_id, result, committed_at) VALUES (?,?,?,?,?,?,?)");
      p.setString(1, jobId);
      p.setLong(2, chunkId);
      p.setLong(3, start);
      p.setLong(4, end);
      p.setString(5, workerId);
      p.setBytes(6, result);
      p.setLong(7, at);
      return p.executeUpdate() == 1;
    };
  }

  /**
   * Compares a check's result with the committed piece of the same range; for a tie-break, also with
   * the dissent kept before, and replaces the committed result when the two agree against it.
   * Returns {agrees with the committed result, agrees with the dissent}.
   */
  public static Op<boolean[]> compareCheck(String jobId, long start, long end, String workerId, byte[] result,
      boolean tieBreak) {
    return c -> {
      PreparedStatement q = c.prepare("SELECT result FROM pieces WHERE job_id=? AND start=? AND end=?");
      q.setString(1, jobId);
      q.setLong(2, start);
      q.setLong(3, end);
      byte[] committed;
      try (ResultSet r = q.executeQuery()) {
        committed = r.next() ? r.getBytes(1) : null;
      }
      boolean agrees = committed != null && java.util.Arrays.equals(committed, result);
      if (agrees) {
        return new boolean[] {true, false};
      }
      if (!tieBreak) {
        PreparedStatement d = c.prepare("INSERT OR REPLACE INTO dissents(job_id, start, end, worker_id, result)"
            + " VALUES (?,?,?,?,?)");
        d.setString(1, jobId);
        d.setLong(2, start);
        d.setLong(3, end);
        d.setString(4, workerId);
        d.setBytes(5, result);
        d.executeUpdate();
        return new boolean[] {false, false};
      }
      PreparedStatement d = c.prepare("SELECT result FROM dissents WHERE job_id=? AND start=? AND end=?");
      d.setString(1, jobId);
      d.setLong(2, start);
      d.setLong(3, end);
      byte[] dissent;
      try (ResultSet r = d.executeQuery()) {
        dissent = r.next() ? r.getBytes(1) : null;
      }
      boolean withDissent = dissent != null && java.util.Arrays.equals(dissent, result);
      if (withDissent) {
        PreparedStatement u = c.prepare("UPDATE pieces SET result=?, worker_id=? WHERE job_id=? AND start=? AND end=?");
        u.setBytes(1, result);
        u.setString(2, workerId);
        u.setString(3, jobId);
        u.setLong(4, start);
        u.setLong(5, end);
        u.executeUpdate();
      }
      return new boolean[] {false, withDissent};
    };
  }

  /** Copies another job's committed pieces into a job (a job resuming one that ended at its deadline). */
  public static Op<Integer> copyPieces(String fromJob, String toJob) {
    return c -> {
      PreparedStatement p = c.prepare("INSERT OR IGNORE INTO pieces(job_id, chunk_id, start, end, worker_id, result,"
          + " committed_at) SELECT ?, 0, start, end, worker_id, result, committed_at FROM pieces WHERE job_id=?");
      p.setString(1, toJob);
      p.setString(2, fromJob);
      return p.executeUpdate();
    };
  }

  /** Committed pieces of a job in unit order. */
  public static Op<List<PieceRecord>> pieces(String jobId) {
    return c -> {
      List<PieceRecord> out = new ArrayList<>();
      {
        PreparedStatement p = c.prepare("SELECT chunk_id, start, end, worker_id, result FROM pieces"
          + " WHERE job_id=? ORDER BY start");
        p.setString(1, jobId);
        try (ResultSet r = p.executeQuery()) {
          while (r.next()) {
            out.add(new PieceRecord(r.getLong(1), r.getLong(2), r.getLong(3), r.getString(4), r.getBytes(5)));
          }
        }
      }
      return out;
    };
  }

  /** The merged result stored with a job; null when it has none. */
  public static Op<byte[]> jobResult(String jobId) {
    return c -> {
      PreparedStatement p = c.prepare("SELECT result FROM jobs WHERE id=?");
      p.setString(1, jobId);
      try (ResultSet r = p.executeQuery()) {
        return r.next() ? r.getBytes(1) : null;
      }
    };
  }

  public static Op<List<JobRecord>> jobs() {
    return c -> {
      List<JobRecord> out = new ArrayList<>();
      try (Statement s = c.statement();
           ResultSet r = s.executeQuery("SELECT id, seq, name, workload, spec, state, range_start, range_end, strategy,"
               + " submitted_at, finished_at, result, message, not_done FROM jobs ORDER BY seq")) {
        while (r.next()) {
          long finished = r.getLong(11);
          out.add(new JobRecord(r.getString(1), r.getLong(2), r.getString(3), r.getString(4), r.getBytes(5),
              r.getString(6), r.getLong(7), r.getLong(8), r.getString(9), r.getLong(10),
              r.wasNull() ? 0 : finished, r.getBytes(12), r.getString(13), r.getString(14)));
        }
      }
      return out;
    };
  }

  public static Op<Long> maxChunkId(String jobId) {
    return c -> {
      {
        PreparedStatement p = c.prepare("SELECT MAX((SELECT COALESCE(MAX(chunk_id), 0) FROM chunks WHERE job_id=?),"
            + " (SELECT COALESCE(MAX(chunk_id), 0) FROM pieces WHERE job_id=?))");
        p.setString(1, jobId);
        p.setString(2, jobId);
        try (ResultSet r = p.executeQuery()) {
          r.next();
          return r.getLong(1);
        }
      }
    };
  }

  public static Op<Void> workerSeen(String id, String host, int cores, long at) {
    return c -> {
      {
        PreparedStatement p = c.prepare("INSERT INTO workers(id, host, cores, first_seen, last_seen)"
          + " VALUES (?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET host=excluded.host, cores=excluded.cores,"
          + " last_seen=excluded.last_seen");
        p.setString(1, id);
        p.setString(2, host);
        p.setInt(3, cores);
        p.setLong(4, at);
        p.setLong(5, at);
        p.executeUpdate();
      }
      return null;
    };
  }

  /** Records an event in a worker's history; an "interrupted" event also counts in the worker row. */
  public static Op<Void> workerEvent(String id, long at, String kind, String detail) {
    return c -> {
      {
        PreparedStatement p = c.prepare("INSERT INTO worker_events(worker_id, at, kind, detail) VALUES (?,?,?,?)");
        p.setString(1, id);
        p.setLong(2, at);
        p.setString(3, kind);
        p.setString(4, detail);
        p.executeUpdate();
      }
      if (kind.equals("interrupted")) {
        {
        PreparedStatement p = c.prepare("UPDATE workers SET interruptions = interruptions + 1 WHERE id=?");
          p.setString(1, id);
          p.executeUpdate();
        }
      }
      return null;
    };
  }

  public static Op<Integer> interruptions(String id) {
    return c -> {
      {
        PreparedStatement p = c.prepare("SELECT interruptions FROM workers WHERE id=?");
        p.setString(1, id);
        try (ResultSet r = p.executeQuery()) {
          return r.next() ? r.getInt(1) : 0;
        }
      }
    };
  }

  /** A row of the jobs table. */
  public record JobRecord(String id, long seq, String name, String workload, byte[] spec, String state, long start,
      long end, String strategy, long submittedAt, long finishedAt, byte[] result, String message, String notDone) {}

  /** A committed piece. */
  public record PieceRecord(long chunkId, long start, long end, String workerId, byte[] result) {}

  /** A worker's past: interruptions, and seconds up over its ended sessions. */
  public record History(long interruptions, double exposureSeconds) {}

  /** A worker session starts; returns its row id. */
  public static Op<Long> sessionStarted(String workerId, long at) {
    return c -> {
      PreparedStatement p = c.prepare("INSERT INTO worker_sessions(worker_id, started_at) VALUES (?,?)");
      p.setString(1, workerId);
      p.setLong(2, at);
      p.executeUpdate();
      try (Statement st = c.statement(); ResultSet r = st.executeQuery("SELECT last_insert_rowid()")) {
        r.next();
        return r.getLong(1);
      }
    };
  }

  /** The session ends, interrupted or not. */
  public static Op<Void> sessionEnded(long sessionRow, long at, boolean interrupted) {
    return c -> {
      PreparedStatement p = c.prepare("UPDATE worker_sessions SET ended_at=?, interrupted=? WHERE id=?");
      p.setLong(1, at);
      p.setInt(2, interrupted ? 1 : 0);
      p.setLong(3, sessionRow);
      p.executeUpdate();
      return null;
    };
  }

  /**
   * The worker's history from its ended sessions; a session the master never saw end (it stopped
   * first) counts up to the worker's last sign of life and not as an interruption.
   */
  public static Op<History> history(String workerId) {
    return c -> {
      PreparedStatement p = c.prepare("SELECT COALESCE(SUM(interrupted), 0), COALESCE(SUM(ended_at - started_at), 0)"
          + " FROM worker_sessions WHERE worker_id=? AND ended_at IS NOT NULL");
      p.setString(1, workerId);
      try (ResultSet r = p.executeQuery()) {
        r.next();
        return new History(r.getLong(1), Math.max(0, r.getLong(2)) / 1000.0);
      }
    };
  }

  /** A worker's session that ended: from, to (epoch ms), and whether an interruption ended it. */
  public record Session(String workerId, long startedAt, long endedAt, boolean interrupted) {}

  /** The ended sessions that ended at or after {@code sinceMillis}, oldest first. */
  public static Op<java.util.List<Session>> sessions(long sinceMillis) {
    return c -> {
      java.util.List<Session> out = new java.util.ArrayList<>();
      PreparedStatement p = c.prepare("SELECT worker_id, started_at, ended_at, COALESCE(interrupted, 0)"
          + " FROM worker_sessions WHERE ended_at IS NOT NULL AND ended_at >= started_at AND ended_at >= ? ORDER BY id");
      p.setLong(1, sinceMillis);
      try (ResultSet r = p.executeQuery()) {
        while (r.next()) {
          out.add(new Session(r.getString(1), r.getLong(2), r.getLong(3), r.getInt(4) != 0));
        }
      }
      return out;
    };
  }

  /** Every worker's history, as {@link #history} gives it. */
  public static Op<java.util.Map<String, History>> histories() {
    return c -> {
      java.util.Map<String, History> out = new java.util.HashMap<>();
      try (Statement st = c.statement();
           ResultSet r = st.executeQuery("SELECT worker_id, COALESCE(SUM(interrupted), 0),"
               + " COALESCE(SUM(ended_at - started_at), 0) FROM worker_sessions WHERE ended_at IS NOT NULL"
               + " GROUP BY worker_id")) {
        while (r.next()) {
          out.put(r.getString(1), new History(r.getLong(2), Math.max(0, r.getLong(3)) / 1000.0));
        }
      }
      return out;
    };
  }

  /** The job ended at its deadline: what was not done, as people write ranges. */
  public static Op<Void> jobNotDone(String id, String notDone) {
    return c -> {
      PreparedStatement p = c.prepare("UPDATE jobs SET not_done=? WHERE id=?");
      p.setString(1, notDone);
      p.setString(2, id);
      p.executeUpdate();
      return null;
    };
  }
}
