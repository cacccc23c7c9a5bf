package dev.gleaner.common.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.Outset;
import dev.gleaner.common.control.WorkerInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ForecastTest {
  private static final ControlConfig CONFIG = ControlConfig.defaults();

  @Test
  void onWorkersThatAreNeverInterruptedTheJobEndsWhenTheirSpeedsSayAndEveryRunAgrees() {
    Controller c = new Controller(CONFIG);
    c.workerJoined(WorkerInfo.of("a", "w", 1000), 0);
    c.workerJoined(WorkerInfo.of("b", "w", 3000), 0);
    c.addJob(JobDef.of("j", "w", 0, 400_000, "self"), 0);
    c.ready().actions();
    Outset o = c.views().outset("j", 0);
    assertEquals(400_000, o.job().remaining().size());
    assertEquals(2, o.hosts().size());

    Forecast.Outlook f = Forecast.run(o, CONFIG, 0.5, 4, 1);

    // 400k units at 4,000 units/s: 100 s, and eps and the hand-out's tail on top
    assertEquals(1.0, f.finished());
    assertEquals(400_000, f.units());
    assertTrue(f.end() >= 100 && f.end() <= 110, "end " + f.end());
    assertEquals(f.endLow(), f.endHigh(), "no draw differs: no interruption is expected");
  }

  @Test
  void withADeadlineItForecastsTheUnitsSavedByThenThoseSavedAlreadyIncluded() {
    JobDef job = JobDef.of("j", "w", 0, 1_000_000, "self").withDeadline(200);
    Outset[] at50 = new Outset[1];
    ClosedLoop.Result r = ClosedLoop.run(job, List.of(ClosedLoop.Host.of("a", 1000)), ClosedLoop.Setup.defaults(1e6),
        (ctl, now) -> {
          if (at50[0] == null && now >= 50) {
            at50[0] = ctl.views().outset("j", now);
          }
        });
    Outset o = at50[0];
    assertTrue(o.committed() > 40_000, "saved by 50 s: " + o.committed());

    Forecast.Outlook f = Forecast.run(o, CONFIG, 0.5, 3, 1);

    // 200 s at 1,000 units/s, less the pieces' eps: the run itself is the same world, the piece under
    // way at 50 s included (counted as saved as far as it went)
    assertEquals(0, f.finished());
    assertEquals(r.committed(), f.units(), 0.002 * r.committed());
    assertTrue(f.units() > o.committed() + 140_000, "units " + f.units());
    assertEquals(Double.POSITIVE_INFINITY, f.end());
    assertEquals(200, f.deadline());
  }

  @Test
  void aWorkerThatLeftWithoutAnInterruptionIsNotCountedOnButOneThatWasInterruptedIs() {
    Controller c = new Controller(CONFIG);
    for (String id : List.of("a", "b", "c")) {
      c.workerJoined(WorkerInfo.of(id, "w", 1000), 0);
    }
    c.addJob(JobDef.of("j", "w", 0, 10_000_000, "self"), 0);
    c.ready().actions();
    c.workerLost("b", "said goodbye", false, 10);
    c.workerLost("c", "connection reset", true, 10);
    c.ready().actions();

    Outset o = c.views().outset("j", 30);

    assertEquals(List.of("a", "c"), o.hosts().stream().map(Outset.Host::id).toList());
    Outset.Host lost = o.hosts().get(1);
    assertEquals(20, lost.downFor(), 1e-9);
    // the one outage seen, under way for 20 s: the fleet's mean so far is 20 s, and the worker's own
    // 20 s with that as one outage's prior make 40 s
    assertEquals(40, lost.downtime(), 1e-9);
    assertTrue(lost.rate() > 0);
    assertTrue(o.hosts().get(0).up());
  }

  @Test
  void aWorkerDownForMoreThanAWeekHasLeftAndTheJobsMinimumIsNotAwaitedAgain() {
    Controller c = new Controller(CONFIG);
    for (String id : List.of("a", "b", "c")) {
      c.workerJoined(WorkerInfo.of(id, "w", 1000), 0);
    }
    c.addJob(JobDef.of("j", "w", 0, 10_000_000, "self").withMinWorkers(3), 0);
    c.ready().actions();
    c.workerLost("c", "connection reset", true, 10);
    c.ready().actions();
    double week = dev.gleaner.common.estimate.Estimator.DEPARTED_AFTER;

    Outset o = c.views().outset("j", 10 + week + 1);

    assertEquals(List.of("a", "b"), o.hosts().stream().map(Outset.Host::id).toList());
    assertEquals(1, o.job().minWorkers(), "the job has its workers: a forecast does not wait for three again");
    Forecast.Outlook f = Forecast.run(o, CONFIG, 0.5, 2, 1);
    assertTrue(f.units() > o.committed(), "the two workers go on: " + f);
  }

  @Test
  void noWorkerNoForecast() {
    Controller c = new Controller(CONFIG);
    c.workerJoined(WorkerInfo.of("a", "w", 1000), 0);
    c.addJob(JobDef.of("j", "w", 0, 10_000, "self"), 0);
    c.ready().actions();
    c.workerLost("a", "said goodbye", false, 1);
    c.ready().actions();
    assertNull(Forecast.run(c.views().outset("j", 2), CONFIG, 0.5, 2, 1));
  }

  /**
   * The forecast read at a quarter of a run against the run's final figure: runs of the simulator
   * with interruptions drawn from a known law, the forecast knowing only what the controller saw.
   */
  @Test
  void readAtAQuarterOfARunItForecastsTheUnitsSavedByTheDeadlineWithinItsBand() {
    int inBand = 0;
    double worst = 0;
    for (long seed = 1; seed <= 6; seed++) {
      FailureSchedule law = FailureSchedule.parse("exponential:0.004", 60);
      List<ClosedLoop.Host> hosts = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        double speed = 500 + 250 * i;
        hosts.add(new ClosedLoop.Host("w" + i, speed, Double.POSITIVE_INFINITY, speed, 0,
            law.outages(seed, "w" + i, 4000), Double.POSITIVE_INFINITY));
      }
      double deadline = 2000;
      // self-scheduling: auto would run the DISTRIB solver at every join and loss of every run, a slow test
      JobDef job = JobDef.of("j", "w", 0, 20_000_000, "self").withDeadline(deadline);
      Forecast.Outlook[] read = new Forecast.Outlook[1];
      long s = seed;
      ClosedLoop.Result r = ClosedLoop.run(job, hosts, ClosedLoop.Setup.defaults(1e6), (ctl, now) -> {
        if (read[0] == null && now >= deadline / 4) {
          read[0] = Forecast.run(ctl.views().outset("j", now), CONFIG, 0.5, 10, s);
        }
      });
      Forecast.Outlook f = read[0];
      assertNotNull(f);
      double error = Math.abs(f.units() - r.committed()) / r.committed();
      worst = Math.max(worst, error);
      if (f.unitsLow() <= r.committed() && r.committed() <= f.unitsHigh()) {
        inBand++;
      }
      assertTrue(error < 0.10, "seed " + seed + ": forecast " + f.units() + " against " + r.committed());
    }
    // a 10-90 band holds the outcome about 8 times in 10
    assertTrue(inBand >= 4, inBand + " of 6 final figures in their band; worst error " + worst);
  }

  @Test
  void aForecastWithoutRunsIsRefused() {
    Controller c = new Controller(CONFIG);
    c.workerJoined(WorkerInfo.of("a", "w", 1000), 0);
    c.addJob(JobDef.of("j", "w", 0, 10_000, "self"), 0);
    Outset o = c.views().outset("j", 0);
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> Forecast.run(o, CONFIG, 0.5, 0, 1));
    assertTrue(e.getMessage().contains("at least one run"));
    assertEquals(Set.of("a"), Set.copyOf(o.hosts().stream().map(Outset.Host::id).toList()));
  }

  /** The law of the periods has the mean and variability asked, and a period that lasted long is likely to last. */
  @Test
  void theLawOfThePeriodsHasTheMeanAndVariabilityAskedAndItsHazardFallsWithAge() {
    for (double c2 : new double[] {0.5, 1, 4, 6.5}) {
      Forecast.Law law = Forecast.Law.of(3600, c2);
      assertEquals(3600, law.mean(), 1e-6);
      java.util.SplittableRandom r = new java.util.SplittableRandom(7);
      int n = 400_000;
      double sum = 0;
      double squares = 0;
      for (int i = 0; i < n; i++) {
        double x = law.residual(r, 0);
        sum += x;
        squares += x * x;
      }
      double mean = sum / n;
      double seen = squares / n / (mean * mean) - 1;
      assertEquals(3600, mean, 0.02 * 3600, "c2 " + c2);
      assertEquals(Math.max(1, c2), seen, 0.06 * Math.max(1, c2), "c2 " + c2);
    }
    // exponential: what is left does not depend on the age; hyperexponential: it grows toward the long phase's mean
    Forecast.Law exp = Forecast.Law.of(3600, 1);
    Forecast.Law h2 = Forecast.Law.of(3600, 6.5);
    assertEquals(3600, meanResidual(exp, 10 * 3600), 0.02 * 3600);
    double young = meanResidual(h2, 0);
    double old = meanResidual(h2, 10 * 3600);
    assertEquals(3600, young, 0.02 * 3600);
    assertEquals(h2.m2(), old, 0.02 * h2.m2());
    assertTrue(old > 2 * young, young + " then " + old);
  }

  private static double meanResidual(Forecast.Law law, double age) {
    java.util.SplittableRandom r = new java.util.SplittableRandom(11);
    double sum = 0;
    for (int i = 0; i < 200_000; i++) {
      sum += law.residual(r, age);
    }
    return sum / 200_000;
  }
}
