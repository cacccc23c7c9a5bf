package dev.gleaner.common.port;

import java.util.ArrayList;
import java.util.List;

/**
 * When each stream starts under a {@link PortRule}, for streams whose rates and durations are known
 * in advance (a plan's): streams are admitted in order, none before the one ahead of it, each as soon
 * as the rule lets it join those still on the wire. Rates and the rule's budget are in one unit
 * (bytes/s, or units/s for a plan). Everything scales: streams twice as long start twice as late.
 */
public final class PortClock {
  private final PortRule rule;
  private final List<double[]> onWire = new ArrayList<>();
  private double last;

  public PortClock(PortRule rule) {
    this.rule = rule;
  }

  /**
   * Admits the next stream, over a link of {@code rate} (positive; infinite for no transfer) that
   * takes {@code seconds}; returns when it starts.
   */
  public double admit(double rate, double seconds) {
    double t = start(rate);
    occupy(rate, seconds);
    return t;
  }

  /**
   * When the next stream, over a link of {@code rate}, starts; it must then be given its duration
   * ({@link #occupy}) before the next is asked for.
   */
  public double start(double rate) {
    double t = last;
    // each turn ends a stream on the wire, so this ends within as many turns as there are streams
    while (true) {
      final double now = t;
      onWire.removeIf(s -> s[0] <= now);
      List<Double> rates = new ArrayList<>(onWire.size());
      for (double[] s : onWire) {
        rates.add(s[1]);
      }
      if (rule.mayStart(rates, rate)) {
        break;
      }
      double next = Double.POSITIVE_INFINITY;
      for (double[] s : onWire) {
        next = Math.min(next, s[0]);
      }
      t = next;
    }
    last = t;
    return t;
  }

  /** The stream that {@link #start} placed takes {@code seconds} on the wire. */
  public void occupy(double rate, double seconds) {
    if (seconds > 0) {
      onWire.add(new double[] {last + seconds, rate});
    }
  }
}
