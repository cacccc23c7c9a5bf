package dev.gleaner.master.store;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

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
