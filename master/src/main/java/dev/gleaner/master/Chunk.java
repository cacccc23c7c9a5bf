package dev.gleaner.master;

import java.util.Arrays;

/** One chunk of a running job as the dispatcher tracks it. Guarded by the dispatcher's lock. */
final class Chunk {
  final JobRun job;
  final long id;
  final long start;
  final long end;
  final long[] checkpoints;
  ChunkState state = ChunkState.QUEUED;
  /** The session computing it while RUNNING. */
  WorkerSession worker;
  /** The worker of the plan whose share this is (its recovery list is followed), or null for pool work. */
  String origin;
  /** End of the last piece received from the worker: the next piece must start here. */
  long received;

  Chunk(JobRun job, long id, long start, long end, long[] checkpoints) {
    this.job = job;
    this.id = id;
    this.start = start;
    this.end = end;
    this.checkpoints = checkpoints;
    this.received = start;
  }

  long units() {
    return end - start;
  }

  /** Checkpoints strictly after {@code from}: those of a remainder that starts there. */
  long[] checkpointsAfter(long from) {
    return Arrays.stream(checkpoints).filter(c -> c > from).toArray();
  }

  @Override
  public String toString() {
    return job.id + "#" + id + "[" + start + "," + end + ")";
  }
}
