package dev.gleaner.common.sim;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.Outset;
import dev.gleaner.common.trace.DesktopTraceGenerator.Weibull;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What a running job will come to: the simulator ({@link ClosedLoop}, the real controller inside)
 * run forward from where the job stands now, {@link #RUNS} times, each in a world of its own drawn
 * from what the master knows and within what it does not.
 *
 * <p>Each run starts from the {@link Outset}: the units not yet saved (what the pieces under way have
 * computed by now counts as saved), the workers up now, and those down after an interruption,
 * which come back. A worker's up periods are Weibull of the fleet's shape (measured from the
 * periods seen, {@code Estimator#upShape}) and of the mean its estimated rate says; its outages of
 * the outages' shape and its mean downtime (each resting on the priors `--expected-up` and
 * `--expected-down` until the worker's own are seen); the period each worker is in now is drawn
 * given how long it has lasted. When most of the workers save their piece as they vacate,
 * interruptions are owners' visits, otherwise crashes ({@link ClosedLoop.Interruptions}). Each
 * piece costs the measured eps.
 *
 * <p>What each run draws of what is not known:
 * <ul>
 *   <li>the fleet's mean up time and mean outage, shared by every worker, and each worker's own beside
 *       them: a mean of n periods of a law of squared variation c2 is uncertain by c2 / n (a Gamma
 *       factor of mean 1);
 *   <li>the pace of the rest of the job, shared by the workers: the speeds seen, scaled by as much as
 *       the pieces' speeds have spread ({@code Estimator#speedSpread}), less as the time seen grows
 *       beside the time ahead; a worker not measured yet, by a factor of 3 either way, its own.
 * </ul>
 * No forecast is made before a piece of the workload is measured: a calibration alone can be off by
 * several times.
 *
 * <p>The forecast is the mean of the runs, with the lowest and the highest as its band (were the
 * runs' worlds the real one's equals, the real figure would fall between them 19 times in 21).
 * {@link #run} takes the job to have its workers to itself; {@link #runTogether} runs the jobs that
 * share a workload together, each with the share of the workers the controller gives it.
 */
public final class Forecast {
  private Forecast() {}

  /**
   * Simulated runs per forecast. Its band is the lowest and the highest of them: were the runs'
   * world the real one, the real figure would fall between them 19 times in 21 ((n - 1) / (n + 1)).
   */
  public static final int RUNS = 20;
  /**
   * The standard deviation of the logarithm of a worker's speed while it rests on its calibration
   * alone (a factor of 3 either way at one standard deviation): a calibration on a sample of the range, on a machine it may
   * share with other workers, is that far off (2.4 to 4.8 times too fast for two workers sharing
   * two cores on primes up to 10^12).
   */
  static final double CALIBRATION_SPREAD = Math.log(3);
  /** eps assumed until one is measured, seconds. */
  static final double EPS_UNMEASURED = 0.005;
  /** The most controller ticks a run makes: a long job's runs tick more coarsely. */
  static final double MAX_TICKS = 20_000;
  /** Without a deadline, a run stops this many times the fleet's ideal time for the rest. */
  static final double HORIZON_FACTOR = 8;
  /** Without a deadline, no run goes past this, seconds (a year). */
  static final double MAX_HORIZON = 365 * 86_400.0;

  /**
   * The forecast.
   *
   * @param runs simulated runs it rests on
   * @param units units saved in the end (by the deadline, if any): mean of the runs
   * @param unitsLow the lowest of the runs
   * @param unitsHigh the highest of the runs
   * @param finished share of the runs that saved every unit
   * @param end when the job ends (controller time), median of the runs that saved every unit;
   *     infinite when fewer than half did
   * @param endLow the earliest end of the runs (infinite when none finished)
   * @param endHigh the latest (infinite when one did not finish)
   * @param deadline the job's deadline (controller time), infinite for none
   * @param at the controller time the forecast starts from
   */
  public record Outlook(int runs, double units, double unitsLow, double unitsHigh, double finished, double end,
      double endLow, double endHigh, double deadline, double at) {}

  /**
   * Runs the job forward {@code runs} times from {@code outset}.
   *
   * @param tick the controller's tick, seconds (the runs tick no more than {@link #MAX_TICKS} times)
   * @param seed the interruptions' draws
   * @return null when no worker can take the job, now or later, or no piece of its workload has been
   *     measured yet
   */
  public static Outlook run(Outset outset, ControlConfig config, double tick, int runs, long seed) {
    if (runs < 1) {
      throw new IllegalArgumentException("a forecast needs at least one run, got " + runs);
    }
    if (!measured(outset.hosts())) {
      // no worker can take it, or no piece of the workload has been measured yet: a calibration may be
      // off by several times (a sample of the range, a machine shared with other workers)
      return null;
    }
    return together(List.of(outset), java.util.Map.of(), config, tick, runs, seed).get(outset.job().id());
  }

  /**
   * The running jobs forward together, {@code runs} times: in each run the jobs that share a workload
   * (and its bytes per unit) share one drawn world of workers, and the controller shares the workers
   * among them as the master does (owners by {@code shares}, priorities, arrival), so each job's
   * outlook counts the others'. The outsets are in the jobs' order of arrival. A job of a workload
   * alone, or whose workers are not known, gets {@link #run}'s outlook.
   *
   * @return each job's outlook by id (null where {@link #run} gives none)
   */
  public static java.util.Map<String, Outlook> runTogether(List<Outset> outsets, java.util.Map<String, Double> shares,
      ControlConfig config, double tick, int runs, long seed) {
    java.util.Map<String, Outlook> out = new java.util.LinkedHashMap<>();
    java.util.Map<String, List<Outset>> groups = new java.util.LinkedHashMap<>();
    for (Outset o : outsets) {
      groups.computeIfAbsent(o.job().workload() + "/" + o.job().bytesPerUnit(), k -> new ArrayList<>()).add(o);
    }
    for (List<Outset> group : groups.values()) {
      if (group.size() == 1 || !measured(group.get(0).hosts())) {
        for (Outset o : group) {
          out.put(o.job().id(), run(o, config, tick, runs, seed ^ o.job().id().hashCode()));
        }
      } else {
        out.putAll(together(group, shares, config, tick, runs, seed));
      }
    }
    return out;
  }

  /** Whether a worker can take the job and a piece of its workload was measured (else no forecast). */
  private static boolean measured(List<Outset.Host> hosts) {
    return speeds(hosts) > 0 && hosts.stream().anyMatch(h -> h.speedSeconds() > 0);
  }

  /** The speeds of the workers up, or down and expected back, summed. */
  private static double speeds(List<Outset.Host> hosts) {
    double speeds = 0;
    for (Outset.Host h : hosts) {
      if (h.up() || Double.isFinite(h.downtime())) {
        speeds += h.speed();
      }
    }
    return speeds;
  }

  /** How many of the workers save their piece as they vacate (their interruptions are owners' visits). */
  private static int saving(List<Outset.Host> hosts) {
    return (int) hosts.stream().filter(Outset.Host::savesOnVacate).count();
  }

  /**
   * The jobs of one workload run forward together (one job: {@link #run}). Each run stops at the
   * latest deadline (and its grace) if every job has one, else at the later of that and
   * {@link #HORIZON_FACTOR} times the fleet's ideal time for the rest.
   */
  private static java.util.Map<String, Outlook> together(List<Outset> group, java.util.Map<String, Double> shares,
      ControlConfig config, double tick, int runs, long seed) {
    Outset first = group.get(0);
    // the workers that can take any of them (one workload: each outset lists the same, less those set aside)
    java.util.Map<String, Outset.Host> byId = new java.util.LinkedHashMap<>();
    for (Outset o : group) {
      for (Outset.Host h : o.hosts()) {
        byId.putIfAbsent(h.id(), h);
      }
    }
    List<Outset.Host> hosts = new ArrayList<>(byId.values());
    double now = first.now();
    double speeds = speeds(hosts);
    int saving = saving(hosts);
    long left = 0;
    double latestDeadline = 0;
    boolean allDeadlines = true;
    List<ClosedLoop.Arrival> arrivals = new ArrayList<>();
    for (Outset o : group) {
      JobDef j = o.job();
      left += j.remaining().size();
      boolean deadline = Double.isFinite(j.deadline());
      allDeadlines &= deadline;
      if (deadline) {
        latestDeadline = Math.max(latestDeadline, j.deadline() - now);
      }
      // the runs' clock starts now
      arrivals.add(new ClosedLoop.Arrival(0, deadline ? j.withDeadline(j.deadline() - now) : j));
    }
    double eps = Double.isFinite(first.eps()) ? first.eps() : EPS_UNMEASURED;
    // the deadline's grace, as the controller gives it, for the pieces under way to come in
    double grace = Math.max(ControlConfig.DEADLINE_GRACE, 3 * eps);
    double byDeadline = latestDeadline + grace + 2 * tick;
    double byWork = Math.min(MAX_HORIZON, Math.max(60, HORIZON_FACTOR * left / speeds));
    double horizon = allDeadlines ? byDeadline : latestDeadline > 0 ? Math.max(byDeadline, byWork) : byWork;
    // the time the rest runs for: to the deadline, or as long as the fleet takes for it
    double ahead = allDeadlines ? horizon : Math.min(horizon, left / speeds);
    ClosedLoop.Setup setup = new ClosedLoop.Setup(config, Math.max(tick, horizon / MAX_TICKS), eps, horizon,
        2 * saving > hosts.size() ? ClosedLoop.Interruptions.VACATE : ClosedLoop.Interruptions.CRASH);
    int n = group.size();
    double[][] units = new double[n][runs];
    double[][] ends = new double[n][runs];
    int[] finished = new int[n];
    for (int r = 0; r < runs; r++) {
      SplittableRandom random = new SplittableRandom(seed * 7_919 + r);
      ClosedLoop.Shared result = ClosedLoop.runAll(arrivals, draw(hosts, horizon, ahead, now, first.upShape(),
          first.downShape(), first.speedSpread(), random), setup, shares, (c, t) -> { });
      for (int k = 0; k < n; k++) {
        ClosedLoop.JobEnd e = result.jobs().get(k);
        JobDef j = group.get(k).job();
        // the run's job counts the units saved before it as committed
        units[k][r] = e.committed();
        boolean all = e.committed() >= j.end() - j.start();
        // every unit saved by the run's last event, ended or not (its checks may still run)
        double end = Double.isNaN(e.end()) ? result.figures().end() : e.end();
        ends[k][r] = all ? now + end : Double.POSITIVE_INFINITY;
        finished[k] += all ? 1 : 0;
      }
    }
    java.util.Map<String, Outlook> out = new java.util.LinkedHashMap<>();
    for (int k = 0; k < n; k++) {
      Arrays.sort(units[k]);
      Arrays.sort(ends[k]);
      JobDef j = group.get(k).job();
      out.put(j.id(), new Outlook(runs, Arrays.stream(units[k]).average().orElse(0), units[k][0],
          units[k][runs - 1], (double) finished[k] / runs, quantile(ends[k], 0.5), ends[k][0], ends[k][runs - 1],
          j.deadline(), now));
    }
    return out;
  }

  /** The q-quantile of sorted values (the nearest rank). */
  static double quantile(double[] sorted, double q) {
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  /**
   * One run's hosts: each worker's outages over the horizon, its up periods drawn from a Weibull of
   * the fleet's shape and mean one over its rate, its outages from one of the fleet's shape and mean
   * its downtime ({@link Law}); a worker up (or down) now draws what is left of the period it has
   * been in so far.
   *
   * <p>The means are estimates, and each run draws its own world to carry their uncertainty: the
   * fleet's mean up time and outage, shared by every worker (they rest on the same fleet's periods),
   * and each worker's own beside it. A mean of n periods of a law of squared coefficient of variation
   * c2 is uncertain by c2 / n: each is scaled by a factor of mean 1 of that spread.
   */
  static List<ClosedLoop.Host> draw(List<Outset.Host> hosts, double horizon, double ahead, double now,
      double upShape, double downShape, double speedSpread, SplittableRandom random) {
    double upC2 = Math.max(1, Weibull.variability(upShape));
    double downC2 = Math.max(1, Weibull.variability(downShape));
    long seenUp = 0;
    long seenDown = 0;
    for (Outset.Host h : hosts) {
      seenUp += h.interruptions();
      seenDown += h.returns();
    }
    double fleetRate = factor(random, (seenUp + 1) / upC2);
    double fleetDown = factor(random, (seenDown + 1) / downC2);
    // the pace of the rest of the job, shared by the workers (the workload's cost along the range, a
    // JVM warming up): as far from the pace seen as the pieces' spread, less as the time seen grows
    double pace = normal(random);
    List<ClosedLoop.Host> out = new ArrayList<>(hosts.size());
    for (Outset.Host h : hosts) {
      double rate = h.rate() * fleetRate * factor(random, (h.interruptions() + 1) / upC2);
      double downtime = h.downtime() * fleetDown * factor(random, (h.returns() + 1) / downC2);
      Law ups = Law.of(rate > 0 ? 1 / rate : Double.POSITIVE_INFINITY, upShape);
      Law downs = Law.of(downtime, downShape);
      double join = h.up() ? 0 : downs.residual(random, h.downFor());
      if (!(join <= horizon)) {
        continue;
      }
      List<double[]> outages = new ArrayList<>();
      double t = join;
      double age = h.up() && h.upFor() > 0 ? h.upFor() : 0;
      // bounded: each outage takes a draw of the time up, and the loop ends past the horizon
      for (int i = 0; i < 100_000; i++) {
        double down = t + ups.residual(random, age);
        if (!(down <= horizon)) {
          break;
        }
        double up = down + downs.residual(random, 0);
        outages.add(new double[] {down, up});
        if (!Double.isFinite(up)) {
          break;
        }
        t = up;
        age = 0;
      }
      double until = h.availableUntil() - now;
      // a worker not measured yet has its calibration: off by several times, its own way
      double spread = h.speedSeconds() > 0 ? speedSpread * Math.sqrt(ahead / (ahead + h.speedSeconds()))
          : 0;
      double own = h.speedSeconds() > 0 ? 0 : CALIBRATION_SPREAD * normal(random);
      double speed = h.speed() * Math.exp(pace * spread + own);
      out.add(new ClosedLoop.Host(h.id(), speed, h.bandwidth(), h.speed(), join, outages,
          until > 0 ? until : 0, h.interruptions(), h.exposureSeconds()));
    }
    return out;
  }

  /**
   * A factor of mean 1 whose spread is that of a mean estimated from {@code n} observations (Gamma
   * of shape n), n taken as 1 at least: below, the Gamma's draws crowd at 0 (a worker seen by no
   * prior and no period of a heavy-tailed fleet would mostly draw a mean of nothing).
   */
  static double factor(SplittableRandom random, double n) {
    double shape = Math.max(1, n);
    return gamma(random, shape) / shape;
  }

  /**
   * A law of durations of a given mean and Weibull shape (an infinite mean: none ends). Below shape
   * 1 its hazard falls with age: a desktop up for long is likely to stay up for long, and one down
   * for long to stay down, as on the desktop traces, whose periods are Weibull of shape about 0.5.
   */
  record Law(Weibull weibull) {
    static Law of(double mean, double shape) {
      // a mean of no time (a draw that underflowed, a worker seen back at once): a millisecond
      return new Law(Double.isInfinite(mean) ? null : Weibull.ofMean(shape, mean > 1e-3 ? mean : 1e-3));
    }

    double mean() {
      return weibull == null ? Double.POSITIVE_INFINITY : weibull.mean();
    }

    /** A draw of what is left of a period that has lasted {@code age} seconds so far. */
    double residual(SplittableRandom random, double age) {
      return weibull == null ? Double.POSITIVE_INFINITY : weibull.residual(age, random.nextDouble());
    }
  }

  /**
   * A draw of the Gamma law of shape {@code k} and scale 1 (Marsaglia and Tsang 2000; for a shape
   * below 1, boosted by {@code u^(1/k)}).
   */
  static double gamma(SplittableRandom random, double k) {
    if (k < 1) {
      return gamma(random, k + 1) * Math.pow(random.nextDouble(), 1 / k);
    }
    double d = k - 1.0 / 3;
    double c = 1 / Math.sqrt(9 * d);
    // accepts with probability above 0.95 per try: 1,000 tries never all fail in practice
    for (int i = 0; i < 1000; i++) {
      double x = normal(random);
      double v = 1 + c * x;
      if (v <= 0) {
        continue;
      }
      v = v * v * v;
      double u = random.nextDouble();
      if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) {
        return d * v;
      }
    }
    return k;
  }

  /** A standard normal draw (Box-Muller). */
  private static double normal(SplittableRandom random) {
    return Math.sqrt(-2 * Math.log1p(-random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
  }
}
