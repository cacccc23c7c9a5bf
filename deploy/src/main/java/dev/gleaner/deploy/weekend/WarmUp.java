package dev.gleaner.deploy.weekend;

import dev.gleaner.common.model.Worker;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.protocol.Estimate;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerStatus;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** The replay's warm-up: a short job, not counted, on the workers up at the trace's start. */
final class WarmUp {
  /** The warm-up job's work: this long at the workers' capped speeds, real milliseconds. */
  private static final long WARM_UP_MILLIS = 2000;
  /**
   * The warm-up job's deadline from its submission, real milliseconds: cold JVMs take about 3 s for
   * the 2 s of work (the first pieces are slow, which is the point), and machines that cannot reach
   * the caps stop there.
   */
  private static final long WARM_UP_DEADLINE_MILLIS = 5000;

  private WarmUp() {}

  /**
   * A short job before the trace starts, not counted: every worker up at the trace's start computes
   * and saves pieces, 2 s of its capped speed's work in 5 s at most (the job's deadline), so that
   * the JVMs have compiled their hot paths and the master has measured eps and their speeds before
   * the weekend's first hour. Without it the JVMs' slow start, K times longer in trace time, costs
   * each worker its first pieces' worth of trace minutes, which neither the simulator nor a
   * long-running master has. A worker in {@code awayAtStart} (its owner present at the start) sits
   * it out and starts cold: taking it away later would be an interruption the trace does not have.
   */
  static void run(MasterClient client, ReplayRun.Settings s, Set<String> awayAtStart, ReplayProcesses processes,
      PrintWriter out) throws IOException {
    Map<String, Worker> byId = s.platform().byId();
    double perSecond = 0;
    int up = 0;
    for (String node : s.trace().nodes().keySet()) {
      if (!awayAtStart.contains(node)) {
        perSecond += byId.get(node).speed() * s.speedup();
        up++;
      }
    }
    if (up == 0) {
      out.println("warm-up: none, every owner is present at the trace's start (the workers start cold)");
      out.flush();
      return;
    }
    // what the workers do in that time at their caps; the deadline bounds it where they cannot reach them
    long units = Math.max(1000L * up, Math.round(perSecond * WARM_UP_MILLIS / 1000.0));
    long t0 = System.nanoTime();
    long deadline = System.currentTimeMillis() + WARM_UP_DEADLINE_MILLIS;
    JobSpec spec = JobSpec.newBuilder().setName("replay-warm-up").setWorkload("primes").putParams("from", "0")
        .putParams("to", Long.toString(units)).setStrategy(s.strategy()).setDeadlineMillis(deadline).build();
    String jobId = client.submit(spec);
    while (System.currentTimeMillis() < deadline + 60_000) {
      processes.requireAlive();
      JobStatus j = client.status(jobId).getJobs(0);
      if (StatusView.ended(j.getState())) {
        if (!j.getState().equals("DONE") && !j.getState().equals("DONE_PARTIAL")) {
          throw new IllegalStateException("the warm-up job " + jobId + " ended " + j.getState() + ": "
              + j.getMessage());
        }
        StatusReply r = client.status("");
        double eps = r.hasEps() ? r.getEps().getValue() : Double.NaN;
        out.printf(Locale.ROOT, "warm-up: job %s on %d of %d workers (those up at the start), %d of %d units in %.1f s"
            + " (not counted); eps %s s, speeds %s%n", jobId, up, s.trace().nodes().size(), j.getUnitsDone(), units,
            (System.nanoTime() - t0) / 1e9, Double.isFinite(eps) ? String.format(Locale.ROOT, "%.4f", eps) : "unknown",
            speeds(r));
        out.flush();
        return;
      }
      ReplayProcesses.pause(100);
    }
    throw new IllegalStateException("the warm-up job " + jobId + " did not end within a minute of its deadline:\n"
        + processes.workers().logs());
  }

  /** Each worker's speed as the master measured it, units/s, for the warm-up's line. */
  private static String speeds(StatusReply r) {
    Map<String, String> m = new TreeMap<>();
    for (WorkerStatus w : r.getWorkersList()) {
      Estimate e = w.getSpeedsMap().get("primes");
      boolean known = e != null && Double.isFinite(e.getValue());
      m.put(w.getWorkerId(), known ? Long.toString(Math.round(e.getValue())) : "?");
    }
    return m.toString();
  }
}
