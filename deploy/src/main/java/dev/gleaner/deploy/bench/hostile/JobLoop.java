package dev.gleaner.deploy.bench.hostile;

import dev.gleaner.deploy.audit.KnownPrimeCounts;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real jobs the master must go on serving while it is attacked: the primes below 10^10, one job
 * after another until the attack is over (at least one), each answer checked against the known count.
 */
final class JobLoop implements Runnable {
  /** The job run again and again during the attack: primes below 10^10. */
  static final long JOB_TO = 10_000_000_000L;

  /** One job's end: its state and result, whether the result is the known count, and how long it took. */
  record JobResult(String state, String result, boolean exact, double seconds) {}

  private final HostileCluster cluster;
  private final PrintWriter progress;
  private volatile boolean attacking = true;
  /** The jobs' ends, in order. */
  final List<JobResult> results = Collections.synchronizedList(new ArrayList<>());

  JobLoop(HostileCluster cluster, PrintWriter progress) {
    this.cluster = cluster;
    this.progress = progress;
  }

  /** The attack is over: the job under way is the last. */
  void attackOver() {
    attacking = false;
  }

  @Override
  public void run() {
    do {
      try {
        JobResult r = run(cluster, JOB_TO, TimeUnit.MINUTES.toNanos(15));
        results.add(r);
        HostileBench.note(progress, "  job %d: %s in %.0f s, %s", results.size(), r.state(), r.seconds(),
            r.exact() ? "exact" : "WRONG: " + r.result());
      } catch (IOException | RuntimeException e) {
        results.add(new JobResult("FAILED: " + e.getMessage(), "", false, 0));
        HostileBench.note(progress, "  job failed: %s", e.getMessage());
        return;
      }
    } while (attacking);
  }

  /**
   * Counts the primes below {@code to} on the cluster, polling its status; a job not ended within
   * {@code maxNanos} is reported as such.
   */
  static JobResult run(HostileCluster c, long to, long maxNanos) throws IOException {
    JobSpec spec = JobSpec.newBuilder().setWorkload("primes").putParams("from", "0").putParams("to", Long.toString(to))
        .setMinWorkers(2).build();
    long t0 = System.nanoTime();
    try (MasterClient client = c.client()) {
      String id = client.submit(spec);
      while (System.nanoTime() - t0 < maxNanos) {
        JobStatus s = client.status(id).getJobs(0);
        if (StatusView.ended(s.getState())) {
          boolean exact = s.getState().equals("DONE") && s.getResult().equals(KnownPrimeCounts.pi(to) + " primes");
          return new JobResult(s.getState(), s.getResult(), exact, (System.nanoTime() - t0) / 1e9);
        }
        HostileCluster.pause(500);
      }
      return new JobResult("NOT ENDED within " + maxNanos / 1_000_000_000 + " s", "", false,
          (System.nanoTime() - t0) / 1e9);
    }
  }
}
