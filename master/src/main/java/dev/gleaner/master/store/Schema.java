package dev.gleaner.master.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;

/**
 * The store's tables and every change made to them since the first, in the order they were made:
 * run at each open, it creates what a new store lacks and brings a store an older master wrote up to
 * date. Each step does nothing where it was done before.
 */
final class Schema {
  private Schema() {}

  /** Creates the tables a store lacks, then runs the migrations, in order. */
  static void apply(Statement s) throws SQLException {
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
    // master knows which worker holds what (state ASSIGNED), with which checkpoints and under which
    // lease (a store made when checkpoints were text declares their column TEXT, which keeps a blob as
    // it is)
    addColumn(s, "chunks", "checkpoints", "BLOB");
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
    // owners' weights in the fair share of the workers, as operators set them
    s.execute("CREATE TABLE IF NOT EXISTS shares(owner TEXT PRIMARY KEY, weight REAL)");
    s.execute("CREATE UNIQUE INDEX IF NOT EXISTS jobs_by_key ON jobs(submit_key) WHERE submit_key IS NOT NULL");
    // a chunk's checkpoints were a comma string ("12,40,77") and are data now (8-byte big-endian longs)
    checkpointsAsData(s.getConnection());
  }

  /** A chunk row an older master wrote: its checkpoints as text. */
  private record TextCheckpoints(String jobId, long chunkId, String text) {}

  /**
   * Rewrites the checkpoints an older master stored as text ("12,40,77") as data, all in one
   * transaction; a text that is not a list of numbers leaves the store as it was and is refused,
   * naming its chunk.
   */
  private static void checkpointsAsData(Connection c) throws SQLException {
    Store.Tx tx = new Store.Tx(c);
    try {
      List<TextCheckpoints> rows = tx.query("SELECT job_id, chunk_id, checkpoints FROM chunks WHERE"
          + " typeof(checkpoints)='text'", r -> new TextCheckpoints(r.getString(1), r.getLong(2), r.getString(3)));
      if (rows.isEmpty()) {
        return;
      }
      c.setAutoCommit(false);
      try {
        for (TextCheckpoints row : rows) {
          tx.update("UPDATE chunks SET checkpoints=? WHERE job_id=? AND chunk_id=?",
              ChunkTable.checkpointBytes(parse(row)), row.jobId(), row.chunkId());
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    } finally {
      tx.reset();
    }
  }

  private static long[] parse(TextCheckpoints row) throws SQLException {
    if (row.text().isEmpty()) {
      return new long[0];
    }
    try {
      return Arrays.stream(row.text().split(",")).mapToLong(Long::parseLong).toArray();
    } catch (NumberFormatException e) {
      throw new SQLException("chunk " + row.chunkId() + " of job " + row.jobId() + " has the checkpoints '"
          + row.text() + "' in the store, which are not a list of numbers", e);
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
}
