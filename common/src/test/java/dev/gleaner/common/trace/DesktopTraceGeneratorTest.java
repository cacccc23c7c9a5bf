package dev.gleaner.common.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.trace.DesktopTraceGenerator.Weibull;
import java.util.List;
import org.junit.jupiter.api.Test;

class DesktopTraceGeneratorTest {
  private static final Weibull UP = DesktopTraceGenerator.NOTRE_DAME_UP;
  private static final Weibull DOWN = DesktopTraceGenerator.NOTRE_DAME_DOWN;

  @Test
  void logGammaMatchesKnownValues() {
    assertEquals(Math.log(24), DesktopTraceGenerator.logGamma(5), 1e-12);
    assertEquals(Math.log(Math.sqrt(Math.PI)), DesktopTraceGenerator.logGamma(0.5), 1e-12);
    // Gamma(1 + 1/0.45) from the series, 2.4786...: the fit's mean up time is 10.31 h
    assertEquals(10.311, UP.mean() / 3600, 0.001);
    assertEquals(1.428, DOWN.mean() / 3600, 0.001);
  }

  @Test
  void sameSeedSameTraceAndNodesDoNotDependOnHowManyThereAre() {
    List<TraceEvent> a = DesktopTraceGenerator.generate(4, 60 * 3600, 1, UP, DOWN);
    assertEquals(a, DesktopTraceGenerator.generate(4, 60 * 3600, 1, UP, DOWN));
    assertNotEquals(a, DesktopTraceGenerator.generate(4, 60 * 3600, 2, UP, DOWN));
    List<TraceEvent> six = DesktopTraceGenerator.generate(6, 60 * 3600, 1, UP, DOWN);
    assertEquals(a, six.subList(0, a.size()));
  }

  @Test
  void eachNodeAlternatesAndCoversTheHorizonExactly() {
    double horizon = 60 * 3600;
    List<TraceEvent> events = DesktopTraceGenerator.generate(6, horizon, 3, UP, DOWN);
    for (int k = 1; k <= 6; k++) {
      String id = Integer.toString(k);
      List<TraceEvent> mine = events.stream().filter(e -> e.node().equals(id)).toList();
      assertEquals(0, mine.get(0).start());
      assertEquals(horizon, mine.get(mine.size() - 1).stop());
      for (int i = 1; i < mine.size(); i++) {
        assertEquals(mine.get(i - 1).stop(), mine.get(i).start());
        assertNotEquals(mine.get(i - 1).available(), mine.get(i).available());
      }
    }
  }

  /** Periods not cut by the horizon follow the fit: as many below its median as above, within 4 s.e. */
  @Test
  void periodLengthsFollowTheFits() {
    double horizon = 20_000 * 3600.0;
    List<TraceEvent> events = DesktopTraceGenerator.generate(1, horizon, 11, UP, DOWN);
    for (boolean available : new boolean[] {true, false}) {
      Weibull fit = available ? UP : DOWN;
      double median = fit.quantile(0.5);
      List<TraceEvent> whole = events.stream().filter(e -> e.available() == available && e.stop() < horizon).toList();
      long below = whole.stream().filter(e -> e.stop() - e.start() < median).count();
      double share = (double) below / whole.size();
      double se = Math.sqrt(0.25 / whole.size());
      assertTrue(whole.size() > 1000, "periods: " + whole.size());
      assertTrue(Math.abs(share - 0.5) < 4 * se, available + ": " + share + " below the median, s.e. " + se);
    }
    // and the long-run share of time up is mean up / (mean up + mean down): over about 1,700
    // cycles of up times with a coefficient of variation of 2.6, one standard error is 0.007
    double upTime = events.stream().filter(TraceEvent::available).mapToDouble(e -> e.stop() - e.start()).sum();
    double expected = UP.mean() / (UP.mean() + DOWN.mean());
    assertEquals(expected, upTime / horizon, 0.03);
  }
}
