package dev.gleaner.master.store;

import dev.gleaner.master.store.Store.Op;

/**
 * The check comparisons: a check's result against the committed piece of its range, and the
 * {@code dissents} table, which keeps a result that disagreed with the committed one for a tie-break.
 */
public final class DissentTable {
  private DissentTable() {}

  /**
   * Compares a check's result with the committed piece of the same range; for a tie-break, also with
   * the dissent kept before, and replaces the committed result when the two agree against it.
   * Returns {agrees with the committed result, agrees with the dissent}.
   */
  public static Op<boolean[]> compareCheck(String jobId, long start, long end, String workerId, byte[] result,
      boolean tieBreak) {
    return c -> {
      byte[] committed = c.one("SELECT result FROM pieces WHERE job_id=? AND start=? AND end=?", r -> r.getBytes(1),
          jobId, start, end);
      boolean agrees = committed != null && java.util.Arrays.equals(committed, result);
      if (agrees) {
        return new boolean[] {true, false};
      }
      if (!tieBreak) {
        c.update("INSERT OR REPLACE INTO dissents(job_id, start, end, worker_id, result) VALUES (?,?,?,?,?)", jobId,
            start, end, workerId, result);
        return new boolean[] {false, false};
      }
      byte[] dissent = c.one("SELECT result FROM dissents WHERE job_id=? AND start=? AND end=?", r -> r.getBytes(1),
          jobId, start, end);
      boolean withDissent = dissent != null && java.util.Arrays.equals(dissent, result);
      if (withDissent) {
        c.update("UPDATE pieces SET result=?, worker_id=? WHERE job_id=? AND start=? AND end=?", result, workerId,
            jobId, start, end);
      }
      return new boolean[] {false, withDissent};
    };
  }
}
