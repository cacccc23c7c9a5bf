package dev.gleaner.common.sim;

import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.trace.AvailabilityTrace;
import dev.gleaner.common.trace.OmniscientBound;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A job run by the controller on the closed-loop simulator with each worker lent and taken back
 * as an availability trace says, beside the most any schedule could have saved on that trace.
 *
 * <p>Each up period is a session: the worker joins at its start; at its end the owner takes the
 * machine back, everything the worker had not saved is lost and its unsaved work goes back to the
 * controller, which reroutes it (a vacate and return, not the end of the worker); at the next up
 * period it joins again. A worker with no up period before the horizon never joins. The
 * platform's workers and the trace's nodes must be the same set.
 */
public final class TraceSimulation {
  /**
   * The interruption history the master is given for each worker before the job, as if the store
   * had seen it: {@code interruptions} over {@code exposureSeconds} up, and {@code returns} after an
   * interruption lasting {@code downtimeSeconds} in all (as `gleaner master --expected-up` and
   * `--expected-down` give the master).
   */
  public record Prior(long interruptions, double exposureSeconds, long returns, double downtimeSeconds) {
    public static final Prior NONE = new Prior(0, 0);

    public Prior {
      if (interruptions < 0 || !(exposureSeconds >= 0) || interruptions > 0 && !(exposureSeconds > 0)) {
        throw new IllegalArgumentException("a prior needs interruptions >= 0 over a positive exposure, got "
            + interruptions + " over " + exposureSeconds + " s");
      }
      if (returns < 0 || !(downtimeSeconds >= 0) || returns > 0 && !(downtimeSeconds > 0)) {
        throw new IllegalArgumentException("a prior needs returns >= 0 over a positive downtime, got "
            + returns + " over " + downtimeSeconds + " s");
      }
    }

    /** A prior of interruptions only: outages rest on those seen. */
    public Prior(long interruptions, double exposureSeconds) {
      this(interruptions, exposureSeconds, 0, 0);
    }
  }

  /**
   * What the run saved and what was possible.
   *
   * @param run the closed loop's result
   * @param bound the omniscient bound over the horizon ({@link OmniscientBound#units})
   * @param neverUp workers the trace never has up before the horizon (they took no part)
   * @param returns up periods after a worker's first, before the horizon: vacate-and-returns
   */
  public record Result(ClosedLoop.Result run, long bound, List<String> neverUp, int returns) {
    /** Work saved by the run over the bound; 1 when the bound is 0. */
    public double ratio() {
      return bound == 0 ? 1 : (double) run.committed() / bound;
    }
  }

  private TraceSimulation() {}

  /**
   * Runs {@code job} until its deadline or, without one, until {@code setup.horizon()}; the bound is
   * over the same time, with eps = {@code setup.commitDelay()}.
   */
  public static Result run(AvailabilityTrace trace, Platform platform, JobDef job, ClosedLoop.Setup setup, Prior prior) {
    return run(trace, platform, job, setup, prior, (c, t) -> { });
  }

  /** As {@link #run(AvailabilityTrace, Platform, JobDef, ClosedLoop.Setup, Prior)}, with an observer of the run. */
  public static Result run(AvailabilityTrace trace, Platform platform, JobDef job, ClosedLoop.Setup setup, Prior prior,
      ClosedLoop.Observer observer) {
    Set<String> nodes = new LinkedHashSet<>(trace.nodes().keySet());
    Set<String> workers = new LinkedHashSet<>();
    platform.workers().forEach(w -> workers.add(w.id()));
    if (!nodes.equals(workers)) {
      Set<String> noNode = new LinkedHashSet<>(workers);
      noNode.removeAll(nodes);
      Set<String> noWorker = new LinkedHashSet<>(nodes);
      noWorker.removeAll(workers);
      throw new IllegalArgumentException("the platform's workers and the trace's nodes differ: workers not in the trace "
          + noNode + ", nodes not in the platform " + noWorker);
    }
    double horizon = job.hasDeadline() ? Math.min(job.deadline(), setup.horizon()) : setup.horizon();
    List<ClosedLoop.Host> hosts = new ArrayList<>();
    List<String> neverUp = new ArrayList<>();
    int returns = 0;
    for (Worker w : platform.workers()) {
      List<AvailabilityTrace.Period> up = trace.up(w.id(), horizon);
      if (up.isEmpty()) {
        neverUp.add(w.id());
        continue;
      }
      returns += up.size() - 1;
      List<double[]> outages = new ArrayList<>();
      for (double[] o : trace.outages(w.id())) {
        if (o[0] < horizon) {
          outages.add(o);
        }
      }
      hosts.add(new ClosedLoop.Host(w.id(), w.speed(), w.bandwidth(), w.speed(), up.get(0).start(), outages,
          Double.POSITIVE_INFINITY).withHistory(prior.interruptions(), prior.exposureSeconds())
          .withOutages(prior.returns(), prior.downtimeSeconds()));
    }
    long bound = OmniscientBound.units(trace, platform, job.units(), setup.commitDelay(), horizon);
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("no worker of the trace is ever up before the horizon of " + horizon + " s");
    }
    return new Result(ClosedLoop.run(job, hosts, setup, observer), bound, neverUp, returns);
  }
}
