package dev.gleaner.master.net.port;

import dev.gleaner.common.port.EgressEstimator;
import dev.gleaner.common.port.PortWindow;
import io.netty.channel.Channel;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The port's {@link PortWindow} (every {@link SendPort#WINDOW_MILLIS}), a stream's progress being what
 * its connection took; a window where the egress bound is logged at debug. Used under the port's lock.
 */
final class EgressWindow {
  private static final Logger log = LoggerFactory.getLogger(EgressWindow.class);

  private final PortWindow<PortStream> window = new PortWindow<>();

  /** A window begins at {@code now}, the port having sent {@code sent} bytes so far. */
  void begin(double now, long sent) {
    window.begin(now, sent);
  }

  /**
   * The window ends at {@code now} with {@code sent} bytes sent so far and {@code sendingNow} streams
   * sending; {@code link} gives a stream's link (bytes/s), {@code accepted} what a connection took so
   * far. Tells {@code egress} and begins the next window.
   */
  void end(double now, long sent, Set<PortStream> sendingNow, ToDoubleFunction<PortStream> link,
      ToLongFunction<Channel> accepted, EgressEstimator egress) {
    double start = window.start();
    Map<PortStream, Double> taken = new HashMap<>();
    for (PortStream s : sendingNow) {
      taken.put(s, (double) accepted.applyAsLong(s.channel));
    }
    if (window.end(now, sent, taken, link, egress) && log.isDebugEnabled()) {
      log.debug(String.format(Locale.ROOT, "the egress bound over %.3f s, %d streams sending; now %.4g bytes/s",
          now - start, sendingNow.size(), egress.egress()));
    }
  }
}
