package dev.gleaner.common.port;

import java.util.Collection;

/**
 * When the master's port may start one more stream of chunk input, the one rule of the runtime's
 * port, the simulator's and the planner's timelines.
 *
 * <p>Streams are served in rank order (the plan's service order), each on the wire from its first
 * byte until its last byte has arrived. The next stream starts when nothing is on the wire, or when
 * every stream on the wire and it have a known link rate and their rates fit together in the
 * master's egress ({@code budget}, give or take {@link #SLACK}), at most {@code maxStreams} at once:
 * streams on the wire then hardly compete, each runs at (nearly) its own link's rate, and the time of
 * each is known in advance. One
 * stream at a time ({@code maxStreams} 1, or an egress no faster than the links) is the papers'
 * one-port model; an egress at least the sum of the links lets every stream go at once (bounded
 * multi-port). A stream whose link is not known yet runs alone, so that its rate measures its link.
 *
 * <p>While the egress is known only as a floor (what was sent so far), the sum may pass it by the
 * largest of the links ({@code probe}): one stream more than the floor allows, whose transfer either
 * raises the floor or shows the egress binding.
 *
 * @param maxStreams the most streams on the wire at once (1: one port)
 * @param budget the egress the streams' link rates must fit in, bytes/s ({@link Double#POSITIVE_INFINITY}: none)
 * @param probe whether the sum may pass the budget by the largest of the links
 */
public record PortRule(int maxStreams, double budget, boolean probe) {
  /** One stream at a time: the papers' model. */
  public static final PortRule ONE_PORT = new PortRule(1, Double.POSITIVE_INFINITY, false);

  /**
   * Every stream at once once its link and those on the wire are known, an unknown link alone: what a
   * plan that gives no order gets in the fit mode (its streams share the egress as TCP shares it).
   */
  public static final PortRule ALL_KNOWN = new PortRule(Integer.MAX_VALUE, Double.POSITIVE_INFINITY, false);

  /**
   * A stream's place in the port's order, from its rank: one with no place in a plan's order ({@link
   * Integer#MAX_VALUE}: a probe chunk held ahead from before the plan, a chunk for a worker the plan
   * left out) goes before the ranked ones. It is what its worker needs next, and the worker's planned
   * streams wait behind it; served last under one port, a probe chunk kept its worker idle for nine
   * seconds of a twelve-second job.
   */
  public static int order(int rank) {
    return rank == Integer.MAX_VALUE ? -1 : rank;
  }

  /**
   * The order in which waiting streams are served, in the runtime's port and the simulator's: by rank
   * ({@link #order}); between equal ranks (a plan that gives no order) the faster link first, as DISTRIB
   * orders, one not measured yet (NaN) first of all, so that it is measured; then in the order asked for
   * ({@code seq}).
   */
  public static int serveBefore(int rankA, double linkA, long seqA, int rankB, double linkB, long seqB) {
    if (rankA != rankB) {
      return Integer.compare(order(rankA), order(rankB));
    }
    double ra = Double.isNaN(linkA) ? Double.POSITIVE_INFINITY : linkA;
    double rb = Double.isNaN(linkB) ? Double.POSITIVE_INFINITY : linkB;
    return ra != rb ? Double.compare(rb, ra) : Long.compare(seqA, seqB);
  }

  /** Streams that fit in a known egress. */
  public PortRule(int maxStreams, double budget) {
    this(maxStreams, budget, false);
  }

  public PortRule {
    if (maxStreams < 1) {
      throw new IllegalArgumentException("at least one stream must be allowed on the wire, got " + maxStreams);
    }
    if (!(budget > 0)) {
      throw new IllegalArgumentException("the egress budget must be positive, got " + budget);
    }
  }

  /**
   * Whether a stream over a link of {@code rate} bytes/s (NaN: not known) may start while streams
   * over links of {@code onWire} rates are on the wire.
   */
  public boolean mayStart(Collection<Double> onWire, double rate) {
    if (onWire.isEmpty()) {
      return true;
    }
    if (onWire.size() >= maxStreams || Double.isNaN(rate)) {
      return false;
    }
    double sum = rate;
    double largest = rate;
    for (double r : onWire) {
      if (Double.isNaN(r)) {
        return false;
      }
      sum += r;
      largest = Math.max(largest, r);
    }
    // a hair of slack more: rates that fit exactly are not refused for a rounding
    return sum <= (budget * (1 + SLACK) + (probe ? largest : 0)) * (1 + 1e-9);
  }

  /**
   * Links whose rates sum past the egress by at most this share go together all the same: TCP shares
   * out what they lack (a few percent of each), where waiting for one of them to end would cost a
   * whole transfer. Without it a plan and a port sit on a cliff: an egress measured 3% low kept a
   * link of three off the wire, and its work went to the others (15 s where 7 would do).
   */
  public static final double SLACK = 0.1;

  /**
   * The bytes of a stream under way the master has written past what its worker received: the port
   * writes while the connection takes bytes, and it takes them until this much waits in its write
   * buffer (the high-water mark), the kernel's socket buffer aside. A chunk truncated under way still
   * carries them (its Truncate travels behind them on the same connection), and the port waits for
   * them: the simulator's ports cut a stream under way no sooner than this past what was sent.
   */
  public static final int WRITTEN_AHEAD_BYTES = 2 * 1024 * 1024;

  /** Whether links summing {@code sum} go together under this rule (its stream count aside). */
  public boolean takes(double sum) {
    return sum <= budget * (1 + SLACK) * (1 + 1e-9);
  }

  /**
   * Which regime this rule makes of links of these rates ({@code unit}: how the rates and the budget
   * are counted), and why: one port, every link at once, or as many as fit in the egress.
   */
  public String regime(double[] rates, String unit) {
    double sum = 0;
    double[] sorted = rates.clone();
    java.util.Arrays.sort(sorted);
    for (double r : sorted) {
      sum += r;
    }
    double pair = sorted.length >= 2 ? sorted[0] + sorted[1] : Double.POSITIVE_INFINITY;
    if (maxStreams == 1) {
      return "one port (one stream at a time)";
    }
    if (Double.isInfinite(budget)) {
      return sorted.length > maxStreams ? "at most " + maxStreams + " links at once (no bound on the master's egress)"
          : "every link at once (no bound on the master's egress is known yet)";
    }
    String egress = figure(budget) + " " + unit;
    if (takes(sum) && sorted.length <= maxStreams) {
      return "every link at once (the master's egress, " + egress + ", takes the links' sum, "
          + figure(sum) + ")";
    }
    if (!takes(pair)) {
      return "one port (no two links fit together in the master's egress, " + egress + ")";
    }
    return "bounded multi-port (links on the wire at once while their sum fits in the master's egress, "
        + egress + ", of " + figure(sum) + " for all)";
  }

  /** Four significant digits, no trailing zeros; "unbounded" for a link with no limit. */
  private static String figure(double x) {
    if (!Double.isFinite(x)) {
      return "unbounded";
    }
    return new java.math.BigDecimal(x).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
  }

  /** The same rule with its budget in another unit ({@code per}: how many of the old make one new). */
  public PortRule per(double per) {
    return new PortRule(maxStreams, budget / per, probe);
  }
}
