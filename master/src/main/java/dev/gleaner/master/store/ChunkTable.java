package dev.gleaner.master.store;

import dev.gleaner.common.control.Held;
import dev.gleaner.master.store.Store.Op;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/**
 * The operations on the {@code chunks} table: every chunk handed out is recorded before it is sent,
 * so chunk ids are never reused and a restarted master knows which worker holds what, under which
 * lease and with which checkpoints (kept as data: 8-byte big-endian longs).
 */
public final class ChunkTable {
  private ChunkTable() {}

  /** Records a chunk in {@code state}, or moves a recorded one to {@code workerId} and {@code state}. */
  static Op<Void> upsertChunk(String jobId, long chunkId, long start, long end, String workerId, ChunkState state) {
    return c -> {
      c.update("INSERT INTO chunks(job_id, chunk_id, start, end, worker_id, state) VALUES (?,?,?,?,?,?)"
          + " ON CONFLICT(job_id, chunk_id) DO UPDATE SET worker_id=excluded.worker_id, state=excluded.state",
          jobId, chunkId, start, end, workerId, state.name());
      return null;
    };
  }

  /** A chunk was handed out (recorded before it is sent). */
  public static Op<Void> assigned(String jobId, long chunkId, String workerId, long start, long end, long[] checkpoints,
      long leaseMs, long at) {
    return c -> {
      c.update("INSERT INTO chunks(job_id, chunk_id, start, end, worker_id, state, checkpoints, lease_ms, assigned_at)"
          + " VALUES (?,?,?,?,?,?,?,?,?)", jobId, chunkId, start, end, workerId, ChunkState.ASSIGNED.name(),
          checkpointBytes(checkpoints), leaseMs, at);
      return null;
    };
  }

  /** The chunk now ends at {@code end} (its tail went to another worker). */
  public static Op<Void> truncated(String jobId, long chunkId, long end) {
    return c -> {
      c.update("UPDATE chunks SET end=MIN(end, ?) WHERE job_id=? AND chunk_id=?", end, jobId, chunkId);
      return null;
    };
  }

  /** The chunk no longer stands (cancelled, or its worker's work went to others). */
  public static Op<Void> chunkEnded(String jobId, long chunkId, ChunkState state) {
    return c -> {
      c.update("UPDATE chunks SET state=? WHERE job_id=? AND chunk_id=? AND state=?", state.name(), jobId, chunkId,
          ChunkState.ASSIGNED.name());
      return null;
    };
  }

  /**
   * The chunks of a job that were handed out and still stand, each with the end of its committed
   * pieces (its start if none).
   */
  public static Op<List<Held>> handedOut(String jobId) {
    return c -> {
      List<Held> out = c.query("SELECT k.worker_id, k.chunk_id, k.start, k.end, k.checkpoints,"
          + " (SELECT MAX(end) FROM pieces WHERE job_id=k.job_id AND chunk_id=k.chunk_id)"
          + " FROM chunks k WHERE k.job_id=? AND k.state=? ORDER BY k.chunk_id", r -> {
            long start = r.getLong(3);
            long end = r.getLong(4);
            long acked = r.getLong(6);
            acked = r.wasNull() ? start : Math.max(start, Math.min(end, acked));
            long chunkId = r.getLong(2);
            long[] checkpoints = Arrays.stream(checkpoints(jobId, chunkId, r.getBytes(5)))
                .filter(k -> k > start && k < end).toArray();
            return end > start ? new Held(r.getString(1), jobId, chunkId, start, end, acked, checkpoints) : null;
          }, jobId, ChunkState.ASSIGNED.name());
      // a chunk truncated to nothing holds nothing
      out.removeIf(java.util.Objects::isNull);
      return out;
    };
  }

  /** Checkpoints as the chunks table keeps them: 8-byte big-endian longs, one after the other. */
  static byte[] checkpointBytes(long[] checkpoints) {
    ByteBuffer b = ByteBuffer.allocate(Long.BYTES * checkpoints.length);
    b.asLongBuffer().put(checkpoints);
    return b.array();
  }

  /** The checkpoints {@link #checkpointBytes} wrote for a chunk (none if null). */
  private static long[] checkpoints(String jobId, long chunkId, byte[] data) {
    if (data == null) {
      return new long[0];
    }
    if (data.length % Long.BYTES != 0) {
      throw new IllegalStateException("chunk " + chunkId + " of job " + jobId + " has " + data.length
          + " bytes of checkpoints in the store, not a whole number of 8-byte positions");
    }
    long[] out = new long[data.length / Long.BYTES];
    ByteBuffer.wrap(data).asLongBuffer().get(out);
    return out;
  }

  /** The highest chunk id a job has used, in its chunk records or its pieces (0 if none). */
  public static Op<Long> maxChunkId(String jobId) {
    return c -> c.one("SELECT MAX((SELECT COALESCE(MAX(chunk_id), 0) FROM chunks WHERE job_id=?),"
        + " (SELECT COALESCE(MAX(chunk_id), 0) FROM pieces WHERE job_id=?))", r -> r.getLong(1), jobId, jobId);
  }
}
