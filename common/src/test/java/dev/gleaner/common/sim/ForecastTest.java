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

  /**
   * On workers never interrupted, whose pace the pieces measured, the job ends when their speeds
   * say, and the runs differ only by what the pace seen leaves open: a few percent.
   */
  @Test
  void onWorkersThatAreNeverInterruptedTheJobEndsWhenTheirSpeedsSay() {
    JobDef job = JobDef.of("j", "w", 0, 400_000, "self");
    Outset[] at20 = new Outset[1];
    ClosedLoop.run(job, List.of(ClosedLoop.Host.of("a", 1000), ClosedLoop.Host.of("b", 3000)),
        ClosedLoop.Setup.defaults(1e6), (ctl, now) -> {
          if (at20[0] == null && now >= 20) {
            at20[0] = ctl.views().outset("j", now);
          }
        });
    Outset o = at20[0];
    assertEquals(2, o.hosts().size());
    assertTrue(o.hosts().stream().allMatch(h -> h.speedSeconds() > 0), "both measured: " + o.hosts());

    Forecast.Outlook f = Forecast.run(o, CONFIG, 0.5, Forecast.RUNS, 1);

    // 400k units at 4,000 units/s: 100 s, and eps and the hand-out's tail on top; the median of runs
    // whose pace of the rest is drawn about the pace seen
    assertEquals(1.0, f.finished());
    assertEquals(400_000, f.units());
    assertTrue(f.end() >= 95 && f.end() <= 110, "end " + f.end());
    assertTrue(f.endLow() < f.endHigh(), "the pace of the rest is not known for sure: " + f);
    assertTrue(f.endHigh() - f.endLow() < 0.5 * (f.end() - 20), "of the 80 s left, within a few tens of percent: "
        + f);
  }

  /**
   * Before any piece is measured there is no forecast: the workers' calibrations may be off by
   * several times. A worker not measured yet beside one that is widens the band.
   */
  @Test
  void noForecastBeforeAPieceIsMeasuredAndAnUnmeasuredWorkerWidensTheBand() {
    Controller c = new Controller(CONFIG);
    c.workerJoined(WorkerInfo.of("a", "w", 1000), 0);
    c.workerJoined(WorkerInfo.of("b", "w", 1000), 0);
    c.addJob(JobDef.of("j", "w", 0, 10_000_000, "self").withDeadline(1000), 0);
    c.ready().actions();
    assertNull(Forecast.run(c.views().outset("j", 5), CONFIG, 0.5, Forecast.RUNS, 1));

    dev.gleaner.common.estimate.Estimator e = (dev.gleaner.common.estimate.Estimator) c.estimates();
    for (int i = 0; i < 20; i++) {
      e.computed("a", "w", 1000, 1);
    }
    Forecast.Outlook one = Forecast.run(c.views().outset("j", 20), CONFIG, 0.5, Forecast.RUNS, 1);
    assertNotNull(one);
    for (int i = 0; i < 20; i++) {
      e.computed("b", "w", 1000, 1);
    }
    Forecast.Outlook both = Forecast.run(c.views().outset("j", 20), CONFIG, 0.5, Forecast.RUNS, 1);
    double widthOne = (one.unitsHigh() - one.unitsLow()) / one.units();
    double widthBoth = (both.unitsHigh() - both.unitsLow()) / both.units();
    assertTrue(widthOne > 2 * widthBoth, "b's calibration alone: band " + widthOne + ", measured: " + widthBoth);
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

    Forecast.Outlook f = Forecast.run(o, CONFIG, 0.5, Forecast.RUNS, 1);

    // 200 s at 1,000 units/s, less the pieces' eps: the run itself is the same world, the piece under
    // way at 50 s included (counted as saved as far as it went); the pace of the rest is drawn
    assertEquals(0, f.finished());
    assertEquals(r.committed(), f.units(), 0.02 * r.committed());
    assertTrue(f.unitsLow() <= r.committed() && r.committed() <= f.unitsHigh(), r.committed() + " in " + f);
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
    ((dev.gleaner.common.estimate.Estimator) c.estimates()).computed("a", "w", 10_000, 10);
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
          read[0] = Forecast.run(ctl.views().outset("j", now), CONFIG, 0.5, Forecast.RUNS, s);
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
    // the lowest to the highest of 20 runs holds the outcome 19 times in 21
    assertTrue(inBand >= 5, inBand + " of 6 final figures in their band; worst error " + worst);
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

  /** The law of the periods has the mean and shape asked, and a period that lasted long is likely to last. */
  @Test
  void theLawOfThePeriodsHasTheMeanAndShapeAskedAndItsHazardFallsWithAge() {
    for (double k : new double[] {0.5, 1, 2}) {
      Forecast.Law law = Forecast.Law.of(3600, k);
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
      // a Weibull's squared variation: 1 at shape 1, 5 at 0.5, 0.27 at 2
      double c2 = Math.exp(lgamma(1 + 2 / k) - 2 * lgamma(1 + 1 / k)) - 1;
      assertEquals(3600, mean, 0.02 * 3600, "shape " + k);
      assertEquals(c2, seen, 0.08 * c2, "shape " + k);
    }
    // exponential: what is left does not depend on the age; heavy-tailed: it grows with the age
    Forecast.Law exp = Forecast.Law.of(3600, 1);
    Forecast.Law heavy = Forecast.Law.of(3600, 0.45);
    assertEquals(3600, meanResidual(exp, 10 * 3600), 0.02 * 3600);
    double young = meanResidual(heavy, 0);
    double old = meanResidual(heavy, 10 * 3600);
    assertEquals(3600, young, 0.03 * 3600);
    assertTrue(old > 2 * young, young + " then " + old);
    assertEquals(Double.POSITIVE_INFINITY, Forecast.Law.of(Double.POSITIVE_INFINITY, 0.5).residual(
        new java.util.SplittableRandom(1), 0), "an infinite mean: the period never ends");
  }

  /** ln Gamma by the Stirling series after shifting x above 10 (a reference apart from the one under test). */
  private static double lgamma(double x) {
    double shift = 0;
    while (x < 10) {
      shift += Math.log(x);
      x += 1;
    }
    return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * x) - 1 / (360 * x * x * x)
        - shift;
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
