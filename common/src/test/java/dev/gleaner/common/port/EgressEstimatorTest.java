package dev.gleaner.common.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The estimator against a fluid reference of the wire: streams over links of given rates share an
 * egress max-min fairly, as TCP flows behind one bottleneck do (what the testbed measured).
 */
class EgressEstimatorTest {
  /** A stream for the reference: it starts at {@code start} and carries {@code bytes} over a link of {@code link}. */
  record Flow(double start, long bytes, double link) {}

  /**
   * The wire behind an egress of {@code egress} bytes/s, stepped in windows of {@code step} seconds
   * and told to {@code e} as the port tells it: bytes sent in each window, the flows with bytes left
   * all through it and their links' sum; the flows' intervals, in the flows' order.
   */
  static double[][] fluid(List<Flow> flows, double egress, double step, EgressEstimator e) {
    int n = flows.size();
    double[] left = new double[n];
    double[][] interval = new double[n][];
    for (int i = 0; i < n; i++) {
      left[i] = flows.get(i).bytes();
    }
    double t = 0;
    for (int w = 0; w < 1_000_000; w++) {
      List<Integer> active = new ArrayList<>();
      boolean pending = false;
      for (int i = 0; i < n; i++) {
        if (left[i] > 0 && flows.get(i).start() <= t + 1e-9) {
          active.add(i);
        } else if (left[i] > 0) {
          pending = true;
        }
      }
      if (active.isEmpty() && !pending) {
        break;
      }
      double[] rate = waterFill(active, flows, egress);
      double sent = 0;
      double linkSum = 0;
      int through = 0;
      for (int k = 0; k < active.size(); k++) {
        int i = active.get(k);
        if (interval[i] == null) {
          interval[i] = new double[] {t, Double.NaN};
        }
        double d = Math.min(left[i], rate[k] * step);
        if (d < rate[k] * step) {
          interval[i][1] = t + d / rate[k];
        } else {
          through++;
          linkSum += flows.get(i).link();
        }
        left[i] -= d;
        sent += d;
        if (left[i] <= 1e-6 && Double.isNaN(interval[i][1])) {
          interval[i][1] = t + d / rate[k];
        }
      }
      e.window(t, t + step, sent, through, linkSum);
      t += step;
    }
    return interval;
  }

  /** Max-min fair rates of the active flows under the egress, each capped by its link. */
  static double[] waterFill(List<Integer> active, List<Flow> flows, double egress) {
    int m = active.size();
    double[] rate = new double[m];
    boolean[] fixed = new boolean[m];
    double left = egress;
    for (int round = 0; round < m; round++) {
      int free = 0;
      for (boolean f : fixed) {
        free += f ? 0 : 1;
      }
      if (free == 0) {
        break;
      }
      double share = left / free;
      boolean capped = false;
      for (int k = 0; k < m; k++) {
        if (!fixed[k] && flows.get(active.get(k)).link() <= share) {
          rate[k] = flows.get(active.get(k)).link();
          fixed[k] = true;
          left -= rate[k];
          capped = true;
        }
      }
      if (!capped) {
        for (int k = 0; k < m; k++) {
          if (!fixed[k]) {
            rate[k] = share;
            fixed[k] = true;
          }
        }
      }
    }
    return rate;
  }

  @Test
  void transfersOneAtATimeFloorTheEgressAtTheFastestLink() {
    EgressEstimator e = new EgressEstimator();
    double t = 0;
    for (double link : new double[] {1e6, 4e6, 2e6}) {
      double seconds = 8e6 / link;
      for (double at = t; at < t + seconds - 1e-9; at += 0.5) {
        assertFalse(e.window(at, at + 0.5, link * 0.5, 1, link));
      }
      assertTrue(e.clean(t, t + seconds));
      t += seconds;
    }
    assertEquals(4e6, e.egress(), 1);
    assertFalse(e.bound());
    assertEquals(new PortRule(8, 4e6, true), e.rule(8));
  }

  @Test
  void linksThatTogetherExceedTheEgressShowItWithinTenPercent() {
    // the testbed's first experiment: 10 MB/s out, links of 10, 5, 2.5 and 1.25 MB/s, all at once
    double egress = 10e6;
    List<Flow> flows = List.of(new Flow(0, 30_000_000, 10e6), new Flow(0, 30_000_000, 5e6),
        new Flow(0, 20_000_000, 2.5e6), new Flow(0, 12_000_000, 1.25e6));
    EgressEstimator e = new EgressEstimator();
    double[][] on = fluid(flows, egress, 0.1, e);
    assertTrue(e.bound());
    assertEquals(egress, e.egress(), 0.1 * egress);
    assertEquals(new PortRule(8, e.egress(), false), e.rule(8));
    for (double[] i : on) {
      assertFalse(e.clean(i[0], i[1]), "the flows that shared a bound egress do not measure their links");
    }
  }

  @Test
  void linksThatFitTogetherRaiseTheFloorToTheirSumAndStayClean() {
    double egress = 20e6;
    List<Flow> flows = List.of(new Flow(0, 20_000_000, 10e6), new Flow(0, 10_000_000, 5e6),
        new Flow(0, 5_000_000, 2.5e6));
    EgressEstimator e = new EgressEstimator();
    for (double[] i : fluid(flows, egress, 0.1, e)) {
      assertTrue(e.clean(i[0], i[1]));
    }
    assertFalse(e.bound());
    assertEquals(17.5e6, e.egress(), 0.02 * 17.5e6);
  }

  @Test
  void staggeredProbesFindTheEgress() {
    // one stream alone at the egress, then streams that fit the floor's probe, then more: each try
    // raises the floor or finds the egress, and the finding is within 10%
    double egress = 12e6;
    List<Flow> flows = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      flows.add(new Flow(i * 0.5, 6_000_000, 2e6 + 1e6 * (i % 5)));
    }
    EgressEstimator e = new EgressEstimator();
    fluid(flows, egress, 0.1, e);
    assertTrue(e.bound());
    assertEquals(egress, e.egress(), 0.1 * egress);
  }

  /**
   * A real port's windows count what the kernel took into socket buffers (4 MB in a quarter second as
   * a stream starts): its floor comes from arrivals, what arrived at the workers while a transfer
   * arrived, which the wire did carry.
   */
  /**
   * A fresh master probes each link alone: a probe over the fastest link (2 MB in 0.21 s at 9.56 MB/s)
   * floors the egress at once, where arrivals need half a second and the link's estimate a second
   * transfer; a shorter one, which may read its link high, does not.
   */
  @Test
  void aTransferAloneOnTheWireFloorsTheEgressByItsRate() {
    EgressEstimator e = EgressEstimator.fromArrivals();
    e.arrived(0, 1.74, 2.1e6, Double.NaN, "w4");
    assertEquals(2.1e6 / 1.74, e.egress(), 1);
    e.alone(1.0e6, 0.1);
    assertEquals(2.1e6 / 1.74, e.egress(), 1, "a 0.1 s transfer may read its link high");
    e.alone(2.0e6, 0.21);
    assertEquals(2.0e6 / 0.21, e.egress(), 1);
    assertFalse(e.bound());
  }

  @Test
  void aRealPortsFloorComesFromArrivalsNotFromWhatItsBuffersTook() {
    EgressEstimator e = EgressEstimator.fromArrivals();
    assertFalse(e.window(0, 0.25, 4e6, 1, 10e6));
    assertTrue(Double.isNaN(e.egress()), "a burst into the buffers floors nothing");
    e.arrived(20, 20.001, 4e6);
    assertTrue(Double.isNaN(e.egress()), "nor does a buffer read in one go by a worker that read late");
    e.arrived(0, 1, 5e6);
    assertEquals(5e6, e.egress(), 1e-6);
    // two more that overlap: 12 MB over [1, 3] beside 10 MB over [2, 4]
    e.arrived(1, 3, 12e6, 6e6, "w1");
    assertEquals(6e6, e.egress(), 1e-6, "12 MB over [1, 3], after the first (they touch: not 17 MB over [0, 3])");
    e.arrived(2, 4, 10e6, 5e6, "w2");
    // over [2, 4]: its 10 MB and the 6 MB of the other that came in [2, 3], 8 MB/s; over [1, 3], the
    // other's 12 MB and the 5 MB of this one that came in [2, 3], known now it has all arrived (each at
    // its link's rate: no faster outside the other's span)
    assertEquals(8.5e6, e.egress(), 1e-6, "what arrived while the earlier one arrived, this one's part too");
    // one alone later, slower: the floor stays
    e.arrived(10, 12, 2e6);
    assertEquals(8.5e6, e.egress(), 1e-6);
    assertFalse(e.bound());
  }

  /**
   * Behind a full egress, a long transfer's floor counts the short ones beside it that were still
   * arriving when it ended, once they have: without them it stayed a tenth and more below the egress,
   * and a link held below its fair share by its own rate looked held by the egress.
   */
  @Test
  void aLongTransfersFloorCountsTheOnesStillArrivingWhenItEnded() {
    EgressEstimator e = EgressEstimator.fromArrivals();
    // a 10 MB/s egress: a thin link at 1.2 MB/s over [0, 0.6], then back-to-back transfers of a quarter
    // of a second over a link of 8.8 MB/s, the last of them ending at 0.75
    e.arrived(0, 0.6, 0.72e6, 1.2e6, "thin");
    assertEquals(1.2e6, e.egress(), 1e-3, "nothing beside it has arrived yet");
    for (double t = -0.25; t < 0.75 - 1e-9; t += 0.25) {
      e.arrived(t, t + 0.25, 0.25 * 8.8e6, 8.8e6, "fat");
    }
    assertEquals(10e6, e.egress(), 1e-3, "all that arrived in [0, 0.6], the last transfer's part too");
    EgressEstimator faster = EgressEstimator.fromArrivals();
    faster.arrived(0, 0.6, 0.72e6, 1.2e6, "thin");
    for (double t = -0.25; t < 0.75 - 1e-9; t += 0.25) {
      faster.arrived(t, t + 0.25, 0.25 * 8.8e6, 9.6e6, "fat");
    }
    // its link may have carried 9.6 MB/s once the thin one was off the wire: 1.44 MB after 0.6, 0.76 before
    assertEquals((0.72e6 + 4.4e6 + 0.76e6) / 0.6, faster.egress(), 1e-3, "no more than its link leaves");
    EgressEstimator before = EgressEstimator.fromArrivals();
    for (double t = -0.25; t < 0.5 - 1e-9; t += 0.25) {
      before.arrived(t, t + 0.25, 0.25 * 8.8e6, 8.8e6, "fat");
    }
    before.arrived(0, 0.6, 0.72e6, 1.2e6, "thin");
    assertEquals((0.72e6 + 0.5 * 8.8e6) / 0.6, before.egress(), 1e-3, "the one still arriving is not counted yet");
    // a link known at 5 MB/s whose transfer went 5.5 over [0.3, 1.3]: the estimate bounds nothing (the
    // link may do 9.6, and 0.6 MB of the 5.5 have come in [0.3, 0.6]), its part is not counted
    EgressEstimator low = EgressEstimator.fromArrivals();
    low.arrived(0, 0.6, 0.72e6, 1.2e6, "thin");
    low.arrived(0.3, 1.3, 5.5e6, 5e6, "fat");
    assertEquals(5.5e6 + 0.36e6, low.egress(), 1e-3, "over the fat one's span, its 5.5 MB and the thin one's 0.36");
  }

  /**
   * What arrived while a transfer arrived, not over the span of every transfer it touched: a long one
   * over a thin link reaching back before it would dilute the short ones beside it over time they
   * were not counted in.
   */
  @Test
  void theFloorIsWhatArrivedWhileATransferArrived() {
    EgressEstimator e = EgressEstimator.fromArrivals();
    // a fast link at 10 MB/s: 0.5 MB every 50 ms over [0, 4]; a thin one at 1 MB/s over [0, 4]
    for (int i = 0; i < 80; i++) {
      e.arrived(0.05 * i, 0.05 * (i + 1), 0.5e6);
    }
    assertTrue(Double.isNaN(e.egress()), "no transfer took half a second yet");
    e.arrived(0, 4, 4e6);
    assertEquals(11e6, e.egress(), 1e-3);
    // then a middle link at 2.5 MB/s over [3.5, 4.5], its first half in the thin one's span: 45.25 MB
    // over [0, 4] (over [0, 4.5], 11.5 MB: 2.6 MB/s, the floor stays); over its own second, its 2.5 MB
    // and the fast link's 5 MB (the thin one's span reaches outside it, its link not known: its part
    // is not counted)
    e.arrived(3.5, 4.5, 2.5e6, 2.5e6, "middle");
    assertEquals(45.25e6 / 4, e.egress(), 1e-3);
    EgressEstimator alone = EgressEstimator.fromArrivals();
    alone.arrived(0, 4, 4e6, 1e6, "thin");
    for (int i = 70; i < 80; i++) {
      alone.arrived(0.05 * i, 0.05 * (i + 1), 0.5e6);
    }
    alone.arrived(3.5, 4.5, 2.5e6);
    assertEquals(8e6, alone.egress(), 1e-3, "the second the middle link's transfer took");
    EgressEstimator unknown = EgressEstimator.fromArrivals();
    unknown.arrived(0, 4, 4e6);
    for (int i = 70; i < 80; i++) {
      unknown.arrived(0.05 * i, 0.05 * (i + 1), 0.5e6);
    }
    unknown.arrived(3.5, 4.5, 2.5e6);
    assertEquals(7.5e6, unknown.egress(), 1e-3, "the thin one's link not known: none of its 0.5 MB");
  }

  /**
   * Links seen on the wire together, each at its own rate, fit together: the port lets them go
   * together again (and a plan counts on it) though the floor that arrivals measured, never quite all
   * of what went, is below their sum.
   */
  @Test
  void linksSeenTogetherAtTheirRatesFitTogetherAboveTheFloor() {
    EgressEstimator e = EgressEstimator.fromArrivals();
    e.arrived(0, 2, 30e6);
    assertEquals(15e6, e.egress(), 1e-6);
    assertFalse(e.window(2, 2.25, 4.3e6, 4, 17.9e6), "17.2 MB/s of links summing 17.9: not bound");
    assertFalse(e.bound());
    assertEquals(15e6, e.egress(), 1e-6, "still a floor of what arrived");
    PortRule r = e.rule(8);
    assertTrue(r.mayStart(List.of(9.6e6, 4.8e6, 2.4e6), 1.2e6), "the four links fit together again");
    assertTrue(r.mayStart(List.of(9.9e6, 4.9e6, 2.5e6), 1.25e6), "give or take their estimates' moves");
  }

  /**
   * Transfers that arrived together, each over a link of known rate: as fast as their links, those
   * links fit together (though the floor, 97% of their sum, does not take them); slower, only the
   * floor counts (arrivals that look slow are not taken for the egress binding: late reads make them).
   */
  @Test
  void transfersThatArrivedTogetherAtTheirLinksRatesShowTheLinksFit() {
    double[] links = {9.6e6, 4.8e6, 2.4e6, 1.2e6};
    for (double pace : new double[] {0.97, 0.9, 0.5}) {
      EgressEstimator e = EgressEstimator.fromArrivals();
      for (double l : links) {
        e.arrived(0, 2, 2 * pace * l, l, "w" + l);
      }
      assertEquals(18e6 * pace, e.egress(), 1e-3, "at " + pace + " of their rates");
      assertFalse(e.bound(), "at " + pace + " of their rates");
      // as a plan counts on it: no stream past what is known to go through
      PortRule known = new PortRule(8, e.rule(8).budget(), false);
      assertEquals(pace >= EgressEstimator.FIT_PACE, known.mayStart(List.of(links[0], links[1], links[2]), links[3]),
          "at " + pace + " of their rates");
    }
  }

  /**
   * Links fit together only when each went at its own rate beside the others, for most of its span:
   * a link cut and still believed at its old rate, beside others read late (they look faster than
   * their links), went at the rate of their sum together (on the testbed that took four links for
   * fitting together at 14.3 MB/s behind a 9.56 MB/s uplink, and the plan put all four on the wire);
   * nor do two links that only brushed (one ending as the other began) fit together by it.
   */
  @Test
  void linksFitTogetherOnlyWhenEachWentAtItsRateBesideTheOthers() {
    EgressEstimator cut = EgressEstimator.fromArrivals();
    cut.arrived(0, 1.0, 1.0 * 1.3 * 4.75e6, 4.75e6, "w2");
    cut.arrived(0, 1.0, 1.0 * 1.3 * 2.4e6, 2.4e6, "w3");
    cut.arrived(0, 1.0, 1.0 * 1.3 * 1.2e6, 1.2e6, "w4");
    cut.arrived(0, 1.25, 1.25 * 4.26e6, 5.88e6, "w1");
    // w1 at 0.72 of what it was believed to do: what arrived floors the egress, no more
    assertEquals(cut.egress(), cut.rule(8).budget(), 1, "not links that fit together, at 14.2 MB/s");

    EgressEstimator brushed = EgressEstimator.fromArrivals();
    brushed.arrived(0, 2, 2 * 9.6e6, 9.6e6, "w1");
    brushed.arrived(1.9, 3.9, 2 * 4.8e6, 4.8e6, "w2");
    // the floor: over [0, 2], w1's 19.2 MB and w2's 0.48 MB of [1.9, 2]
    assertEquals(9.84e6, brushed.rule(8).budget(), 1, "a tenth of a second together: the floor only");
    EgressEstimator together = EgressEstimator.fromArrivals();
    together.arrived(0, 2, 2 * 9.6e6, 9.6e6, "w1");
    together.arrived(0.5, 2.5, 2 * 4.8e6, 4.8e6, "w2");
    assertEquals(14.4e6 * (1 + EgressEstimator.FITTED_SLACK), together.rule(8).budget(), 1, "1.5 s together");
  }

  /**
   * Just after a link was cut its estimate still says the old rate: beside a stream at its own link's
   * rate, the cut one makes the two look held back. One stream below its link is that link, not the
   * egress: no measure is taken, nor do the two links count as fitting together. Two streams below
   * theirs are the egress.
   */
  @Test
  void oneStreamBelowItsLinkIsNotTheEgressBinding() {
    EgressEstimator e = EgressEstimator.fromArrivals();
    e.carried(9.56e6);
    // w1 believed at 9.56 MB/s, cut to 2.39; w2 at its 4.78: 7.17 MB/s of 14.3
    for (int i = 0; i < 8; i++) {
      assertFalse(e.window(0.25 * i, 0.25 * (i + 1), 7.17e6 / 4, 2, 14.34e6, 1));
    }
    assertFalse(e.bound());
    assertEquals(9.56e6, e.egress(), 1e-6);
    assertEquals(9.56e6, e.rule(8).budget(), 1e-6, "not taken for links that fit together either");
    assertFalse(e.window(2, 2.25, 9.56e6 / 4, 3, 16.7e6, 2), "two held back, once: not yet");
    assertTrue(e.window(2.25, 2.5, 9.56e6 / 4, 3, 16.7e6, 2), "two held back, twice in a row: the egress");
    assertTrue(e.bound());
  }

  /**
   * Windows that look bound below what was seen to go through (a link whose estimate runs high makes
   * the streams look slower than their links) do not pull the egress under the floor.
   */
  @Test
  void aMeasureNeverFallsBelowWhatWentThrough() {
    EgressEstimator e = EgressEstimator.fromArrivals();
    e.arrived(0, 2, 18e6);
    for (int i = 0; i < 20; i++) {
      assertEquals(i > 0, e.window(2 + 0.25 * i, 2.25 + 0.25 * i, 1e6, 2, 15e6),
          "bound from the second window on: 4 MB/s against links of 15");
    }
    assertTrue(e.bound());
    assertEquals(9e6, e.egress(), 1e-6);
    assertEquals(new PortRule(8, 9e6, false), e.rule(8));
  }

  /**
   * Under one port each transfer goes alone, and a 1 MiB piece over the fastest link is over in a
   * tenth of a second, too short for its arrival to floor the egress; the links' estimates floor it:
   * the egress reads at the fastest link's rate, not at the thinnest link's (whose pieces took long
   * enough to count), and a bound window that reads lower does not pull it under.
   */
  @Test
  void theLinksEstimatesFloorTheEgress() {
    EgressEstimator e = EgressEstimator.fromArrivals();
    double t = 0;
    for (double link : new double[] {9.6e6, 4.8e6, 2.4e6, 1.2e6}) {
      double seconds = 1048576 / link;
      e.arrived(t, t + seconds, 1048576, link, link);
      t += seconds;
    }
    assertEquals(1.2e6, e.egress(), 1, "arrivals alone: the one transfer that took half a second");
    e.carried(Double.NaN);
    e.carried(4.8e6);
    e.carried(9.6e6);
    e.carried(2.4e6);
    assertEquals(9.6e6, e.egress(), 1e-6);
    assertFalse(e.bound());
    assertEquals(new PortRule(8, 9.6e6, true), e.rule(8));
    assertFalse(e.window(t, t + 0.25, 1.5e6, 2, 12e6));
    assertTrue(e.window(t + 0.25, t + 0.5, 1.5e6, 2, 12e6), "a cut link beside another looks like the egress binding");
    assertEquals(9.6e6, e.egress(), 1e-6);
  }

  /**
   * One window alone that looks bound is not taken: a link's estimate read high by a short transfer,
   * and a stream's first round trips, made a first job's window look bound at half the egress (12.2
   * MB/s of 23.9, links summing 17.9), and the port then kept apart links that fit together. The
   * transfers across it still measure their links.
   */
  @Test
  void aLoneWindowThatLooksBoundIsNotTheEgressBinding() {
    EgressEstimator e = EgressEstimator.fromArrivals();
    e.carried(9.5e6);
    assertFalse(e.window(0, 0.25, 15e6 / 4, 2, 14.3e6), "at their links: they fit");
    assertFalse(e.window(0.25, 0.5, 12.2e6 / 4, 2, 15.2e6), "below 0.85 of their links, once");
    assertFalse(e.window(0.5, 0.75, 14.5e6 / 4, 2, 15.2e6), "at their links again: they fit");
    assertFalse(e.window(0.75, 1, 12.2e6 / 4, 2, 15.2e6), "once more, not in a row");
    assertFalse(e.window(1, 1.05, 15e6 / 20, 2, 15.2e6), "a short window at their links between two");
    assertFalse(e.window(1.05, 1.3, 12.2e6 / 4, 2, 15.2e6), "not in a row with the one before the short one");
    assertFalse(e.window(1.3, 1.35, 0, 2, 15.2e6), "a short window where nothing went");
    assertFalse(e.window(1.35, 1.6, 12.2e6 / 4, 2, 15.2e6), "nor across a window where nothing went");
    assertFalse(e.bound());
    assertTrue(e.clean(0.1, 1.6));
    assertEquals(new PortRule(8, 15.2e6 * (1 + EgressEstimator.FITTED_SLACK), true), e.rule(8));
  }
}
