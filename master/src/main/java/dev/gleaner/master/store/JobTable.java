package dev.gleaner.master.store;

import dev.gleaner.common.control.JobPhase;
import dev.gleaner.master.store.Store.Op;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * The operations on the {@code jobs} table: a job's row from its submit to its end, its submit key,
 * the memories its controller keeps across a restart, and its forgetting.
 */
public final class JobTable {
  private JobTable() {}

  /** A row of the jobs table. */
  public record JobRecord(String id, long seq, String name, String workload, byte[] spec, JobPhase state, long start,
      long end, String strategy, long submittedAt, long finishedAt, byte[] result, String message, String notDone) {}

  /** A job a submit key names: its id and the spec it was submitted with. */
  public record KeyedJob(String id, byte[] spec) {}

  /** The job a submit key names, or null. */
  public static Op<KeyedJob> jobByKey(String key) {
    return c -> c.one("SELECT id, spec FROM jobs WHERE submit_key=?", r -> new KeyedJob(r.getString(1), r.getBytes(2)),
        key);
  }

  /** Records the submit key of a job. */
  public static Op<Void> jobKey(String id, String key) {
    return c -> {
      c.update("UPDATE jobs SET submit_key=? WHERE id=?", key, id);
      return null;
    };
  }

  /** A job submitted: its row (its result and end time come with its end). */
  public static Op<Void> insertJob(JobRecord job) {
    return c -> {
      c.update("INSERT INTO jobs(id, seq, name, workload, spec, state, range_start, range_end, strategy, submitted_at,"
          + " not_done) VALUES (?,?,?,?,?,?,?,?,?,?,?)", job.id(), job.seq(), job.name(), job.workload(), job.spec(),
          job.state().name(), job.start(), job.end(), job.strategy(), job.submittedAt(), job.notDone());
      return null;
    };
  }

  /** Drops an ended job: its row, pieces, chunks and kept dissents; returns the rows deleted. */
  public static Op<Integer> forgetJob(String id) {
    return c -> {
      int rows = 0;
      for (String sql : new String[] {"DELETE FROM pieces WHERE job_id=?", "DELETE FROM chunks WHERE job_id=?",
          "DELETE FROM dissents WHERE job_id=?", "DELETE FROM jobs WHERE id=?"}) {
        rows += c.update(sql, id);
      }
      return rows;
    };
  }

  /** A running job's memories (null: unchanged), to give back to its controller after a restart. */
  public static Op<Void> rememberJob(String id, String plan, String checks) {
    return c -> {
      c.update("UPDATE jobs SET plan_memory=COALESCE(?, plan_memory), checks_memory=COALESCE(?, checks_memory)"
          + " WHERE id=?", plan, checks, id);
      return null;
    };
  }

  /** A job's memories as last stored: {plan, checks}, each null if none. */
  public static Op<String[]> jobMemory(String id) {
    return c -> {
      String[] memory = c.one("SELECT plan_memory, checks_memory FROM jobs WHERE id=?",
          r -> new String[] {r.getString(1), r.getString(2)}, id);
      return memory == null ? new String[2] : memory;
    };
  }

  /** The job was cancelled and waits for its last pieces: a restart must not run it again. */
  public static Op<Void> cancelRequested(String id, String reason) {
    return c -> {
      c.update("UPDATE jobs SET cancel_reason=? WHERE id=?", reason, id);
      return null;
    };
  }

  /** Why the job was cancelled, if it was; null otherwise. */
  public static Op<String> cancelReason(String id) {
    return c -> c.one("SELECT cancel_reason FROM jobs WHERE id=?", r -> r.getString(1), id);
  }

  /** The job's state, and what it sets of its strategy, end time, result and message (null: unchanged). */
  public static Op<Void> updateJob(String id, JobPhase state, String strategy, Long finishedAt, byte[] result,
      String message) {
    return c -> {
      c.update("UPDATE jobs SET state=?, strategy=COALESCE(?, strategy), finished_at=COALESCE(?, finished_at),"
          + " result=COALESCE(?, result), message=COALESCE(?, message) WHERE id=?", state.name(), strategy, finishedAt,
          result, message, id);
      return null;
    };
  }

  /** The job ended at its deadline: what was not done, as people write ranges. */
  public static Op<Void> jobNotDone(String id, String notDone) {
    return c -> {
      c.update("UPDATE jobs SET not_done=? WHERE id=?", notDone, id);
      return null;
    };
  }

  /** The merged result stored with a job; null when it has none. */
  public static Op<byte[]> jobResult(String jobId) {
    return c -> c.one("SELECT result FROM jobs WHERE id=?", r -> r.getBytes(1), jobId);
  }

  /** One job's row without its result, or null. */
  public static Op<JobRecord> job(String id) {
    return c -> c.one("SELECT id, seq, name, workload, spec, state, range_start, range_end, strategy, submitted_at,"
        + " finished_at, NULL, message, not_done FROM jobs WHERE id=?", JobTable::jobRecord, id);
  }

  /** Every job's row with its result, in the order they were submitted. */
  public static Op<List<JobRecord>> jobs() {
    return c -> c.query("SELECT id, seq, name, workload, spec, state, range_start, range_end, strategy, submitted_at,"
        + " finished_at, result, message, not_done FROM jobs ORDER BY seq", JobTable::jobRecord);
  }

  /** A job's row from a query of its columns in this order (the result NULL where it is not read). */
  private static JobRecord jobRecord(ResultSet r) throws SQLException {
    // finished_at is NULL until the job ends, and reads as 0
    String id = r.getString(1);
    return new JobRecord(id, r.getLong(2), r.getString(3), r.getString(4), r.getBytes(5), phase(id, r.getString(6)),
        r.getLong(7), r.getLong(8), r.getString(9), r.getLong(10), r.getLong(11), r.getBytes(12), r.getString(13),
        r.getString(14));
  }

  /** The phase a job's state column names; any other word is a fault of the store, named with its job. */
  private static JobPhase phase(String job, String word) {
    for (JobPhase p : JobPhase.values()) {
      if (p.name().equals(word)) {
        return p;
      }
    }
    throw new IllegalStateException("job " + job + " has the state '" + word + "' in the store, which is not a job"
        + " phase (one of " + java.util.Arrays.toString(JobPhase.values()) + ")");
  }
}
