package dev.gleaner.common.port;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** When streams of known rates and durations start under a rule, in order. */
class PortClockTest {
  @Test
  void onePortSendsOneStreamAfterTheOther() {
    PortClock c = new PortClock(PortRule.ONE_PORT);
    assertEquals(0, c.admit(10, 2));
    assertEquals(2, c.admit(5, 1));
    // no transfer (infinite link) still waits for the wire to be free, and takes no time on it
    assertEquals(3, c.admit(Double.POSITIVE_INFINITY, 0));
    assertEquals(3, c.admit(1, 1));
  }

  @Test
  void streamsStartBesideThoseOnTheWireWhileTheyFitAndNeverOvertake() {
    PortClock c = new PortClock(new PortRule(Integer.MAX_VALUE, 10));
    assertEquals(0, c.admit(5, 4));
    assertEquals(0, c.admit(5, 2));
    // 5 + 5 + 5 do not fit: the third waits for the second to end
    assertEquals(2, c.admit(5, 1));
    // at t=2 the first and the third are on the wire (5 + 5 + 2 > 10, past its slack): a thin link waits
    // for the third
    assertEquals(3, c.admit(2, 1));
  }

  @Test
  void atMostMaxStreamsAtOnce() {
    PortClock c = new PortClock(new PortRule(2, Double.POSITIVE_INFINITY));
    List<Double> starts = List.of(c.admit(1, 3), c.admit(1, 1), c.admit(1, 1), c.admit(1, 5));
    assertEquals(List.of(0.0, 0.0, 1.0, 2.0), starts);
  }

  @Test
  void theScheduleScalesWithTheDurations() {
    double[] rates = {7, 3, 2, 5, 1};
    double[] seconds = {2, 5, 1, 3, 4};
    PortRule rule = new PortRule(Integer.MAX_VALUE, 9);
    PortClock once = new PortClock(rule);
    PortClock twice = new PortClock(rule);
    for (int i = 0; i < rates.length; i++) {
      assertEquals(2 * once.admit(rates[i], seconds[i]), twice.admit(rates[i], 2 * seconds[i]), 1e-12);
    }
  }
}
