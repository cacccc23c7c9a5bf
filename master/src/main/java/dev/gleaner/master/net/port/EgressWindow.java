package dev.gleaner.master.net.port;

import dev.gleaner.common.port.EgressEstimator;
import io.netty.channel.Channel;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The port's window on its egress (every {@link SendPort#WINDOW_MILLIS}): what it sent since the last
 * one, which streams had bytes waiting all through it, and how many of those went slower than their
 * own links; told to the {@link EgressEstimator}. Used under the port's lock.
 */
final class EgressWindow {
  private static final Logger log = LoggerFactory.getLogger(EgressWindow.class);

  private double start;
  private long sentBefore;
  private Set<PortStream> sending = Set.of();
  /** What each of those streams' connections had taken when the window began. */
  private Map<Channel, Long> taken = Map.of();

  /** A window begins at {@code now}, the port having sent {@code sent} bytes so far. */
  void begin(double now, long sent) {
    start = now;
    sentBefore = sent;
    sending = Set.of();
    taken = Map.of();
  }

  /**
   * The window ends at {@code now} with {@code sent} bytes sent so far and {@code sendingNow} streams
   * sending; {@code link} gives a stream's link (bytes/s), {@code accepted} what a connection took so
   * far. Tells {@code egress} and begins the next window.
   */
  void end(double now, long sent, Set<PortStream> sendingNow, ToDoubleFunction<PortStream> link,
      ToLongFunction<Channel> accepted, EgressEstimator egress) {
    int through = 0;
    int slowed = 0;
    double linkSum = 0;
    Map<Channel, Long> takenNow = new HashMap<>();
    for (PortStream s : sendingNow) {
      long took = accepted.applyAsLong(s.channel);
      takenNow.put(s.channel, took);
      if (sending.contains(s)) {
        through++;
        double rate = link.applyAsDouble(s);
        linkSum += rate;
        // its connection went slower than its link: the egress held it back, or its link got slower
        Long before = taken.get(s.channel);
        if (before != null && took - before < EgressEstimator.SLOWER * rate * (now - start)) {
          slowed++;
        }
      }
    }
    boolean bound = egress.window(start, now, sent - sentBefore, through, linkSum, slowed);
    if (bound && log.isDebugEnabled()) {
      log.debug("the egress bound over {} s: {} bytes/s with {} streams through ({} slowed) over links summing {};"
          + " now {}", String.format("%.3f", now - start), String.format("%.4g", (sent - sentBefore) / (now - start)),
          through, slowed, String.format("%.4g", linkSum), String.format("%.4g", egress.egress()));
    }
    start = now;
    sentBefore = sent;
    sending = sendingNow;
    taken = takenNow;
  }
}
