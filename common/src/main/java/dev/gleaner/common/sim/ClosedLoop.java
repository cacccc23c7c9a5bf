package dev.gleaner.common.sim;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.JobView;
import dev.gleaner.common.control.Progress;
import java.util.List;

/**
 * The simulator's body around the real {@link Controller}: a discrete-event clock, a one-port
 * master that streams input at each worker's bandwidth, workers that compute their chunks in
 * order at their true speed and save a piece at every checkpoint (paying {@code commitDelay}
 * seconds, the per-chunk overhead eps of the papers), and workers that go down and come back on
 * their outage schedules.
 * Every decision (plans, re-plans, reroutes, splits, replicas, the deadline) is the controller's,
 * exactly as in the master.
 *
 * <p>Model: a piece of a chunk with input starts computing once its input has arrived (a real worker
 * computes within a piece as its bytes come, a little sooner; a chunk of one piece is the papers'
 * single-round model: all its input, then its computing); the port serves one stream at a time in rank order; a worker that goes
 * down loses everything it had not reported; the controller hears of a loss at once and of a
 * return when the worker is back.
 *
 * <p>Layout: this class runs the events of its clock ({@code SimClock}) and carries the controller's
 * actions out after each; the workers' joins and outages are {@code SimWorkers}, what they compute
 * and save {@code SimPieces}, the master's port {@code SimPort}, and the figures of the
 * {@link Result} are counted in {@code SimFigures}. One sequence orders the events and the port's
 * streams, so the same hosts and setup give the same run, event for event.
 */
public final class ClosedLoop {
  /**
   * A simulated computer.
   *
   * @param speed true units/s
   * @param bandwidth true bytes/s from the master
   * @param calibrated the speed it reports when it joins (a prior; NaN: none)
   * @param joinAt when it first connects
   * @param outages {@code [down, up]} pairs, seconds, increasing (up infinite: gone for good)
   * @param availableUntil when it leaves for good without being interrupted (infinity: never)
   * @param pastInterruptions interruptions in its history before the run (the store's, in the master)
   * @param pastExposure seconds up in that history
   * @param pastReturns returns after an interruption in that history
   * @param pastDowntime seconds those outages lasted
   */
  public record Host(String id, double speed, double bandwidth, double calibrated, double joinAt,
      List<double[]> outages, double availableUntil, long pastInterruptions, double pastExposure, long pastReturns,
      double pastDowntime) {
    public Host {
      outages = List.copyOf(outages);
    }

    public Host(String id, double speed, double bandwidth, double calibrated, double joinAt, List<double[]> outages,
        double availableUntil, long pastInterruptions, double pastExposure) {
      this(id, speed, bandwidth, calibrated, joinAt, outages, availableUntil, pastInterruptions, pastExposure, 0, 0);
    }

    public Host(String id, double speed, double bandwidth, double calibrated, double joinAt, List<double[]> outages,
        double availableUntil) {
      this(id, speed, bandwidth, calibrated, joinAt, outages, availableUntil, 0, 0);
    }

    public static Host of(String id, double speed) {
      return new Host(id, speed, Double.POSITIVE_INFINITY, speed, 0, List.of(), Double.POSITIVE_INFINITY);
    }

    public Host withHistory(long interruptions, double exposureSeconds) {
      return new Host(id, speed, bandwidth, calibrated, joinAt, outages, availableUntil, interruptions,
          exposureSeconds, pastReturns, pastDowntime);
    }

    public Host withOutages(long returns, double downtimeSeconds) {
      return new Host(id, speed, bandwidth, calibrated, joinAt, outages, availableUntil, pastInterruptions,
          pastExposure, returns, downtimeSeconds);
    }
  }

  /**
   * How the run goes.
   *
   * @param tick seconds between the controller's ticks
   * @param commitDelay seconds a worker spends saving each piece (eps: the checkpoint round trip),
   *     after which the piece is committed
   * @param horizon seconds after which the run stops whatever happens
   * @param interruptions what an interruption of a host's outages does to the piece under way
   */
  public record Setup(ControlConfig config, double tick, double commitDelay, double horizon,
      Interruptions interruptions, SimNetwork network) {
    /** The master's port sends one stream at a time, with no limit but the links. */
    public Setup(ControlConfig config, double tick, double commitDelay, double horizon, Interruptions interruptions) {
      this(config, tick, commitDelay, horizon, interruptions, SimNetwork.ONE_PORT);
    }

    /** Interruptions are crashes. */
    public Setup(ControlConfig config, double tick, double commitDelay, double horizon) {
      this(config, tick, commitDelay, horizon, Interruptions.CRASH);
    }

    public static Setup defaults(double horizon) {
      return new Setup(ControlConfig.defaults(), 0.5, 0.005, horizon);
    }

    public Setup with(Interruptions i) {
      return new Setup(config, tick, commitDelay, horizon, i, network);
    }

    /** The master's egress and port as given. */
    public Setup with(SimNetwork n) {
      return new Setup(config, tick, commitDelay, horizon, interruptions, n);
    }
  }

  /** What an outage does to the worker's piece under way. */
  public enum Interruptions {
    /** A crash or a node failure: what it computed since its last saved piece is lost. */
    CRASH,
    /**
     * An owner's return to a lent desktop: the worker saves what it computed of the piece under way
     * before it goes, as a real worker's owner policy does within its vacate grace.
     */
    VACATE;

    /** {@code vacate} or {@code crash}, as the commands' {@code --interruptions} takes it. */
    public static Interruptions parse(String name) {
      return switch (name) {
        case "vacate" -> VACATE;
        case "crash" -> CRASH;
        default -> throw new IllegalArgumentException("--interruptions is vacate or crash, not '" + name + "'");
      };
    }
  }

  /** Called after every event, with the controller in a consistent state. */
  @FunctionalInterface
  public interface Observer {
    void after(Controller controller, double now);
  }

  /**
   * What happened.
   *
   * @param committed units committed when the run ended
   * @param end when the job ended (or the run stopped)
   * @param lostUnits units workers had computed but not saved when they went down (lost work)
   * @param busySeconds seconds workers spent computing and saving, lost pieces included
   * @param upSeconds seconds workers were up (connected), until the run ended
   * @param inProgressUnits units computed in pieces not finished when the run ended (counted in
   *     busySeconds, neither saved nor lost)
   * @param cancelledUnits units computed in pieces the master cancelled while they were under way
   *     (at the job's deadline, a chunk whose rest others saved), counted in busySeconds
   * @param savingUnits units its workers could have computed in the time they spent saving pieces
   *     (eps per piece), counted in busySeconds
   * @param longestPieceSeconds the most seconds of its worker's work one saved piece held: what a
   *     crash at its worst moment would have lost
   */
  public record Result(long committed, double end, JobPhase phase, Controller controller, long assigns,
      long truncations, long cancels, long replans, long reroutes, double lostUnits, double busySeconds,
      double upSeconds, double inProgressUnits, double cancelledUnits, double savingUnits, double longestPieceSeconds) {}

  /** A job submitted {@code at} seconds into the run. */
  public record Arrival(double at, JobDef job) {}

  /** How one job of a run with several ended: its phase, its units committed, and when it ended (NaN: it did not). */
  public record JobEnd(String id, String owner, JobPhase phase, long committed, double end) {}

  /**
   * A run of several jobs: each job's end, the figures of the whole run (its {@code committed},
   * {@code end} and {@code phase} those of the first job), and the units computed again (pieces the
   * controller had saved already).
   */
  public record Shared(List<JobEnd> jobs, Result figures, double duplicateUnits) {}

  private final JobDef job;
  private final List<Arrival> arrivals;
  private final Setup setup;
  private final Observer observer;
  private final Controller controller;
  private final SimClock clock = new SimClock();
  private final SimFigures figures = new SimFigures();
  private final SimWorkers workers;

  private ClosedLoop(List<Arrival> arrivals, List<Host> hosts, Setup setup, Observer observer) {
    this.arrivals = List.copyOf(arrivals);
    this.job = arrivals.get(0).job();
    for (Arrival a : arrivals) {
      if (!a.job().workload().equals(job.workload()) || a.job().bytesPerUnit() != job.bytesPerUnit()) {
        throw new IllegalArgumentException("the simulated workers run one workload: job " + a.job().id() + " is "
            + a.job().workload() + " (" + a.job().bytesPerUnit() + " bytes per unit), job " + job.id() + " "
            + job.workload() + " (" + job.bytesPerUnit() + ")");
      }
    }
    this.setup = setup;
    this.observer = observer;
    this.controller = new Controller(setup.config());
    // the port as the simulated master plans with it from the start: its egress known, or nothing seen yet
    controller.port(setup.network().planRule());
    if (setup.network().linksKnown()) {
      for (Host h : hosts) {
        if (Double.isFinite(h.bandwidth())) {
          // one second's worth over each link, as a job across them before would have measured it
          double known = setup.network().knownLink(h.id(), h.bandwidth());
          controller.streamed(h.id(), "measured before", 0, Math.max(1, Math.round(known)), 1, 0);
        }
      }
    }
    this.workers = new SimWorkers(clock, controller, job, setup, hosts, figures);
  }

  /** Runs the job on the hosts until it ends or the horizon passes. */
  public static Result run(JobDef job, List<Host> hosts, Setup setup) {
    return run(job, hosts, setup, (c, t) -> { });
  }

  public static Result run(JobDef job, List<Host> hosts, Setup setup, Observer observer) {
    return new ClosedLoop(List.of(new Arrival(0, job)), hosts, setup, observer).go().figures();
  }

  /**
   * Runs the jobs, each submitted at its time (in the order given at the same time), on the hosts
   * until every one has ended or the horizon passes. They share one workload (and bytes per unit).
   */
  public static Shared runAll(List<Arrival> jobs, List<Host> hosts, Setup setup, Observer observer) {
    return runAll(jobs, hosts, setup, java.util.Map.of(), observer);
  }

  /** As above, the owners sharing the workers by {@code shares} (owner to weight; see {@link Controller#share}). */
  public static Shared runAll(List<Arrival> jobs, List<Host> hosts, Setup setup, java.util.Map<String, Double> shares,
      Observer observer) {
    if (jobs.isEmpty()) {
      throw new IllegalArgumentException("no job to run");
    }
    ClosedLoop loop = new ClosedLoop(jobs, hosts, setup, observer);
    shares.forEach((owner, weight) -> loop.controller.share(owner, weight, 0));
    return loop.go();
  }

  private Shared go() {
    workers.schedule();
    // hosts that are there from the start are connected when the first job is submitted, as on a cluster
    for (Arrival a : arrivals) {
      clock.at(a.at(), () -> controller.addJob(a.job(), clock.now()));
    }
    clock.at(setup.tick(), this::tick);
    for (Arrival a : arrivals) {
      if (a.job().hasDeadline()) {
        clock.at(a.job().deadline(), () -> controller.tick(clock.now()));
      }
    }
    double[] ends = new double[arrivals.size()];
    java.util.Arrays.fill(ends, Double.NaN);
    int open = arrivals.size();
    int steps = 0;
    while (steps++ < 50_000_000 && clock.step(setup.horizon())) {
      double now = clock.now();
      apply();
      boolean any = false;
      for (int i = 0; i < ends.length; i++) {
        if (!Double.isNaN(ends[i])) {
          continue;
        }
        // the progress, not the job's view: a view gathers every queue and chunk, too much after each event
        Progress p = controller.views().progress(arrivals.get(i).job().id());
        any |= p != null;
        if (p != null && p.phase().ended()) {
          ends[i] = now;
          open--;
        }
      }
      if (any || open < arrivals.size()) {
        observer.after(controller, now);
      }
      if (open == 0 || workers.noneLeft() && now > 0) {
        break;
      }
    }
    double inProgress = workers.finish();
    List<JobEnd> jobs = new java.util.ArrayList<>();
    for (int i = 0; i < ends.length; i++) {
      JobDef d = arrivals.get(i).job();
      JobView v = controller.views().job(d.id());
      jobs.add(v == null ? new JobEnd(d.id(), d.tenant().owner(), JobPhase.QUEUED, 0, Double.NaN)
          : new JobEnd(d.id(), d.tenant().owner(), v.phase(), v.committed(), ends[i]));
    }
    JobView first = controller.views().job(job.id());
    return new Shared(jobs, figures.result(first.committed(), clock.now(), first.phase(), controller, inProgress),
        figures.duplicateUnits);
  }

  /** The controller's clock tick; the next one is scheduled by this one, up to the horizon. */
  private void tick() {
    double now = clock.now();
    controller.tick(now);
    if (now + setup.tick() <= setup.horizon()) {
      clock.at(now + setup.tick(), this::tick);
    }
  }

  /** Carries the controller's decisions out, in order: a simulated store is durable at once. */
  private void apply() {
    controller.drive(ready -> workers.batch(() -> ready.actions().forEach(this::carryOut)));
  }

  private void carryOut(Action a) {
    if (a instanceof Action.Assign x) {
      if (workers.assign(x)) {
        figures.assigns++;
      }
    } else if (a instanceof Action.Stream x) {
      workers.stream(x);
    } else if (a instanceof Action.Truncate x) {
      figures.truncations++;
      workers.truncate(x);
    } else if (a instanceof Action.Cancel x) {
      figures.cancels++;
      workers.cancel(x);
    } else if (a instanceof Action.Drop x) {
      // the controller took the worker's work back; the worker connects again
      workers.drop(x);
    } else if (a instanceof Action.Planned) {
      figures.replans++;
    } else if (a instanceof Action.Rerouted) {
      figures.reroutes++;
    }
  }
}
