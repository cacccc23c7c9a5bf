package dev.gleaner.common.sim;

import dev.gleaner.common.port.PortRule;
import dev.gleaner.common.port.Sends;

/**
 * The simulated master's network: its egress and how its port sends, as {@code gleaner master
 * --concurrent-sends} says it.
 *
 * @param egress what the master can send, bytes/s ({@link Double#POSITIVE_INFINITY}: no limit but the links)
 * @param sends a code of {@link Sends}: share, every stream at once, sharing the egress max-min fairly as
 *     TCP flows behind one bottleneck do; fit, the streams whose links fit together in the egress, in the
 *     plan's order; n at least 1, n links at a time (1 with no egress: the papers' one port)
 * @param linksKnown whether the master has measured every worker's link before the job (a master that
 *     ran a job across them already): its first plan is then made with them, without probe chunks
 */
public record SimNetwork(double egress, int sends, boolean linksKnown) {
  /** One stream at a time at its link's rate: the papers' model, the simulator's until there was a choice. */
  public static final SimNetwork ONE_PORT = new SimNetwork(Double.POSITIVE_INFINITY, 1);

  /** A master that learns the links as the job streams. */
  public SimNetwork(double egress, int sends) {
    this(egress, sends, false);
  }

  /** The same network, its links measured before the job. */
  public SimNetwork withLinksKnown() {
    return new SimNetwork(egress, sends, true);
  }

  public SimNetwork {
    if (!(egress > 0)) {
      throw new IllegalArgumentException("the master's egress must be positive, got " + egress);
    }
    if (!Sends.valid(sends)) {
      throw new IllegalArgumentException("sends must be share (0), fit (-1) or at least 1, got " + sends);
    }
  }

  /** The port's rule as the simulated master plans with it, its egress known (bytes/s). */
  public PortRule planRule() {
    if (onePort()) {
      return PortRule.ONE_PORT;
    }
    return new PortRule(sends >= 1 ? sends : Integer.MAX_VALUE, egress);
  }

  /** Whether the simulator's first port, one stream at a time with no egress, models it. */
  boolean onePort() {
    return sends == 1 && Double.isInfinite(egress);
  }
}
