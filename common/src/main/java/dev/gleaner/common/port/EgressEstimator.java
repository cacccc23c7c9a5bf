package dev.gleaner.common.port;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What the master's own sending can do, learned from what it sends (the runtime's port and the
 * simulator's feed it the same way): short windows of time, each with the bytes the master sent in
 * it, how many streams had bytes waiting all through it, and the sum of their links' rates.
 *
 * <p>A window's rate is a floor of the egress. When two or more streams had bytes waiting all
 * through a window and together went slower than their links allow ({@link #SLOWER} of the sum),
 * something they share held them back: the egress, which is then measured, not only floored. Until
 * then the port may try one stream past the floor ({@link PortRule#probe}): each try either raises
 * the floor or finds the egress. A transfer that was on the wire during such a window shared the
 * egress and does not measure its own link ({@link #clean}).
 */
public final class EgressEstimator {
  /** Streams together below this share of their links' sum show the egress binding. */
  public static final double SLOWER = 0.85;
  /** Weight kept by the measure of the egress at each new one (a decaying mean). */
  static final double KEEP = 0.75;
  /** Windows where the egress bound, remembered to judge the transfers that crossed them. */
  static final int KEPT = 1024;

  private final Deque<double[]> boundWindows = new ArrayDeque<>();
  private double floor;
  private double measured = Double.NaN;

  /**
   * Adds the window {@code [start, end)} of the master's clock (seconds) in which it sent {@code bytes},
   * {@code streams} streams having bytes waiting all through it over links summing {@code linkSum}
   * bytes/s (NaN if one of them is not known); whether the egress bound in it.
   */
  public boolean window(double start, double end, double bytes, int streams, double linkSum) {
    double seconds = end - start;
    if (!(seconds > 0) || !(bytes > 0) || streams < 1) {
      return false;
    }
    double rate = bytes / seconds;
    floor = Math.max(floor, rate);
    if (streams >= 2 && rate < SLOWER * linkSum) {
      measured = Double.isNaN(measured) ? rate : KEEP * measured + (1 - KEEP) * rate;
      boundWindows.addLast(new double[] {start, end});
      if (boundWindows.size() > KEPT) {
        boundWindows.removeFirst();
      }
      return true;
    }
    return false;
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

  /** The egress in bytes/s: measured where it bound, else the floor; NaN before anything was sent. */
  public double egress() {
    if (!Double.isNaN(measured)) {
      return measured;
    }
    return floor > 0 ? floor : Double.NaN;
  }

  /** Whether the egress was seen to bind (then {@link #egress} is a measure, else a floor). */
  public boolean bound() {
    return !Double.isNaN(measured);
  }

  /**
   * The rule the port follows: streams that fit in the measured egress; while the egress has not
   * bound, in the floor and one stream past it; before anything was sent, any (they are alone until
   * their links are known anyway).
   */
  public PortRule rule(int maxStreams) {
    if (!Double.isNaN(measured)) {
      return new PortRule(maxStreams, measured, false);
    }
    return floor > 0 ? new PortRule(maxStreams, floor, true) : new PortRule(maxStreams, Double.POSITIVE_INFINITY);
  }
}
