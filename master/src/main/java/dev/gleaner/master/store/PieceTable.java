package dev.gleaner.master.store;

import dev.gleaner.master.store.Store.Op;
import java.util.List;

/**
 * The operations on the {@code pieces} table: committed pieces, keyed by (job, start, end) and
 * inserted with {@code INSERT OR IGNORE}, so a retransmitted piece changes nothing.
 */
public final class PieceTable {
  private PieceTable() {}

  /** A committed piece. */
  public record PieceRecord(long chunkId, long start, long end, String workerId, byte[] result) {}

  /**
   * Inserts a piece unless the same range is already committed; returns whether it was new. The
   * piece that ends its chunk also records the chunk, so chunk ids are not reused after a restart.
   */
  public static Op<Boolean> commitPiece(String jobId, long chunkId, long start, long end, boolean last,
      String workerId, byte[] result, long at) {
    return c -> {
      if (last) {
        ChunkTable.upsertChunk(jobId, chunkId, start, end, workerId, ChunkState.DONE).run(c);
      }
      return c.update("INSERT OR IGNORE INTO pieces(job_id, chunk_id, start, end, worker_id, result, committed_at)"
          + " VALUES (?,?,?,?,?,?,?)", jobId, chunkId, start, end, workerId, result, at) == 1;
    };
  }

  /** Copies another job's committed pieces into a job (a job resuming one that ended at its deadline). */
  public static Op<Integer> copyPieces(String fromJob, String toJob) {
    return c -> c.update("INSERT OR IGNORE INTO pieces(job_id, chunk_id, start, end, worker_id, result, committed_at)"
        + " SELECT ?, 0, start, end, worker_id, result, committed_at FROM pieces WHERE job_id=?", toJob, fromJob);
  }

  /** Committed pieces of a job in unit order. */
  public static Op<List<PieceRecord>> pieces(String jobId) {
    return c -> c.query("SELECT chunk_id, start, end, worker_id, result FROM pieces WHERE job_id=? ORDER BY start",
        r -> new PieceRecord(r.getLong(1), r.getLong(2), r.getLong(3), r.getString(4), r.getBytes(5)), jobId);
  }
}
