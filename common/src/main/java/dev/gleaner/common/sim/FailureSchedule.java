package dev.gleaner.common.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * When one computer goes down and comes back, drawn from a seeded distribution or read from a
 * trace: the same schedule drives a worker's built-in failure injection ({@code gleaner worker
 * --interrupt}) and a simulated worker ({@code gleaner simulate}), so both meet the same
 * interruptions.
 *
 * <p>Spec: {@code linear:KAPPA} (lifetime uniform on [0, 1/KAPPA] seconds from each start, the
 * papers' linear risk), {@code exponential:RATE}, {@code weibull:SHAPE,SCALE} (SCALE in seconds),
 * or {@code trace} (outages given). After each interruption the computer is down for a time drawn
 * from an exponential distribution of mean {@code downtime} seconds (infinite: it never comes back).
 * The draws for a worker depend only on the seed and its id.
 *
 * @param kind linear, exponential, weibull or trace
 * @param a KAPPA, RATE or SHAPE
 * @param b SCALE for weibull
 * @param downtime mean seconds down after an interruption
 * @param trace for kind trace: outages {@code [down, up]} in seconds from the start
 */
public record FailureSchedule(String kind, double a, double b, double downtime, List<double[]> trace) {
  public FailureSchedule {
    trace = trace == null ? List.of() : List.copyOf(trace);
    if (!(downtime > 0)) {
      throw new IllegalArgumentException("the mean downtime must be positive seconds, got " + downtime);
    }
  }

  /**
   * Parses {@code linear:0.001}, {@code exponential:0.001} or {@code weibull:0.45,15000}.
   *
   * @throws IllegalArgumentException with the accepted forms
   */
  public static FailureSchedule parse(String spec, double downtime) {
    String s = spec.trim().toLowerCase(Locale.ROOT);
    int colon = s.indexOf(':');
    String kind = colon < 0 ? s : s.substring(0, colon);
    String[] args = colon < 0 ? new String[0] : s.substring(colon + 1).split(",");
    try {
      switch (kind) {
        case "linear", "exponential" -> {
          require(args.length == 1, spec);
          double r = Double.parseDouble(args[0]);
          if (!(r > 0) || Double.isInfinite(r)) {
            throw new IllegalArgumentException("the risk in '" + spec + "' must be a positive number per second");
          }
          return new FailureSchedule(kind, r, 0, downtime, null);
        }
        case "weibull" -> {
          require(args.length == 2, spec);
          double shape = Double.parseDouble(args[0]);
          double scale = Double.parseDouble(args[1]);
          if (!(shape > 0) || !(scale > 0) || Double.isInfinite(shape) || Double.isInfinite(scale)) {
            throw new IllegalArgumentException("weibull shape and scale in '" + spec + "' must be positive numbers");
          }
          return new FailureSchedule(kind, shape, scale, downtime, null);
        }
        default -> throw new IllegalArgumentException(usage(spec));
      }
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(usage(spec), e);
    }
  }

  private static void require(boolean ok, String spec) {
    if (!ok) {
      throw new IllegalArgumentException(usage(spec));
    }
  }

  private static String usage(String spec) {
    return "bad interruption spec '" + spec + "'; use linear:KAPPA, exponential:RATE or weibull:SHAPE,SCALE_SECONDS";
  }

  /**
   * Outages from a trace's text: one {@code DOWN UP} pair of seconds per line ({@code UP} may be
   * {@code inf}), increasing; {@code #} starts a comment.
   *
   * @throws IllegalArgumentException naming the first bad line
   */
  public static FailureSchedule trace(String text, String where) {
    List<double[]> outages = new ArrayList<>();
    double last = 0;
    String[] lines = text.split("\n");
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].replaceAll("#.*", "").trim();
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split("\\s+");
      try {
        if (f.length != 2) {
          throw new NumberFormatException();
        }
        double down = Double.parseDouble(f[0]);
        double up = f[1].equalsIgnoreCase("inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(f[1]);
        if (!(down >= last) || !(up > down)) {
          throw new IllegalArgumentException(where + " line " + (i + 1) + ": outages must be increasing and end after"
              + " they start, got '" + lines[i].trim() + "'");
        }
        outages.add(new double[] {down, up});
        last = up;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(where + " line " + (i + 1) + ": expected 'DOWN_SECONDS UP_SECONDS', got '"
            + lines[i].trim() + "'", e);
      }
    }
    return new FailureSchedule("trace", 0, 0, 1, outages);
  }

  /** One drawn lifetime, seconds, for a uniform draw u in [0, 1). */
  double lifetime(double u) {
    return switch (kind) {
      case "linear" -> u / a;
      case "exponential" -> -Math.log1p(-u) / a;
      case "weibull" -> b * Math.pow(-Math.log1p(-u), 1 / a);
      default -> Double.POSITIVE_INFINITY;
    };
  }

  /**
   * The outages of worker {@code id} up to {@code horizon} seconds from its start: {@code [down, up]}
   * pairs, increasing; {@code up} is infinite for an outage with no return.
   */
  public List<double[]> outages(long seed, String id, double horizon) {
    if (kind.equals("trace")) {
      List<double[]> out = new ArrayList<>();
      for (double[] o : trace) {
        if (o[0] <= horizon) {
          out.add(o.clone());
        }
      }
      return out;
    }
    SplittableRandom random = new SplittableRandom(seed * 1_000_003L + id.hashCode());
    List<double[]> out = new ArrayList<>();
    double t = 0;
    for (int i = 0; i < 1_000_000; i++) {
      double down = t + lifetime(random.nextDouble());
      if (!(down <= horizon)) {
        break;
      }
      double up = Double.isInfinite(downtime) ? Double.POSITIVE_INFINITY : down - downtime * Math.log1p(-random.nextDouble());
      out.add(new double[] {down, up});
      if (Double.isInfinite(up)) {
        break;
      }
      t = up;
    }
    return out;
  }

  /**
   * A worker's outages as a job sees them that starts {@code offset} seconds after the worker's
   * failure clock started.
   *
   * @param joinAt when, from the job's start, the worker is first up (0, or the end of an outage
   *     under way at the start)
   * @param outages the later outages, {@code [down, up]} seconds from the job's start
   */
  public record Seen(double joinAt, List<double[]> outages) {
    public Seen {
      outages = List.copyOf(outages);
    }
  }

  /**
   * The outages of worker {@code id} (seed as {@link #outages}) up to {@code horizon} seconds from
   * the job's start, seen from a job that started {@code offset} seconds after the worker's clock.
   */
  public Seen seenFrom(long seed, String id, double offset, double horizon) {
    double joinAt = 0;
    List<double[]> later = new ArrayList<>();
    for (double[] o : outages(seed, id, offset + horizon)) {
      if (o[1] - offset <= 0) {
        continue;
      }
      if (o[0] - offset <= 0) {
        joinAt = o[1] - offset;
      } else {
        later.add(new double[] {o[0] - offset, o[1] - offset});
      }
    }
    return new Seen(joinAt, later);
  }

  @Override
  public String toString() {
    return switch (kind) {
      case "linear", "exponential" -> kind + ":" + a;
      case "weibull" -> kind + ":" + a + "," + b;
      default -> "trace of " + trace.size() + " outages";
    } + (kind.equals("trace") ? "" : ", mean downtime " + downtime + " s");
  }
}
