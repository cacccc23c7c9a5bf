package dev.gleaner.common.port;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * What the master's own sending can do, learned from what it sends (the runtime's port and the
 * simulator's feed it the same way): short windows of time, each with the bytes the master sent in
 * it, how many streams had bytes waiting all through it, and the sum of their links' rates.
 *
 * <p>A window's rate is a floor of the egress. When two or more streams had bytes waiting all
 * through two windows in a row and together went slower than their links allow ({@link #SLOWER} of
 * the sum), something they share held them back: the egress, which is then measured, not only
 * floored; when they went as fast, their links fit together. One such window alone is not taken: a
 * link's estimate read high by a short transfer, and a stream's first round trips, made a window of a
 * first job look bound at half the egress, and the port then kept links apart that fit together. Until
 * then the port may try one stream past the floor ({@link PortRule#probe}): each try either raises
 * the floor or finds the egress. A transfer that was on the wire during such a window shared the
 * egress and does not measure its own link ({@link #clean}).
 *
 * <p>A real port's windows count the bytes the kernel took, which run ahead of the wire while socket
 * buffers fill (a new stream's first window may take 4 MB at once): there the floor comes from
 * arrivals instead ({@link #fromArrivals}, {@link #arrived}): what arrived at the workers while a
 * transfer arrived, its bytes and the overlapping part of the others', which the wire did carry in
 * that time.
 */
public final class EgressEstimator {
  /** The length of the windows a port tells the estimator of, seconds. */
  public static final double WINDOW_SECONDS = 0.25;
  /** Streams together below this share of their links' sum show the egress binding. */
  public static final double SLOWER = 0.85;
  /**
   * Links that went together at their own rates fit together; so do links whose sum is at most this
   * much more (a link's estimate moves by a few percent from one transfer to the next).
   */
  static final double FITTED_SLACK = 0.05;
  /**
   * Transfers together, each at least at this share of its link's rate, went at their links' rates:
   * the links fit together (between it and {@link #SLOWER}, they may have shared a little: neither is
   * said).
   */
  static final double FIT_PACE = 0.95;
  /**
   * Transfers whose spans overlap by at least this share of the shorter went together: links that
   * only brushed (one ending as the other began) say nothing of whether they fit together.
   */
  static final double TOGETHER = 0.5;
  /** Weight kept by the measure of the egress at each new one (a decaying mean). */
  static final double KEEP = 0.75;
  /** Windows where the egress bound, remembered to judge the transfers that crossed them. */
  static final int KEPT = 1024;

  /** Transfers remembered to floor the egress by those that overlap a new one. */
  static final int ARRIVALS_KEPT = 256;
  /**
   * The shortest time, first byte to last, of a transfer over which arrivals floor the egress: a
   * worker that reads late takes what its socket buffer holds in one go, and a short transfer read so
   * looks as fast as memory.
   */
  static final double ARRIVALS_MIN_SECONDS = 0.5;

  /**
   * The shortest transfer, seconds, that measures its link: a shorter one is timed too coarsely (its
   * worker reads it in a few reads, as they come in bunches: 18 kB in 2 ms read a 4.78 MB/s link at
   * 9.8, and the port then held that link's later transfers for shares of the egress).
   */
  public static final double TIMED_MIN_SECONDS = 0.05;

  /**
   * A transfer below this share of its link's known rate came slower than its link: beside other links
   * it may be a share of the egress, and measures the link only when the port can tell it is not (the
   * runtime's port by its fair share; the simulator's never).
   */
  public static final double SLOWER_THAN_LINK = 0.9;
  /**
   * The shortest transfer alone on the wire that floors the egress by its rate ({@link #alone}),
   * seconds: a floor is the most seen to go through, so it takes transfers long enough that the bytes
   * of a worker's first read, and a link's burst after a pause, do not read it high (from 50 ms on, the
   * testbed's transfers read their links up to 7% high, and the floor with them).
   */
  static final double ALONE_MIN_SECONDS = 0.2;

  private final Deque<double[]> boundWindows = new ArrayDeque<>();
  private final Deque<Arrival> arrivals = new ArrayDeque<>();
  private final boolean floorFromArrivals;
  private double floor;
  private double measured = Double.NaN;
  /** A window of the master's clock and the rate sent in it. */
  private record Window(double start, double end, double rate) {}

  /** The last window, if it looked bound; null otherwise. */
  private Window lookedBound;
  /** Whether {@link #lookedBound} was taken as bound (the window before it looked bound too). */
  private boolean lookedTaken;
  /** The largest sum of links seen on the wire together, each going at its own rate (the egress did not bind). */
  private double fitted;

  /**
   * Whether a transfer of {@code bytes} beside other links is too small to measure a link known at
   * {@code known} bytes/s (NaN: not known yet, and any transfer may): the link would carry it in less
   * than {@link #TIMED_MIN_SECONDS}, so its time says more of what waited in front of it than of the
   * link (the master's uplink queue full of a fatter link's stream), however long it took. On the
   * testbed, with an 80 mbit link's stream filling the master's 80 mbit uplink, transfers of 80-127 kB
   * to a 4.78 MB/s link read 1.1-2.5 MB/s and one of 672 bytes 9.6 kB/s; taken as measures they
   * brought its estimate to a fifth of its rate and less, and the plan gave it pieces of a few hundred
   * bytes. Alone on the wire a small transfer that came slow still measures its link: nothing queued in
   * front of it, and a link known too high must be able to come down by transfers sized for it.
   */
  public static boolean tooSmallToMeasure(double bytes, double known) {
    return known > 0 && Double.isFinite(known) && bytes < known * TIMED_MIN_SECONDS;
  }

  /** An estimator whose windows floor the egress: what they count went out on the wire (the simulator's). */
  public EgressEstimator() {
    this(false);
  }

  private EgressEstimator(boolean floorFromArrivals) {
    this.floorFromArrivals = floorFromArrivals;
  }

  /** An estimator whose floor comes from arrivals only, for a port whose windows count what socket buffers took. */
  public static EgressEstimator fromArrivals() {
    return new EgressEstimator(true);
  }

  /**
   * A transfer's {@code bytes} arrived at its worker over {@code [start, end]} of the master's clock
   * (first byte to last): if that took at least {@link #ARRIVALS_MIN_SECONDS}, what arrived in that
   * time floors the egress: its bytes and, of each transfer remembered that overlaps it, the part
   * that arrived in that time (each taken as arriving evenly over its own span); and so do the parts
   * of those that arrive later, as they arrive.
   */
  public void arrived(double start, double end, double bytes) {
    arrived(start, end, bytes, Double.NaN, new Object());
  }

  /**
   * As {@link #arrived(double, double, double)}, the transfer's link ({@code who}'s) known to go at
   * {@code link} bytes/s (NaN: not known): when it and the transfers that went with it (overlapping
   * it by {@link #TOGETHER} of the shorter span) each had a known link and went as fast as it (at
   * least {@link #FIT_PACE} of its rate, over its span), the links they went over fit together.
   */
  public void arrived(double start, double end, double bytes, double link, Object who) {
    if (!(end > start) || !(bytes > 0)) {
      return;
    }
    Arrival arrival = new Arrival(start, end, bytes, link, who);
    double seconds = end - start;
    Map<Object, Double> links = new HashMap<>();
    links.put(who, link);
    boolean atTheirRates = arrival.atItsLinksRate();
    for (Arrival a : arrivals) {
      double overlap = Math.min(end, a.end) - Math.max(start, a.start);
      if (!(overlap > 0)) {
        continue;
      }
      if (a.floors()) {
        // a long one before it ended while it still arrived, and counted only what had arrived by then
        // (behind a full 9.56 MB/s uplink, transfers of a third of a second beside a long one of 0.63 s
        // left the floor at 8.34): its part there counts now
        a.sum += arrival.partIn(a.start, a.end);
        floor = Math.max(floor, a.sum / (a.end - a.start));
      }
      if (arrival.floors()) {
        arrival.sum += a.partIn(start, end);
        if (overlap >= TOGETHER * Math.min(seconds, a.end - a.start)) {
          links.putIfAbsent(a.who, a.link);
          atTheirRates &= a.atItsLinksRate();
        }
      }
    }
    if (arrival.floors()) {
      floor = Math.max(floor, arrival.sum / seconds);
      // every one at its own link's rate, not their sum at the rate of the sum: one stream slowed (a
      // link just cut, still believed at its old rate) beside others that look fast (read late) took
      // four links for fitting together at 14.3 MB/s behind a 9.56 MB/s uplink. Slower than their
      // links is not taken for the egress binding either: a worker's late reads and the port's own
      // timing of a transfer make arrivals look slow, and a false measure keeps links apart
      if (links.size() >= 2 && atTheirRates && Double.isNaN(measured)) {
        fitted = Math.max(fitted, links.values().stream().mapToDouble(Double::doubleValue).sum());
      }
    }
    arrivals.addLast(arrival);
    if (arrivals.size() > ARRIVALS_KEPT) {
      arrivals.removeFirst();
    }
  }

  /**
   * A link measured at {@code rate} bytes/s (NaN: not measured): whatever crossed it crossed the
   * egress too, so the egress is at least that fast. A one-port master's transfers go one at a time,
   * most too short to floor the egress by their arrivals (a 1 MiB piece over a 10 MB/s link takes a
   * tenth of a second); the link's estimate, made from many of them, floors it.
   */
  public void carried(double rate) {
    if (Double.isFinite(rate) && rate > 0) {
      floor = Math.max(floor, rate);
    }
  }

  /**
   * A transfer that had the wire to itself, its link measured by it, carried {@code bytes} in {@code
   * seconds}: the egress is at least that fast, if it lasted {@link #ALONE_MIN_SECONDS}. A fresh master
   * probes each link alone; without this, its egress stayed floored by the one slow probe long enough
   * to floor it by arrivals (1.2 MB/s where a 9.56 MB/s link had just gone through), and its first
   * plan kept every link apart.
   */
  public void alone(double bytes, double seconds) {
    if (seconds >= ALONE_MIN_SECONDS && bytes > 0) {
      carried(bytes / seconds);
    }
  }

  /**
   * A transfer remembered: its span at its worker, its bytes, its link's rate and whose link it is;
   * if it {@link #floors}, the bytes known so far to have arrived in its span, its own and the
   * others' (each taken as arriving evenly over its own span).
   */
  private static final class Arrival {
    final double start;
    final double end;
    final double bytes;
    final double link;
    final Object who;
    double sum;

    Arrival(double start, double end, double bytes, double link, Object who) {
      this.start = start;
      this.end = end;
      this.bytes = bytes;
      this.link = link;
      this.who = who;
      this.sum = bytes;
    }

    /** Whether it took long enough, first byte to last, to floor the egress ({@link #ARRIVALS_MIN_SECONDS}). */
    boolean floors() {
      return end - start >= ARRIVALS_MIN_SECONDS;
    }

    /**
     * Its bytes that arrived in {@code [from, to]}, taken as arriving evenly over its span, but at most
     * its bytes less what its link could have carried outside it (it may have gone faster while the
     * transfers of that span were off the wire: taken as even, a floor found 13.6 MB/s behind a 10 MB/s
     * egress). None of them if part of its span is outside and its link is not known, or is known
     * below what it did ({@link #FITTED_SLACK} and more: the estimate bounds nothing then).
     */
    double partIn(double from, double to) {
      double overlap = Math.max(0, Math.min(to, end) - Math.max(from, start));
      double outside = end - start - overlap;
      double even = bytes * overlap / (end - start);
      if (!(outside > 0)) {
        return even;
      }
      if (Double.isNaN(link) || bytes / (end - start) > (1 + FITTED_SLACK) * link) {
        return 0;
      }
      return Math.max(0, Math.min(even, bytes - link * outside));
    }

    /** Whether it went at {@link #FIT_PACE} of its link's known rate at least (false if not known). */
    boolean atItsLinksRate() {
      return bytes / (end - start) >= FIT_PACE * link;
    }
  }

  /**
   * Adds the window {@code [start, end)} of the master's clock (seconds) in which it sent {@code bytes},
   * {@code streams} streams having bytes waiting all through it over links summing {@code linkSum}
   * bytes/s (NaN if one of them is not known); whether the egress bound in it (and in the window just
   * before it: one alone is not taken).
   */
  public boolean window(double start, double end, double bytes, int streams, double linkSum) {
    return window(start, end, bytes, streams, linkSum, streams);
  }

  /**
   * As {@link #window(double, double, double, int, double)}, {@code slowed} of the streams having gone
   * slower than their own links ({@link #SLOWER} of each): the egress is said to bind only when two or
   * more did. One stream alone below its link, the others at theirs, may be that link got slower (its
   * estimate not yet following, as just after a cut): a measure of the egress taken from it would keep
   * links apart that fit.
   */
  public boolean window(double start, double end, double bytes, int streams, double linkSum, int slowed) {
    double seconds = end - start;
    if (!(seconds > 0) || !(bytes > 0) || streams < 1) {
      lookedBound = null;
      return false;
    }
    double rate = bytes / seconds;
    if (!floorFromArrivals) {
      floor = Math.max(floor, rate);
    }
    if (streams >= 2 && slowed >= 2 && rate < SLOWER * linkSum) {
      Window before = lookedBound;
      boolean beforeTaken = lookedTaken;
      lookedBound = new Window(start, end, rate);
      lookedTaken = before != null && before.end() >= start - WINDOW_SECONDS / 2;
      if (!lookedTaken) {
        return false;
      }
      // the window before it looked bound as well
      if (!beforeTaken) {
        bound(before);
      }
      bound(lookedBound);
      return true;
    }
    lookedBound = null;
    if (streams >= 2 && rate >= SLOWER * linkSum && Double.isFinite(linkSum)) {
      // these links went together at their own rates: they fit, whatever the floor says yet
      fitted = Math.max(fitted, linkSum);
    }
    return false;
  }

  /** The egress bound in the window: a measure of it. */
  private void bound(Window w) {
    measured = Double.isNaN(measured) ? w.rate() : KEEP * measured + (1 - KEEP) * w.rate();
    boundWindows.addLast(new double[] {w.start(), w.end()});
    if (boundWindows.size() > KEPT) {
      boundWindows.removeFirst();
    }
  }

  /** Whether a transfer on the wire over {@code [start, end]} had the egress to itself as far as its link goes. */
  public boolean clean(double start, double end) {
    for (double[] w : boundWindows) {
      if (w[0] < end && w[1] > start) {
        return false;
      }
    }
    return true;
  }

  /**
   * The egress in bytes/s: measured where it bound, never below what was seen to go through (a window
   * may look bound when a link's estimate runs high, or a worker reads slowly); else the floor; NaN
   * before anything was sent.
   */
  public double egress() {
    if (!Double.isNaN(measured)) {
      return Math.max(measured, floor);
    }
    return floor > 0 ? floor : Double.NaN;
  }

  /** Whether the egress was seen to bind (then {@link #egress} is a measure, else a floor). */
  public boolean bound() {
    return !Double.isNaN(measured);
  }

  /**
   * The rule the port follows: streams that fit in the measured egress; while the egress has not
   * bound, in what is known to go through (the floor, or links as many as were seen together at their
   * own rates, give or take {@link #FITTED_SLACK}) and one stream past it; before anything was sent,
   * any (they are alone until their links are known anyway).
   */
  public PortRule rule(int maxStreams) {
    if (!Double.isNaN(measured)) {
      return new PortRule(maxStreams, egress(), false);
    }
    double known = Math.max(floor, fitted * (1 + FITTED_SLACK));
    return known > 0 ? new PortRule(maxStreams, known, true) : new PortRule(maxStreams, Double.POSITIVE_INFINITY);
  }
}
