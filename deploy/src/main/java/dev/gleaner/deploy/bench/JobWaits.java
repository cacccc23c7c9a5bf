package dev.gleaner.deploy.bench;

import dev.gleaner.protocol.JobStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Waits for jobs to end by asking for their status, a pause between two questions: the master
 * pushes nothing to clients, so "DONE seen" is the first status reply that says so, and the
 * pause is the resolution of every figure timed this way. Every wait is bounded.
 */
final class JobWaits {
  private final MasterLink link;
  private final long pauseNanos;

  JobWaits(MasterLink link, Duration pause) {
    this.link = link;
    this.pauseNanos = pause.toNanos();
  }

  /** The job's final status; throws if it has not ended within {@code max}. */
  JobStatus awaitEnd(String jobId, Duration max) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (true) {
      JobStatus s = link.status(jobId);
      if (ended(s.getState())) {
        return s;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("job " + jobId + " did not end within " + max + " (" + s.getState() + ", "
            + s.getUnitsDone() + " of " + s.getUnitsTotal() + " units)");
      }
      pause();
    }
  }

  /**
   * The final status of every job, in the order given. Asks about the oldest job not yet seen
   * ended, and about the next one at once when it has: jobs submitted together end roughly in
   * order, so this costs about one question per pause, however many jobs there are.
   */
  List<JobStatus> awaitAll(List<String> jobIds, Duration max) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    List<JobStatus> out = new ArrayList<>(jobIds.size());
    int next = 0;
    while (next < jobIds.size()) {
      JobStatus s = link.status(jobIds.get(next));
      if (ended(s.getState())) {
        out.add(s);
        next++;
        continue;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException((jobIds.size() - next) + " of " + jobIds.size() + " jobs did not end within "
            + max + " (" + s.getJobId() + " is " + s.getState() + ")");
      }
      pause();
    }
    return out;
  }

  private void pause() throws InterruptedException {
    if (pauseNanos > 0) {
      TimeUnit.NANOSECONDS.sleep(pauseNanos);
    }
  }

  static boolean ended(String state) {
    return state.equals("DONE") || state.equals("DONE_PARTIAL") || state.equals("FAILED") || state.equals("CANCELLED");
  }

  /** Throws unless the job ended DONE. */
  static JobStatus requireDone(JobStatus s) {
    if (!s.getState().equals("DONE")) {
      throw new IllegalStateException("job " + s.getJobId() + " ended " + s.getState()
          + (s.getMessage().isEmpty() ? "" : ": " + s.getMessage()));
    }
    return s;
  }
}
