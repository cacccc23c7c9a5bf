package dev.gleaner.common.control.state;

import java.util.Arrays;

/**
 * A chunk as it is handed out: one assignment of a range to a worker, with its checkpoints (the
 * wire's {@code Assign} and the store's chunk row carry it by its id). Several chunks of the same
 * units exist only when they are replicated; the first commit of a range wins.
 */
public final class Chunk {
  public final long id;
  public final JobLedger job;
  public final Member worker;
  public final long start;
  /** Where the worker stops: the assigned end, or where a truncation moved it. */
  public long end;
  /** The end it was assigned with (a worker may report up to here if it missed a truncation). */
  public long assignedEnd;
  public final long[] checkpoints;
  /** End of the last piece received: the next piece starts here. */
  public long cursor;
  /** When the worker started computing it (NaN while it waits behind another chunk). */
  public double startedAt = Double.NaN;
  /** When the last piece arrived, or when it started. */
  public double progressAt = Double.NaN;
  /** Whether another chunk holds some of the same units on purpose. */
  public boolean replica;
  /** For a chunk that computes committed units again to compare them: its check; null otherwise. */
  public JobLedger.Check check;
  /**
   * For a chunk a restarted master reloaded while its worker is away: until when its units stay
   * reserved for that worker to claim; NaN for a chunk whose worker is here.
   */
  public double reservedUntil = Double.NaN;
  /**
   * Truncated where its worker had reported up to, because its job was cancelled: its worker reports
   * what it computed since as one last piece (marked final), which counts; only that piece ends it.
   */
  public boolean collected;
  /**
   * Cut (or left to end) so that its worker goes to a job below its share ({@code FairShare}): its
   * worker counts as coming free, not as its job's.
   */
  public boolean preempted;

  public Chunk(long id, JobLedger job, Member worker, long start, long end, long[] checkpoints) {
    this.id = id;
    this.job = job;
    this.worker = worker;
    this.start = start;
    this.end = end;
    this.assignedEnd = end;
    this.checkpoints = checkpoints;
    this.cursor = start;
  }

  /** Whether it is reserved for a worker that has not come back since the master restarted. */
  public boolean reserved() {
    return !Double.isNaN(reservedUntil);
  }

  public void started(double now) {
    if (Double.isNaN(startedAt)) {
      startedAt = now;
      progressAt = now;
    }
  }

  /** Whether it is its holder's first chunk and has started: the only one that progresses with time. */
  public boolean computing() {
    return !Double.isNaN(startedAt) && !worker.chunks.isEmpty() && worker.chunks.get(0) == this;
  }

  /** Whether an idle worker may take its tail, or a replica of it. */
  public boolean splittable() {
    return !replica && check == null;
  }

  /** Whether it may move whole to another worker: not started, not a replica or check, not kept for a returning worker. */
  public boolean movable() {
    return splittable() && !reserved() && !computing();
  }

  /** Where the piece being computed ends: the first checkpoint after the cursor, or the end. */
  public long nextCut() {
    long cut = end;
    for (long cp : checkpoints) {
      if (cp > cursor && cp < cut) {
        cut = cp;
      }
    }
    return cut;
  }

  /** Where the worker probably is now, at {@code speed} units/s. */
  public double position(double now, double speed) {
    if (Double.isNaN(startedAt) || !(speed > 0)) {
      return cursor;
    }
    return Math.min(end, cursor + speed * Math.max(0, now - progressAt));
  }

  /** Seconds its worker still needs for it at {@code speed} units/s: only a chunk computing moves on with the clock. */
  public double secondsLeft(double now, double speed) {
    double at = computing() ? position(now, speed) : cursor;
    return (end - at) / speed;
  }

  @Override
  public String toString() {
    return job.def.id() + "#" + id + "[" + start + "," + end + ")";
  }
}
