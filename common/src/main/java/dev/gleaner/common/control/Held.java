package dev.gleaner.common.control;

/**
 * A chunk as a worker holds it, or as the store remembers it was handed out: what a worker reports
 * when its session starts (it kept computing while the master was away), and what a restarted
 * master reloads so the units stay reserved for their holder while it reconnects.
 *
 * @param worker the worker it was assigned to
 * @param job its job
 * @param chunkId its id (never reused within a job, across restarts too)
 * @param start first unit of the chunk as assigned
 * @param end where it ends now (a truncation may have moved it before the assigned end)
 * @param acked the end of the last piece the master acknowledged ({@code start} if none): pieces
 *     after it follow the claim, in order
 * @param checkpoints its checkpoints, {@code start < c < end}
 */
public record Held(String worker, String job, long chunkId, long start, long end, long acked, long[] checkpoints) {
  public Held {
    if (end <= start || acked < start || acked > end) {
      throw new IllegalArgumentException("a held chunk needs start < end and start <= acked <= end, got [" + start + ", "
          + end + ") acked " + acked);
    }
    checkpoints = checkpoints.clone();
  }

  @Override
  public String toString() {
    return job + "#" + chunkId + "[" + start + "," + end + ") acked " + acked + " by " + worker;
  }
}
