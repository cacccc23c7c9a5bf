package dev.gleaner.deploy.command.tool;

import dev.gleaner.common.port.PortRule;
import dev.gleaner.common.port.Sends;
import dev.gleaner.common.sim.SimNetwork;
import picocli.CommandLine.Option;

/**
 * The master's port as {@code gleaner plan} and {@code gleaner simulate} model it: its egress and how
 * it sends, as {@code gleaner master --concurrent-sends} says.
 */
final class PortOptions {
  @Option(names = "--egress", paramLabel = "UNITS/s",
      description = "The master's egress, in the platform's bandwidth units (default: no limit but the links).")
  Double egress;

  @Option(names = "--concurrent-sends", paramLabel = "share|fit|N", defaultValue = "1",
      description = "How the master's port sends, as gleaner master --concurrent-sends: share (all at once,"
          + " sharing --egress max-min fairly, the master's default), fit (the links that fit in --egress, in the"
          + " plan's order) or N links at a time (default: ${DEFAULT-VALUE}, the papers' one port).")
  String concurrentSends;

  /**
   * The simulated master's network. A master that measured its links before the job ({@code
   * linksKnown}: it ran a job across them) knows its egress too; a fresh one learns both as it sends,
   * as the runtime's does.
   */
  SimNetwork network(boolean linksKnown) {
    SimNetwork network = known();
    if (linksKnown) {
      return network.withLinksKnown();
    }
    // with no --egress there is nothing to learn but the links (the papers' one port by default)
    return Double.isFinite(network.egress()) ? network.withEgressLearned() : network;
  }

  /** The port's rule as a plan assumes it: its egress as given. */
  PortRule planRule() {
    return known().planRule();
  }

  private SimNetwork known() {
    double e = egress == null ? Double.POSITIVE_INFINITY : egress;
    if (!(e > 0)) {
      throw new IllegalArgumentException("--egress must be positive, got " + egress);
    }
    return new SimNetwork(e, Sends.parse("--concurrent-sends", concurrentSends));
  }
}
