package dev.gleaner.master.store;

import dev.gleaner.master.store.Store.Op;
import java.util.List;
import java.util.Map;

/**
 * The operations on the {@code workers} table and its history: {@code worker_events} (what happened
 * to a worker, when) and {@code worker_sessions} (from its hello to its end, interrupted or not),
 * from which the estimator learns each worker's risk.
 */
public final class WorkerTable {
  private WorkerTable() {}

  /** A worker's past: interruptions, and seconds up over its ended sessions. */
  public record History(long interruptions, double exposureSeconds) {}

  /** A worker's session that ended: from, to (epoch ms), and whether an interruption ended it. */
  public record Session(String workerId, long startedAt, long endedAt, boolean interrupted) {}

  /** A worker said hello: its row, made or brought up to date. */
  public static Op<Void> workerSeen(String id, String host, int cores, long at) {
    return c -> {
      c.update("INSERT INTO workers(id, host, cores, first_seen, last_seen) VALUES (?,?,?,?,?) ON CONFLICT(id)"
          + " DO UPDATE SET host=excluded.host, cores=excluded.cores, last_seen=excluded.last_seen", id, host, cores,
          at, at);
      return null;
    };
  }

  /** Records an event in a worker's history; an "interrupted" event also counts in the worker row. */
  public static Op<Void> workerEvent(String id, long at, String kind, String detail) {
    return c -> {
      c.update("INSERT INTO worker_events(worker_id, at, kind, detail) VALUES (?,?,?,?)", id, at, kind, detail);
      if (kind.equals("interrupted")) {
        c.update("UPDATE workers SET interruptions = interruptions + 1 WHERE id=?", id);
      }
      return null;
    };
  }

  /** How many interruptions a worker's row counts (0 for a worker never seen). */
  public static Op<Integer> interruptions(String id) {
    return c -> {
      Integer n = c.one("SELECT interruptions FROM workers WHERE id=?", r -> r.getInt(1), id);
      return n == null ? 0 : n;
    };
  }

  /** A worker session starts; returns its row id. */
  public static Op<Long> sessionStarted(String workerId, long at) {
    return c -> {
      c.update("INSERT INTO worker_sessions(worker_id, started_at) VALUES (?,?)", workerId, at);
      return c.one("SELECT last_insert_rowid()", r -> r.getLong(1));
    };
  }

  /** The session ends, interrupted or not. */
  public static Op<Void> sessionEnded(long sessionRow, long at, boolean interrupted) {
    return c -> {
      c.update("UPDATE worker_sessions SET ended_at=?, interrupted=? WHERE id=?", at, interrupted, sessionRow);
      return null;
    };
  }

  /**
   * The worker's history from its ended sessions; a session the master never saw end (it stopped
   * first) counts up to the worker's last sign of life and not as an interruption.
   */
  public static Op<History> history(String workerId) {
    return c -> c.one("SELECT COALESCE(SUM(interrupted), 0), COALESCE(SUM(ended_at - started_at), 0)"
        + " FROM worker_sessions WHERE worker_id=? AND ended_at IS NOT NULL",
        r -> new History(r.getLong(1), Math.max(0, r.getLong(2)) / 1000.0), workerId);
  }

  /** Every worker's history, as {@link #history} gives it. */
  public static Op<Map<String, History>> histories() {
    return c -> {
      Map<String, History> out = new java.util.HashMap<>();
      for (var e : c.query("SELECT worker_id, COALESCE(SUM(interrupted), 0), COALESCE(SUM(ended_at - started_at), 0)"
          + " FROM worker_sessions WHERE ended_at IS NOT NULL GROUP BY worker_id",
          r -> new java.util.AbstractMap.SimpleImmutableEntry<>(r.getString(1),
              new History(r.getLong(2), Math.max(0, r.getLong(3)) / 1000.0)))) {
        out.put(e.getKey(), e.getValue());
      }
      return out;
    };
  }

  /** The ended sessions that ended at or after {@code sinceMillis}, oldest first. */
  public static Op<List<Session>> sessions(long sinceMillis) {
    return c -> c.query("SELECT worker_id, started_at, ended_at, COALESCE(interrupted, 0) FROM worker_sessions"
        + " WHERE ended_at IS NOT NULL AND ended_at >= started_at AND ended_at >= ? ORDER BY id",
        r -> new Session(r.getString(1), r.getLong(2), r.getLong(3), r.getInt(4) != 0), sinceMillis);
  }
}
