package dev.gleaner.common.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Seeded outages: the same for a worker and its simulated twin, drawn from the stated distribution. */
class FailureScheduleTest {
  @Test
  void theSameSeedAndIdGiveTheSameOutagesAndAnotherIdOthers() {
    FailureSchedule s = FailureSchedule.parse("linear:0.01", 20);
    List<double[]> a = s.outages(3, "w1", 10_000);
    List<double[]> b = s.outages(3, "w1", 10_000);
    assertEquals(a.size(), b.size());
    for (int i = 0; i < a.size(); i++) {
      assertArrayEquals(a.get(i), b.get(i));
    }
    assertTrue(a.get(0)[0] != s.outages(3, "w2", 10_000).get(0)[0]);
    assertTrue(a.get(0)[0] != s.outages(4, "w1", 10_000).get(0)[0]);
  }

  @Test
  void aJobThatStartsLaterSeesTheOutagesShiftedAndOneUnderWayAsALateJoin() {
    FailureSchedule s = FailureSchedule.parse("linear:0.05", 10);
    List<double[]> all = s.outages(7, "w3", 1_000);
    double[] first = all.get(0);
    double[] second = all.get(1);
    // started inside the first outage: the worker joins when it ends, the second is the first seen
    double inside = (first[0] + first[1]) / 2;
    FailureSchedule.Seen seen = s.seenFrom(7, "w3", inside, 500);
    assertEquals(first[1] - inside, seen.joinAt(), 1e-9);
    assertArrayEquals(new double[] {second[0] - inside, second[1] - inside}, seen.outages().get(0), 1e-9);
    // started before it: up from the start, every outage shifted, none past the horizon
    FailureSchedule.Seen early = s.seenFrom(7, "w3", first[0] / 2, 300);
    assertEquals(0, early.joinAt());
    assertArrayEquals(new double[] {first[0] / 2, first[1] - first[0] / 2}, early.outages().get(0), 1e-9);
    assertTrue(early.outages().stream().allMatch(o -> o[0] <= 300));
  }

  @Test
  void linearLifetimesAreUniformUpToOneOverKappaAndDowntimesHaveTheirMean() {
    FailureSchedule s = FailureSchedule.parse("linear:0.01", 20);
    double life = 0;
    double down = 0;
    int n = 0;
    for (long seed = 0; seed < 4000; seed++) {
      double[] first = s.outages(seed, "w", 200).get(0);
      assertTrue(first[0] >= 0 && first[0] <= 100, "surely down by 1/kappa = 100 s: " + first[0]);
      life += first[0];
      down += first[1] - first[0];
      n++;
    }
    assertEquals(50, life / n, 1.5, "mean lifetime 1/(2 kappa)");
    assertEquals(20, down / n, 1.2, "mean downtime");
  }

  @Test
  void weibullAndNeverComingBack() {
    FailureSchedule w = FailureSchedule.parse("weibull:0.45,15000", Double.POSITIVE_INFINITY);
    List<double[]> o = w.outages(1, "w", 1e12);
    assertEquals(1, o.size(), "with no downtime end, one outage for good");
    assertEquals(Double.POSITIVE_INFINITY, o.get(0)[1]);
    int below = 0;
    for (long seed = 0; seed < 4000; seed++) {
      if (w.outages(seed, "w", 1e12).get(0)[0] < 15000 * Math.pow(Math.log(2), 1 / 0.45)) {
        below++;
      }
    }
    assertEquals(0.5, below / 4000.0, 0.03, "half the lifetimes below the Weibull median");
  }

  @Test
  void aTraceIsReadAsWrittenAndBadLinesAreNamed() {
    FailureSchedule t = FailureSchedule.trace("# a blip\n4 9\n20 inf\n", "t.txt");
    List<double[]> o = t.outages(0, "any", 100);
    assertArrayEquals(new double[] {4, 9}, o.get(0));
    assertEquals(Double.POSITIVE_INFINITY, o.get(1)[1]);
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> FailureSchedule.trace("4 9\n8 12\n", "t.txt"));
    assertTrue(bad.getMessage().startsWith("t.txt line 2"), bad.getMessage());
    assertThrows(IllegalArgumentException.class, () -> FailureSchedule.trace("4\n", "t.txt"));
    for (String spec : new String[] {"linear", "linear:-1", "linear:abc", "weibull:1", "gamma:2", "exponential:0"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FailureSchedule.parse(spec, 1));
      assertTrue(e.getMessage().contains(spec), e.getMessage());
    }
  }
}
