package dev.gleaner.common.sim;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.Outset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What a running job will come to: the simulator ({@link ClosedLoop}, the real controller inside)
 * run forward from where the job stands now, several times, each with its own draw of the
 * interruptions the estimator expects.
 *
 * <p>Each run starts from the {@link Outset}: the units not yet saved (what the pieces under way have
 * computed by now counts as saved), the workers up now at their measured speed and
 * bandwidth, and those down after an interruption, which come back. A worker's up periods have the
 * mean its estimated rate says (the estimator's hazard for the hours ahead), its outages the mean of
 * its measured downtime, and both the variability the fleet's periods have shown ({@link Law}); the
 * period each worker is in now is drawn given how long it has lasted. When most of the workers save
 * their piece as they vacate, interruptions are owners' visits, otherwise crashes
 * ({@link ClosedLoop.Interruptions}). Each piece costs the measured eps.
 *
 * <p>The rates and downtimes are estimates, and each run draws its own world to carry their
 * uncertainty into the band: each worker's rate is scaled by a factor drawn from the Gamma law of
 * the interruptions it rests on (shape their count, mean 1: the law of an exponential rate's
 * estimate from that many observations), and its downtime likewise by the returns it rests on: a
 * worker seen back once or never may stay away far longer, or shorter, than its estimate.
 *
 * <p>The forecast is the mean of the runs, with their 10th and 90th percentiles as its band. It
 * takes the job to have its workers to itself: with other jobs running, it is optimistic.
 */
public final class Forecast {
  private Forecast() {}

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
   * @param unitsLow the runs' 10th percentile
   * @param unitsHigh the runs' 90th percentile
   * @param finished share of the runs that saved every unit
   * @param end when the job ends (controller time), median of the runs that saved every unit;
   *     infinite when fewer than half did
   * @param endLow 10th percentile of the end (infinite when fewer than a tenth finished)
   * @param endHigh 90th percentile of the end (infinite when fewer than nine tenths finished)
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
   * @return null when no worker can take the job, now or later
   */
  public static Outlook run(Outset outset, ControlConfig config, double tick, int runs, long seed) {
    if (runs < 1) {
      throw new IllegalArgumentException("a forecast needs at least one run, got " + runs);
    }
    List<Outset.Host> hosts = outset.hosts();
    double speeds = 0;
    int saving = 0;
    for (Outset.Host h : hosts) {
      if (h.up() || Double.isFinite(h.downtime())) {
        speeds += h.speed();
      }
      saving += h.savesOnVacate() ? 1 : 0;
    }
    if (!(speeds > 0)) {
      return null;
    }
    JobDef job = outset.job();
    double now = outset.now();
    boolean deadline = Double.isFinite(job.deadline());
    long left = job.remaining().size();
    double eps = Double.isFinite(outset.eps()) ? outset.eps() : EPS_UNMEASURED;
    // the deadline's grace, as the controller gives it, for the pieces under way to come in
    double grace = Math.max(ControlConfig.DEADLINE_GRACE, 3 * eps);
    double horizon = deadline ? Math.max(0, job.deadline() - now) + grace + 2 * tick
        : Math.min(MAX_HORIZON, Math.max(60, HORIZON_FACTOR * left / speeds));
    // the runs' clock starts now
    JobDef shifted = deadline ? job.withDeadline(job.deadline() - now) : job;
    ClosedLoop.Setup setup = new ClosedLoop.Setup(config, Math.max(tick, horizon / MAX_TICKS), eps, horizon,
        2 * saving > hosts.size() ? ClosedLoop.Interruptions.VACATE : ClosedLoop.Interruptions.CRASH);
    double[] units = new double[runs];
    double[] ends = new double[runs];
    int finished = 0;
    for (int r = 0; r < runs; r++) {
      SplittableRandom random = new SplittableRandom(seed * 7_919 + r);
      ClosedLoop.Result result = ClosedLoop.run(shifted,
          draw(hosts, horizon, now, outset.upVariability(), outset.downVariability(), random), setup);
      // the run's job counts the units saved before it as committed
      units[r] = result.committed();
      boolean all = result.committed() >= job.end() - job.start();
      ends[r] = all ? now + result.end() : Double.POSITIVE_INFINITY;
      finished += all ? 1 : 0;
    }
    Arrays.sort(units);
    Arrays.sort(ends);
    return new Outlook(runs, Arrays.stream(units).average().orElse(0), quantile(units, 0.1), quantile(units, 0.9),
        (double) finished / runs, quantile(ends, 0.5), quantile(ends, 0.1), quantile(ends, 0.9),
        job.deadline(), now);
  }

  /** The q-quantile of sorted values (the nearest rank). */
  static double quantile(double[] sorted, double q) {
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
  }

  /**
   * One run's hosts: each worker's outages over the horizon, its up periods drawn from a law of mean
   * one over its rate and its outages from one of mean its downtime, each of the fleet's variability
   * ({@link Law}); a worker up (or down) now draws what is left of the period it has been in so far.
   */
  static List<ClosedLoop.Host> draw(List<Outset.Host> hosts, double horizon, double now, double upVariability,
      double downVariability, SplittableRandom random) {
    List<ClosedLoop.Host> out = new ArrayList<>(hosts.size());
    for (Outset.Host h : hosts) {
      // the worker's rate and downtime as this run's world has them, within what they rest on
      double k = h.interruptions() + 1;
      double rate = h.rate() * gamma(random, k) / k;
      // (scaled by a factor of mean 1: dividing by one, the law of the estimate's rate, would have no
      // mean for a worker seen back once or never)
      double r = h.returns() + 1;
      double downtime = h.downtime() * gamma(random, r) / r;
      Law ups = Law.of(rate > 0 ? 1 / rate : Double.POSITIVE_INFINITY, upVariability);
      Law downs = Law.of(downtime, downVariability);
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
      out.add(new ClosedLoop.Host(h.id(), h.speed(), h.bandwidth(), h.speed(), join, outages,
          until > 0 ? until : 0, h.interruptions(), h.exposureSeconds()));
    }
    return out;
  }

  /**
   * A law of durations of a given mean and squared coefficient of variation c2: exponential for c2
   * up to 1; above, the two-phase hyperexponential of balanced means (a period is short with
   * probability p, of mean m1, else long, of mean m2), the simplest law of that mean and variance.
   * Its hazard falls with age: a desktop up for long is likely to stay up for long, and one down for
   * long to stay down, as on the desktop traces, whose periods are Weibull of shape about 0.5.
   */
  record Law(double p, double m1, double m2) {
    static Law of(double mean, double c2) {
      if (!(c2 > 1) || Double.isInfinite(mean)) {
        return new Law(1, mean, mean);
      }
      double p = (1 + Math.sqrt((c2 - 1) / (c2 + 1))) / 2;
      return new Law(p, mean / (2 * p), mean / (2 * (1 - p)));
    }

    double mean() {
      return p * m1 + (1 - p) * m2;
    }

    /** A draw of what is left of a period that has lasted {@code age} seconds so far. */
    double residual(SplittableRandom random, double age) {
      if (p >= 1) {
        return exponential(random, m1);
      }
      // the phase it is in, given that it lasted this long: in logs, as e^(-age/m) underflows
      double short1 = Math.log(p) - age / m1;
      double long2 = Math.log1p(-p) - age / m2;
      double q = 1 / (1 + Math.exp(long2 - short1));
      return exponential(random, random.nextDouble() < q ? m1 : m2);
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

  /** A draw of an exponential law of {@code mean} (infinite mean: infinity). */
  private static double exponential(SplittableRandom random, double mean) {
    return Double.isInfinite(mean) ? Double.POSITIVE_INFINITY : -mean * Math.log1p(-random.nextDouble());
  }
}
