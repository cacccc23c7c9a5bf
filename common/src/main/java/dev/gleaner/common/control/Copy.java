package dev.gleaner.common.control;

import java.util.Arrays;

/**
 * One assignment of a range to a worker: the chunk as it travels on the wire. Several copies of
 * the same units exist only when they are replicated; the first commit of a range wins.
 */
final class Copy {
  final long id;
  final JobLedger job;
  final Member worker;
  final long start;
  /** Where the worker stops: the assigned end, or where a truncation moved it. */
  long end;
  /** The end it was assigned with (a worker may report up to here if it missed a truncation). */
  long assignedEnd;
  final long[] checkpoints;
  /** End of the last piece received: the next piece starts here. */
  long cursor;
  /** When the worker started computing it (NaN while it waits behind another copy). */
  double startedAt = Double.NaN;
  /** When the last piece arrived, or when it started. */
  double progressAt = Double.NaN;
  /** Whether another copy holds some of the same units on purpose. */
  boolean replica;
  /** For a copy that computes committed units again to compare them: its check; null otherwise. */
  JobLedger.Check check;
  /**
   * For a copy a restarted master reloaded while its worker is away: until when its units stay
   * reserved for that worker to claim; NaN for a copy whose worker is here.
   */
  double reservedUntil = Double.NaN;
  /**
   * Truncated where its worker had reported up to, because its job was cancelled: its worker reports
   * what it computed since as one last piece (marked final), which counts; only that piece ends it.
   */
  boolean collected;

  Copy(long id, JobLedger job, Member worker, long start, long end, long[] checkpoints) {
    this(id, job, worker, start, end, end, checkpoints);
  }

  Copy(long id, JobLedger job, Member worker, long start, long end, long assignedEnd, long[] checkpoints) {
    this.id = id;
    this.job = job;
    this.worker = worker;
    this.start = start;
    this.end = end;
    this.assignedEnd = assignedEnd;
    this.checkpoints = checkpoints;
    this.cursor = start;
  }

  /** Whether it is reserved for a worker that has not come back since the master restarted. */
  boolean reserved() {
    return !Double.isNaN(reservedUntil);
  }

  void started(double now) {
    if (Double.isNaN(startedAt)) {
      startedAt = now;
      progressAt = now;
    }
  }

  /** Where the piece being computed ends: the first checkpoint after the cursor, or the end. */
  long nextCut() {
    long cut = end;
    for (long cp : checkpoints) {
      if (cp > cursor && cp < cut) {
        cut = cp;
      }
    }
    return cut;
  }

  /** Checkpoints strictly inside {@code (from, to)}. */
  long[] checkpointsWithin(long from, long to) {
    return Arrays.stream(checkpoints).filter(c -> c > from && c < to).toArray();
  }

  /** Where the worker probably is now, at {@code speed} units/s. */
  double position(double now, double speed) {
    if (Double.isNaN(startedAt) || !(speed > 0)) {
      return cursor;
    }
    return Math.min(end, cursor + speed * Math.max(0, now - progressAt));
  }

  @Override
  public String toString() {
    return job.def.id() + "#" + id + "[" + start + "," + end + ")";
  }
}
