package dev.gleaner.common.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.Outset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Forecasts of jobs that share the workers: alice's job would take 4 workers 100 s; bob's, a second
 * owner's, 50 s on 2 of them, comes at 25 s, a quarter into alice's. Each job's forecast made with the
 * other's (at a quarter of its own run) is within 10% of its real end, in the same closed loop;
 * alice's forecast as if alone (what a forecast said before it counted other jobs) misses by a fifth.
 */
class ForecastTogetherTest {
  private static final double SPEED = 1000;

  private static JobDef job(String id, String owner, long units) {
    return JobDef.of(id, "sim", 0, units, "auto").withTenant(new JobDef.Tenant(owner, 0));
  }

  @Test
  void eachJobsForecastCountsTheOtherOwnersJob() {
    List<ClosedLoop.Host> hosts = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      hosts.add(ClosedLoop.Host.of("w" + i, SPEED));
    }
    ClosedLoop.Setup setup = ClosedLoop.Setup.defaults(2000);
    Map<String, Forecast.Outlook> forecasts = new HashMap<>();
    ClosedLoop.Observer observer = new ClosedLoop.Observer() {
      boolean alice;
      boolean bob;

      @Override
      public void after(Controller c, double now) {
        if (!alice && now >= 26) {
          alice = true;
          Map<String, Forecast.Outlook> f = Forecast.runTogether(outsets(c, now), Map.of(), setup.config(),
              setup.tick(), Forecast.RUNS, 1);
          forecasts.put("alice", f.get("alice-1"));
          forecasts.put("alice alone", Forecast.run(c.views().outset("alice-1", now), setup.config(), setup.tick(),
              Forecast.RUNS, 1));
        }
        if (!bob && now >= 25 + 12.5) {
          bob = true;
          forecasts.put("bob", Forecast.runTogether(outsets(c, now), Map.of(), setup.config(), setup.tick(),
              Forecast.RUNS, 2).get("bob-1"));
        }
      }
    };
    ClosedLoop.Shared r = ClosedLoop.runAll(List.of(new ClosedLoop.Arrival(0, job("alice-1", "client:alice", 400_000)),
        new ClosedLoop.Arrival(25, job("bob-1", "client:bob", 100_000))), hosts, setup, observer);
    ClosedLoop.JobEnd alice = r.jobs().get(0);
    ClosedLoop.JobEnd bob = r.jobs().get(1);
    assertEquals(JobPhase.DONE, alice.phase());
    assertEquals(JobPhase.DONE, bob.phase());
    for (String who : List.of("alice", "bob")) {
      assertNotNull(forecasts.get(who), who);
    }
    double aliceSays = forecasts.get("alice").end();
    double bobSays = forecasts.get("bob").end();
    assertTrue(Math.abs(aliceSays / alice.end() - 1) <= 0.1, "alice's forecast " + aliceSays + " s, her end "
        + alice.end() + " s");
    assertTrue(Math.abs((bobSays - 25) / (bob.end() - 25) - 1) <= 0.1, "bob's forecast " + bobSays + " s, his end "
        + bob.end() + " s");
    double alone = forecasts.get("alice alone").end();
    assertTrue(alone < 0.9 * alice.end(), "alone, alice's forecast " + alone + " s, her end " + alice.end() + " s");
  }

  private static List<Outset> outsets(Controller c, double now) {
    List<Outset> out = new ArrayList<>();
    for (String id : List.of("alice-1", "bob-1")) {
      Outset o = c.views().outset(id, now);
      if (o != null) {
        out.add(o);
      }
    }
    return out;
  }

  @Test
  void jobsOfDifferentWorkloadsAreForecastEachAsAlone() {
    // nothing to share a simulated world on: each gets run()'s outlook (here none: nothing measured)
    Map<String, Forecast.Outlook> f = Forecast.runTogether(List.of(), Map.of(), ControlConfig.defaults(), 0.5, 4, 1);
    assertTrue(f.isEmpty());
  }
}
