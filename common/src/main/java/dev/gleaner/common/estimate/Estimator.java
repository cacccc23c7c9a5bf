package dev.gleaner.common.estimate;

import dev.gleaner.common.model.RiskModel;
import dev.gleaner.common.model.Worker;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Turns observations into the figures the planner uses, per worker and workload.
 *
 * <ul>
 *   <li><b>Speed</b> (units/s on all the worker's cores): committed pieces, units over the
 *       seconds the worker spent computing them, fading with a half-life of
 *       {@link #SPEED_HALF_LIFE} seconds of computing; the worker's calibration is a prior worth
 *       {@link #PRIOR_SECONDS} seconds. Unknown until one of the two exists: such a worker is never
 *       planned ({@link #worker} returns null).
 *   <li><b>Bandwidth</b> (bytes/s from the master): input transfers, bytes over seconds on the
 *       wire. A worker with no transfer yet gets the median of the workers that have one, or
 *       infinity when none has.
 *   <li><b>Risk</b>: the hazard rate {@code (k + 1) / (T + 1/r0)} from the worker's k
 *       interruptions over T seconds up, where {@code r0} is the fleet's rate (all interruptions over
 *       all time up): a newcomer starts at the fleet's rate and its own history takes over as it
 *       grows. No interruption anywhere yet means rate 0. The rate becomes the risk model's
 *       parameter through {@link RiskModel#riskForRate}; a worker that declared when it will be gone
 *       is at least {@link RiskModel#riskForEnd} for the time left. Once the body gives the
 *       estimator the wall clock ({@link #wallClock}), interruptions are also counted by hour of the
 *       week ({@link WeeklyHazard}), and the rate planned with is that of the next
 *       {@link #RISK_HORIZON} seconds' hours: a desktop whose owner comes in on weekday mornings is
 *       riskier on Monday at 7:00 than on Saturday night.
 *   <li><b>eps</b> (seconds): the checkpoint round trip, averaged with the same fading.
 * </ul>
 *
 * <p>Layout: this class takes the observations and answers the questions; what it knows of each
 * worker is a {@code WorkerFigures}, the fleet's totals a {@code FleetFigures}, and the arithmetic
 * that shrinks a worker's figure toward the fleet's is {@code Shrinkage}.
 */
public final class Estimator implements Estimates {
  /**
   * Seconds of computing after which an observation of speed weighs half: short enough to follow a
   * JVM warming up or an owner's load within a few pieces, long enough to smooth one slow piece.
   */
  public static final double SPEED_HALF_LIFE = 15;
  /** Seconds on the wire after which an observation of bandwidth weighs half. */
  public static final double BANDWIDTH_HALF_LIFE = 30;
  /**
   * Three transfers in a row, each at its link's own rate (alone on the wire, or below its fair share
   * of the master's egress beside others), this many times below a link's estimate show its rate
   * dropped (tc on a testbed, a VPN, a congested uplink): the estimate restarts from them.
   */
  public static final double BANDWIDTH_SHIFT = 2;
  /**
   * Three paces of a transfer in a row, each this many times below what its link was known to do,
   * show the link was cut ({@link #linkCut}; the master's port counts them). Closer than {@link
   * #BANDWIDTH_SHIFT}: a pace is the worker's reading of its link over a quarter of a second and
   * more (alone on the wire, or below its fair share of the egress beside others), within 2% of a
   * shaped rate on the testbed, where a transfer's time holds the socket buffers' and the word's way
   * back; and a link estimated at half its rate (its first transfers beside others) and then cut 4x
   * is only 2x below its estimate (the testbed's w1 at 5.26 MB/s, cut to 2.39: 2.2x).
   */
  public static final double PACE_SHIFT = 1.5;
  /** What a calibration weighs, in seconds of observed computing. */
  public static final double PRIOR_SECONDS = 1;

  /** Seconds ahead whose hours of the week give a worker's planned rate. */
  public static final double RISK_HORIZON = 8 * 3600;

  private final Map<String, WorkerFigures> workers = new HashMap<>();
  private final FleetFigures fleet = new FleetFigures();
  private final List<Consumer<String>> listeners = new ArrayList<>();
  /** The median of the measured bandwidths, NaN until computed again after a change (see {@link #plannedBandwidth}). */
  private double medianBandwidth = Double.NaN;
  /** Epoch seconds at controller time 0, and the zone of the hours of the week; null: no wall clock. */
  private double epochAtZero;
  private ZoneId zone;
  private final DecayingRate eps = new DecayingRate(60);

  private WorkerFigures figures(String worker) {
    return workers.computeIfAbsent(worker, k -> new WorkerFigures());
  }

  /**
   * Controller time 0 is {@code epochSeconds} on the wall clock, whose hours of the week in
   * {@code zone} are the owners': from now on, interruptions are counted by hour of the week.
   */
  public void wallClock(double epochSeconds, ZoneId zone) {
    this.epochAtZero = epochSeconds;
    this.zone = zone;
  }

  /**
   * Tells {@code listener} the id of every worker whose speed or bandwidth estimate changes from
   * now on (its calibration, a piece computed, bytes transferred): a controller keeps what it
   * sorted by these estimates up to date without reading them all again.
   */
  public void listen(Consumer<String> listener) {
    listeners.add(listener);
  }

  private void changed(String worker) {
    for (Consumer<String> l : listeners) {
      l.accept(worker);
    }
  }

  // ---------------------------------------------------------------- speed, bandwidth, eps

  /** The worker's own calibration for a workload: a prior only. */
  public void calibrated(String worker, String workload, double unitsPerSecond) {
    figures(worker).speed(workload).prior(unitsPerSecond, PRIOR_SECONDS);
    changed(worker);
  }

  /** The worker computed {@code units} of a workload in {@code seconds}. */
  public void computed(String worker, String workload, long units, double seconds) {
    WorkerFigures f = figures(worker);
    f.speed(workload).observe(units, seconds);
    if (units > 0 && seconds > 0 && Double.isFinite(seconds)) {
      f.spread.computeIfAbsent(workload, k -> new LogSpread()).observe(units / seconds, seconds);
    }
    changed(worker);
  }

  /**
   * A speed's spread seen before any piece: the standard deviation of the logarithm of a speed,
   * which a calibration on a sample or the first pieces of a cold JVM can be off by (a factor of
   * 1.65 either way), worth {@link #PRIOR_SECONDS} of computing, as a calibration is.
   */
  public static final double SPEED_SPREAD_PRIOR = 0.5;

  /**
   * How far a speed measured on a workload may be from what the rest of a job will see: the
   * standard deviation of the logarithm of the pieces' speeds, each worker's about its own mean,
   * pooled over the workers with two pieces or more, each piece weighing its seconds of computing,
   * and the prior {@link #SPEED_SPREAD_PRIOR} weighing {@link #PRIOR_SECONDS}. A workload whose pieces
   * go at one pace reads low; one whose pieces' cost varies along the range, or a worker whose JVM
   * is still warming up, reads high.
   */
  public double speedSpread(String workload) {
    double squares = PRIOR_SECONDS * SPEED_SPREAD_PRIOR * SPEED_SPREAD_PRIOR;
    double seconds = PRIOR_SECONDS;
    for (WorkerFigures f : workers.values()) {
      LogSpread s = f.spread.get(workload);
      if (s != null && s.pieces() >= 2) {
        squares += s.variance() * s.seconds;
        seconds += s.seconds;
      }
    }
    return Math.sqrt(squares / seconds);
  }

  /** The seconds of computing the worker's speed for a workload rests on (0: a calibration at most). */
  public double speedSeconds(String worker, String workload) {
    WorkerFigures f = workers.get(worker);
    LogSpread s = f == null ? null : f.spread.get(workload);
    return s == null ? 0 : s.seconds;
  }

  /** {@code bytes} went to the worker in {@code seconds} on the wire. */
  public void transferred(String worker, long bytes, double seconds) {
    transferred(worker, bytes, seconds, false);
  }

  /**
   * {@code bytes} crossed the worker's link in {@code seconds}; {@code own}: its rate is the link's (no
   * other worker's stream was on the wire beside it, or it came well below its fair share of the
   * master's egress beside them), and three such in a row far below the estimate show the link's rate
   * dropped ({@link #BANDWIDTH_SHIFT}). Beside others a slow transfer may otherwise be a share of the
   * egress: one far below between them neither counts nor ends the row.
   */
  public void transferred(String worker, long bytes, double seconds, boolean own) {
    figures(worker).bandwidth.observe(bytes, seconds, own);
    medianBandwidth = Double.NaN;
    changed(worker);
  }

  /**
   * The worker's link was seen cut while a transfer crossed it: a run of its worker's paces, each
   * {@link #PACE_SHIFT} times below what the link was known to do, put it at {@code bytesPerSecond}
   * over {@code seconds}. Below the estimate, it restarts from there, as after a run of transfers far
   * below it ({@link DecayingRate#cut}); the transfer as a whole is no measure. Returns whether the
   * estimate changed.
   */
  public boolean linkCut(String worker, double bytesPerSecond, double seconds) {
    WorkerFigures f = workers.get(worker);
    if (f == null || !f.bandwidth.cut(bytesPerSecond, seconds)) {
      return false;
    }
    medianBandwidth = Double.NaN;
    changed(worker);
    return true;
  }

  /** A checkpoint round trip took {@code seconds}. */
  public void overhead(double seconds) {
    eps.observe(seconds, 1);
  }

  /**
   * A write made durable by the same store took {@code seconds}: eps's figure until the first
   * checkpoint round trip is measured, which replaces it.
   */
  public void overheadPrior(double seconds) {
    eps.prior(seconds, 1);
  }

  @Override
  public Estimate speed(String worker, String workload) {
    WorkerFigures f = workers.get(worker);
    DecayingRate r = f == null ? null : f.speed.get(workload);
    return r == null ? Estimate.UNKNOWN : r.estimate();
  }

  /** Measured bandwidth in bytes/s, or unknown. */
  @Override
  public Estimate bandwidth(String worker) {
    WorkerFigures f = workers.get(worker);
    return f == null ? Estimate.UNKNOWN : f.bandwidth.estimate();
  }

  /** Bandwidth for planning: measured, else the median of measured workers, else infinite. */
  public double plannedBandwidth(String worker) {
    Estimate own = bandwidth(worker);
    if (own.known()) {
      return own.value();
    }
    // every worker without a measure of its own asks this: the median is kept until a bandwidth changes
    if (Double.isNaN(medianBandwidth)) {
      medianBandwidth = medianOfMeasured();
    }
    return medianBandwidth;
  }

  private double medianOfMeasured() {
    List<Double> known = new ArrayList<>();
    for (WorkerFigures f : workers.values()) {
      Estimate e = f.bandwidth.estimate();
      if (e.known()) {
        known.add(e.value());
      }
    }
    if (known.isEmpty()) {
      return Double.POSITIVE_INFINITY;
    }
    Collections.sort(known);
    return known.get(known.size() / 2);
  }

  /**
   * Eps in seconds: measured (its observations), or, before the first, the prior of a store write
   * ({@link #overheadPrior}, 0 observations); unknown before either.
   */
  @Override
  public Estimate eps() {
    return eps.estimate();
  }

  // ---------------------------------------------------------------- sessions

  /**
   * The worker's past as the store knows it (replaces what was known of its past sessions).
   *
   * @param interruptions sessions that ended in an interruption
   * @param exposureSeconds seconds up over all past sessions
   */
  public void history(String worker, long interruptions, double exposureSeconds) {
    figures(worker).history(interruptions, exposureSeconds, fleet);
  }

  /**
   * The outages of the worker's past as a prior gives them (replaces what was given before):
   * {@code returns} after an interruption, lasting {@code downtimeSeconds} in all. They count in its
   * mean downtime and the fleet's as the outages seen do, but not in the outages' shape.
   */
  public void pastOutages(String worker, long returns, double downtimeSeconds) {
    figures(worker).pastOutages(returns, downtimeSeconds, fleet);
  }

  /**
   * A past session of the worker, from the store, for its hours of the week (its totals come
   * through {@link #history}): up from {@code startEpoch} to {@code endEpoch} (epoch seconds),
   * ended by an interruption or not. Needs the wall clock.
   */
  public void pastSession(String worker, double startEpoch, double endEpoch, boolean interrupted) {
    if (zone == null) {
      throw new IllegalStateException("past sessions by hour of the week need the wall clock (wallClock)");
    }
    figures(worker).pastSession(startEpoch, endEpoch, interrupted, zone, fleet);
  }

  /**
   * A session starts at {@code now}.
   *
   * @param declaredEnd when the worker says it will surely be gone (controller time), or infinity
   */
  public void up(String worker, double now, double declaredEnd) {
    figures(worker).up(now, declaredEnd, fleet);
  }

  /** The session ends at {@code now}, interrupted or not (a drain, a goodbye). */
  public void down(String worker, double now, boolean interrupted) {
    down(worker, now, interrupted, interrupted);
  }

  /**
   * The worker went down at {@code now}; {@code crash}: the interruption lost what it had not saved
   * (a vacate, where it saved it first, is an interruption but not a crash).
   */
  public void down(String worker, double now, boolean interrupted, boolean crash) {
    figures(worker).down(now, interrupted, crash, epochAtZero, zone, fleet);
  }

  /**
   * How long the worker has been down after an interruption, seconds; NaN when it is up, unknown,
   * or left without being interrupted (a drain, a goodbye, its declared end): such a worker is not
   * expected back.
   */
  public double downFor(String worker, double now) {
    WorkerFigures f = workers.get(worker);
    return f == null || Double.isNaN(f.downSince) ? Double.NaN : f.outage(now);
  }

  /** Seconds the worker has been up in its current session; NaN when it is not up. */
  public double upFor(String worker, double now) {
    WorkerFigures f = workers.get(worker);
    return f == null || Double.isNaN(f.upSince) ? Double.NaN : f.live(now);
  }

  // ---------------------------------------------------------------- outages and returns, for forecasts

  /** Periods a shape rests on before its own count weighs as much (see {@link #upShape}). */
  public static final double SHAPE_PRIOR = 5;

  /**
   * The Weibull shape of the fleet's up periods (those that ended in an interruption), from the
   * variance of their logarithms: 1 for an exponential law, below for the heavy tails of desktops
   * (about 0.45 on the Notre Dame fit), where the squares' variability of a few dozen periods reads
   * near 1 most of the time, as the long periods that make a heavy tail are rarely among them. Shrunk
   * toward 1 by {@link #SHAPE_PRIOR} periods' weight.
   */
  public double upShape() {
    return fleet.upShape();
  }

  /** As {@link #upShape()}, for the outages that ended in a return. */
  public double downShape() {
    return fleet.downShape();
  }

  /** The returns after an interruption the worker's downtime rests on (a prior's included; see {@link #downtime}). */
  public long returns(String worker) {
    WorkerFigures f = workers.get(worker);
    return f == null ? 0 : f.returns + f.priorReturns;
  }

  /** Returns after an interruption seen over the fleet (this run's and the store's past sessions'). */
  public long returns() {
    return fleet.returns();
  }

  /**
   * The mean seconds an interruption keeps the worker away, for a forecast: the outages seen to end
   * (this run's and, with the wall clock, the store's past sessions'), with the outages under way
   * counted for the time they have lasted so far (the estimate of an exponential law's mean from
   * censored observations), the worker's own shrunk toward the fleet's by one outage's weight.
   * Infinite while no outage has been seen anywhere: a worker that went down is not expected back.
   */
  public double downtime(String worker, double now) {
    return downtime(worker, now, fleetDowntime(now));
  }

  /**
   * Seconds after which a worker down since an interruption is taken to have left for good (a week):
   * a forecast does not count on it, and its outage no longer counts among the outages under way.
   */
  public static final double DEPARTED_AFTER = 7 * 86_400;

  /**
   * The fleet's mean downtime (see {@link #downtime(String, double)}): one pass over the workers, for
   * a caller that asks {@link #downtime(String, double, double)} of each.
   */
  public double fleetDowntime(double now) {
    return fleet.downtime(workers.values(), now);
  }

  /** The worker's mean downtime given the fleet's, {@code fleet} from {@link #fleetDowntime}. */
  public double downtime(String worker, double now, double fleet) {
    if (Double.isInfinite(fleet)) {
      return fleet;
    }
    WorkerFigures f = workers.get(worker);
    if (f == null) {
      return fleet;
    }
    return Shrinkage.mean(f.downtime + f.priorDowntime + f.outage(now), f.returns + f.priorReturns, fleet);
  }

  // ---------------------------------------------------------------- risk

  /**
   * The worker's risk.
   *
   * @param rate interruptions per second up (0: none known)
   * @param interruptions interruptions it rests on
   * @param exposureSeconds seconds up it rests on (the current session included)
   * @param declaredEnd when the worker said it will be gone (controller time), or infinity
   */
  public record Risk(double rate, long interruptions, double exposureSeconds, double declaredEnd) {}

  @Override
  public Risk risk(String worker, double now) {
    WorkerFigures f = workers.get(worker);
    if (f == null) {
      return new Risk(fleet.rate(0), 0, 0, Double.POSITIVE_INFINITY);
    }
    double live = f.live(now);
    double exposure = f.exposure + live;
    double rate = Shrinkage.rate(f.interruptions, exposure, fleet.rate(live));
    if (f.week != null && rate > 0) {
      rate = f.week.rate(epochAtZero + now, RISK_HORIZON, rate);
    }
    return new Risk(rate, f.interruptions, exposure, f.declaredEnd);
  }

  /**
   * Crashes per second up, for a worker whose owner's returns lose nothing: {@code (c + 1) / (T +
   * 1/f)} from the c crashes this estimator saw over its T seconds up (its history's included) and
   * the fleet's crash rate f (no prior of crashes: a lent desktop's prior is of its owner's
   * returns); 0 while no crash has been seen.
   */
  @Override
  public double crashRate(String worker, double now) {
    WorkerFigures f = workers.get(worker);
    double live = f == null ? 0 : f.live(now);
    double fleetRate = fleet.crashRate(live);
    return f == null ? fleetRate : Shrinkage.rate(f.crashes, f.exposure + live, fleetRate);
  }

  /**
   * The worker as the planner sees it at {@code now}, or null when its speed for the workload is
   * unknown or its declared end has passed (it is then not planned).
   *
   * @param withInput whether the workload streams input (otherwise bandwidth is infinite)
   * @param bytesPerUnit input bytes per unit, for a bandwidth in units/s
   */
  @Override
  public Worker worker(String id, String workload, boolean withInput, double bytesPerUnit, RiskModel model,
      double now) {
    return worker(id, workload, withInput, bytesPerUnit, model, false, now);
  }

  /**
   * The worker as the planner sees it, its risk that of losing work: with {@code savesOnVacate}
   * (its owner policy saves the piece under way as it vacates) an owner's return loses nothing,
   * so its risk is that of crashes alone ({@link #crashRate}), and paper 000's checkpoints, which
   * trade eps against the work an interruption loses, are laid out against crashes only.
   */
  public Worker worker(String id, String workload, boolean withInput, double bytesPerUnit, RiskModel model,
      boolean savesOnVacate, double now) {
    Estimate s = speed(id, workload);
    if (!s.known() || !(s.value() > 0)) {
      return null;
    }
    double bw = withInput ? plannedBandwidth(id) / bytesPerUnit : Double.POSITIVE_INFINITY;
    Risk r = risk(id, now);
    double rate = savesOnVacate ? crashRate(id, now) : r.rate();
    double kappa = rate > 0 ? model.riskForRate(rate) : 0;
    if (Double.isFinite(r.declaredEnd())) {
      double left = r.declaredEnd() - now;
      if (!(left > 0)) {
        return null;
      }
      kappa = Math.max(kappa, model.riskForEnd(left));
    }
    return new Worker(id, s.value(), bw, kappa);
  }
}
