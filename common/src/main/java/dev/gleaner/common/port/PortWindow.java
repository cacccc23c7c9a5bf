package dev.gleaner.common.port;

import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * A port's window on its egress (every {@link EgressEstimator#WINDOW_SECONDS}), one tally for the
 * runtime's port and the simulator's: what the port sent in it, which streams were sending all through
 * it, and how many of those went slower than their own links ({@link EgressEstimator#SLOWER} of each);
 * told to the {@link EgressEstimator}.
 *
 * @param <K> what names a stream
 */
public final class PortWindow<K> {
  private double start;
  private double sentBefore;
  /** Each stream sending when the window began, and what it had taken by then (bytes). */
  private Map<K, Double> taken = Map.of();

  /** A window begins at {@code now} (seconds), the port having sent {@code sent} bytes so far. */
  public void begin(double now, double sent) {
    start = now;
    sentBefore = sent;
    taken = Map.of();
  }

  /** When the window began, seconds. */
  public double start() {
    return start;
  }

  /**
   * The window ends at {@code now} with {@code sent} bytes sent so far, {@code takenNow} the streams
   * sending now and what each has taken so far (bytes), {@code link} a stream's link (bytes/s): tells
   * {@code egress}, begins the next window, and says whether the egress bound in it.
   */
  public boolean end(double now, double sent, Map<K, Double> takenNow, ToDoubleFunction<K> link,
      EgressEstimator egress) {
    int through = 0;
    int slowed = 0;
    double linkSum = 0;
    for (Map.Entry<K, Double> e : takenNow.entrySet()) {
      Double before = taken.get(e.getKey());
      if (before != null) {
        through++;
        double rate = link.applyAsDouble(e.getKey());
        linkSum += rate;
        // it went slower than its link: the egress held it back, or its link got slower
        if (e.getValue() - before < EgressEstimator.SLOWER * rate * (now - start)) {
          slowed++;
        }
      }
    }
    boolean bound = egress.window(start, now, sent - sentBefore, through, linkSum, slowed);
    start = now;
    sentBefore = sent;
    taken = takenNow;
    return bound;
  }
}
