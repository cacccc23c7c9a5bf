package dev.gleaner.deploy.bench.driver;

import dev.gleaner.protocol.JobStatus;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Waits for jobs to end with status requests that wait at the master for the job's end (up to
 * {@link #ASK_MILLIS} each): "DONE seen" is when the master's reply says so, as soon as the job
 * has ended, without polling. Every wait is bounded.
 */
final class JobWaits {
  /** The longest one status request waits at the master before it is asked again. */
  static final long ASK_MILLIS = 5_000;

  private final DriverConnection link;

  JobWaits(DriverConnection link) {
    this.link = link;
  }

  private JobStatus ask(String jobId, long deadline) throws IOException {
    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
    return link.awaitStatus(jobId, Math.max(0, Math.min(ASK_MILLIS, left)));
  }

  /** The job's final status; throws if it has not ended within {@code max}. */
  JobStatus awaitEnd(String jobId, Duration max) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (true) {
      JobStatus s = ask(jobId, deadline);
      if (ended(s.getState())) {
        return s;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("job " + jobId + " did not end within " + max + " (" + s.getState() + ", "
            + s.getUnitsDone() + " of " + s.getUnitsTotal() + " units)");
      }
    }
  }

  /**
   * The final status of every job, in the order given. Waits for the oldest job not yet seen
   * ended, then for the next one: jobs submitted together end roughly in order, so this costs
   * about one question per job.
   */
  List<JobStatus> awaitAll(List<String> jobIds, Duration max) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    List<JobStatus> out = new ArrayList<>(jobIds.size());
    int next = 0;
    while (next < jobIds.size()) {
      JobStatus s = ask(jobIds.get(next), deadline);
      if (ended(s.getState())) {
        out.add(s);
        next++;
        continue;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException((jobIds.size() - next) + " of " + jobIds.size() + " jobs did not end within "
            + max + " (" + s.getJobId() + " is " + s.getState() + ")");
      }
    }
    return out;
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
