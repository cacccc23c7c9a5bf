package dev.gleaner.common.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class PortRuleTest {
  private static final double NAN = Double.NaN;

  @Test
  void aStreamStartsAloneWhateverIsKnown() {
    assertTrue(PortRule.ONE_PORT.mayStart(List.of(), NAN));
    assertTrue(new PortRule(8, 10).mayStart(List.of(), 50));
  }

  @Test
  void onePortStartsNothingBesideAStreamOnTheWire() {
    assertFalse(PortRule.ONE_PORT.mayStart(List.of(1.0), 1));
  }

  @Test
  void streamsGoTogetherWhileTheirLinksFitInTheEgress() {
    PortRule rule = new PortRule(8, 10);
    // 5 + 2.5 + 1.25 = 8.75 fit; so do links that pass the egress by a tenth at most (TCP shares out
    // what they lack); a 10 does not fit beside a 1.25
    assertTrue(rule.mayStart(List.of(5.0, 2.5), 1.25));
    assertTrue(rule.mayStart(List.of(5.0), 5.0));
    assertTrue(rule.mayStart(List.of(5.0, 2.5), 3.5));
    assertFalse(rule.mayStart(List.of(10.0), 1.25));
    assertFalse(rule.mayStart(List.of(5.0, 2.5), 3.6));
  }

  @Test
  void aProbePassesTheFloorByOneLink() {
    // the floor is 10: one more stream of 10 may try, a third may not
    PortRule probe = new PortRule(8, 10, true);
    assertTrue(probe.mayStart(List.of(10.0), 10));
    assertFalse(probe.mayStart(List.of(10.0, 10.0), 10));
    assertFalse(new PortRule(8, 10).mayStart(List.of(10.0), 10));
  }

  @Test
  void knownLinksAllGoTogetherAndAnUnknownOneAlone() {
    assertTrue(PortRule.ALL_KNOWN.mayStart(List.of(10.0, 5.0, 1e12), 50));
    assertFalse(PortRule.ALL_KNOWN.mayStart(List.of(10.0), NAN));
    assertFalse(PortRule.ALL_KNOWN.mayStart(List.of(NAN), 10));
  }

  @Test
  void anUnknownLinkRunsAlone() {
    PortRule rule = new PortRule(8, 100);
    assertFalse(rule.mayStart(List.of(1.0), NAN));
    assertFalse(rule.mayStart(List.of(NAN), 1.0));
  }

  @Test
  void noMoreThanMaxStreams() {
    PortRule rule = new PortRule(2, 100);
    assertTrue(rule.mayStart(List.of(1.0), 1));
    assertFalse(rule.mayStart(List.of(1.0, 1.0), 1));
  }

  @Test
  void nonsenseIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new PortRule(0, 1));
    assertThrows(IllegalArgumentException.class, () -> new PortRule(1, 0));
    assertThrows(IllegalArgumentException.class, () -> new PortRule(1, NAN));
  }

  /** The regime a plan names, also for links with no limit and for an egress not known. */
  @Test
  void theRegimeIsNamedWhateverIsUnbounded() {
    double[] links = {1, 2, 3};
    assertEquals("one port (one stream at a time)", PortRule.ONE_PORT.regime(links, "u"));
    assertEquals("at most 2 links at once (no bound on the master's egress)",
        new PortRule(2, Double.POSITIVE_INFINITY).regime(links, "u"));
    assertEquals("every link at once (no bound on the master's egress is known yet)",
        new PortRule(8, Double.POSITIVE_INFINITY).regime(new double[] {1, Double.POSITIVE_INFINITY}, "u"));
    assertEquals("bounded multi-port (links on the wire at once while their sum fits in the master's egress, 10 u,"
        + " of unbounded for all)", new PortRule(8, 10).regime(new double[] {5, 4, Double.POSITIVE_INFINITY}, "u"));
    assertEquals("every link at once (the master's egress, 10 u, takes the links' sum, 6)",
        new PortRule(8, 10).regime(links, "u"));
  }
}
