package dev.gleaner.common.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.trace.DesktopTraceGenerator.Weibull;
import java.util.List;
import org.junit.jupiter.api.Test;

class OracleForecastTest {
  private static final double H = 3600;

  /**
   * With exponential periods (Weibull of shape 1) the node is a two-state Markov chain, whose
   * expected time up ahead has a closed form: from up, pi L + (1 - pi)(1 - e^(-cL))/c, from down,
   * pi L - pi (1 - e^(-cL))/c, with c = 1/mean up + 1/mean down and pi = mean up / (mean up + mean
   * down). The oracle's draws must come to it.
   */
  @Test
  void withExponentialPeriodsTheForecastIsTheMarkovChainsExpectation() {
    double meanUp = 4 * H;
    double meanDown = 1 * H;
    double horizon = 20 * H;
    double at = 5 * H;
    // node 1 up all along (up at `at`); node 2 up for an hour, then down past `at`, back at 8 h
    AvailabilityTrace trace = AvailabilityTrace.of(List.of(
        new TraceEvent("1", true, 0, horizon, 1),
        new TraceEvent("2", true, 0, 1 * H, 2), new TraceEvent("2", false, 1 * H, 8 * H, 3),
        new TraceEvent("2", true, 8 * H, horizon, 4)), "test");

    OracleForecast.Result r = OracleForecast.at(trace, horizon, at, new Weibull(1, meanUp), new Weibull(1, meanDown),
        200_000, 1);

    double c = 1 / meanUp + 1 / meanDown;
    double pi = meanUp / (meanUp + meanDown);
    double l = horizon - at;
    double fromUp = pi * l + (1 - pi) * (1 - Math.exp(-c * l)) / c;
    double fromDown = pi * l - pi * (1 - Math.exp(-c * l)) / c;
    assertEquals(5 * H + 1 * H, r.seen(), 1e-6);
    assertEquals(20 * H + 13 * H, r.actual(), 1e-6);
    assertEquals(r.seen() + fromUp + fromDown, r.mean(), 0.005 * (fromUp + fromDown));
    assertTrue(r.low() < r.mean() && r.mean() < r.high(), r.toString());
  }

  /**
   * Desktop periods (shape below 1) grow more likely to last the longer they have lasted: a node up
   * for long is forecast more time up ahead than one just back, which an exponential law cannot say.
   */
  @Test
  void aDesktopUpForLongIsForecastToStayUpLonger() {
    Weibull up = DesktopTraceGenerator.NOTRE_DAME_UP;
    Weibull down = DesktopTraceGenerator.NOTRE_DAME_DOWN;
    double horizon = 60 * H;
    AvailabilityTrace longUp = AvailabilityTrace.of(List.of(new TraceEvent("1", true, 0, horizon, 1)), "long");
    AvailabilityTrace justBack = AvailabilityTrace.of(List.of(new TraceEvent("1", false, 0, 14 * H, 1),
        new TraceEvent("1", true, 14 * H, horizon, 2)), "back");

    double ahead1 = OracleForecast.at(longUp, horizon, 15 * H, up, down, 50_000, 3).mean() - 15 * H;
    double ahead2 = OracleForecast.at(justBack, horizon, 15 * H, up, down, 50_000, 3).mean() - 1 * H;

    assertTrue(ahead1 > ahead2 + 1 * H, ahead1 / H + " h ahead after 15 h up, " + ahead2 / H + " after 1 h");
    // what is left of a period of age 0 is a fresh draw
    assertEquals(up.quantile(0.3), up.residual(0, 0.3), 1e-6);
  }

  @Test
  void aMomentOutsideTheTraceIsRefused() {
    AvailabilityTrace t = AvailabilityTrace.of(List.of(new TraceEvent("1", true, 0, 10, 1)), "t");
    Weibull w = new Weibull(1, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> OracleForecast.at(t, 10, 11, w, w, 10, 1));
    assertTrue(e.getMessage().contains("within [0, horizon]"), e.getMessage());
  }
}
