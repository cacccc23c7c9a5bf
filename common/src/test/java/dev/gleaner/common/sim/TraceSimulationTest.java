package dev.gleaner.common.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.trace.AvailabilityTrace;
import dev.gleaner.common.trace.DesktopTraceGenerator;
import dev.gleaner.common.trace.TraceEvent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TraceSimulationTest {
  private static Platform platform(int n, double speed) {
    List<Worker> workers = new ArrayList<>();
    for (int k = 1; k <= n; k++) {
      workers.add(new Worker(Integer.toString(k), speed, Double.POSITIVE_INFINITY, 0));
    }
    return new Platform(workers);
  }

  /** No schedule beats the omniscient bound, and the ledger holds after every event, on random desktop traces. */
  @Test
  void theControllerNeverSavesMoreThanTheBoundAndLosesNothing() {
    for (long seed = 1; seed <= 12; seed++) {
      double horizon = 12 * 3600;
      AvailabilityTrace trace = AvailabilityTrace.of(DesktopTraceGenerator.generate(4, horizon, seed,
          DesktopTraceGenerator.NOTRE_DAME_UP, DesktopTraceGenerator.NOTRE_DAME_DOWN), "generated");
      long work = seed % 2 == 0 ? 1_000_000 : 100_000;
      JobDef job = JobDef.of("j", "w", 0, work, seed % 3 == 0 ? "self" : "auto").withMinWorkers(1)
          .withDeadline(horizon);
      ClosedLoop.Setup setup = new ClosedLoop.Setup(ControlConfig.defaults(), 30, 1, horizon + 1);
      TraceSimulation.Result r = TraceSimulation.run(trace, platform(4, 10), job, setup,
          new TraceSimulation.Prior(10, 10 * 10.31 * 3600));
      assertTrue(r.run().committed() <= r.bound(), "seed " + seed + ": " + r.run().committed() + " > " + r.bound());
      assertTrue(r.run().committed() > 0, "seed " + seed);
      String ledger = r.run().controller().views().checkLedger("j");
      assertEquals(null, ledger, "seed " + seed);
    }
  }

  /**
   * Desktops that stay up for days (up Weibull(0.6, 30 h)): DISTRIB's plan is past its validity
   * bound and hands out every share, with paper 000's checkpoints only up to each worker's horizon.
   * No saved piece may still hold more than the hazard interval of its worker's work: Young's
   * sqrt(2 eps / rate), 4.3 minutes at the prior's rate (10 interruptions in 103 hours), longer as
   * hours up without one lower the rate. Before the bound, one piece held 5.8 hours. And every unit of
   * the workers' time is accounted for.
   */
  @Test
  void onDesktopsThatStayUpNoSavedPieceHoldsMoreThanTheHazardInterval() {
    double horizon = 60 * 3600;
    AvailabilityTrace trace = AvailabilityTrace.of(DesktopTraceGenerator.generate(6, horizon, 21,
        new DesktopTraceGenerator.Weibull(0.6, 30 * 3600), new DesktopTraceGenerator.Weibull(0.5, 3600)), "long ups");
    JobDef job = JobDef.of("j", "w", 0, 20_000_000, "auto").withMinWorkers(1).withDeadline(horizon);
    ClosedLoop.Setup setup = new ClosedLoop.Setup(ControlConfig.defaults(), 216, 1, horizon + 1);
    TraceSimulation.Result r = TraceSimulation.run(trace, platform(6, 10), job, setup,
        new TraceSimulation.Prior(10, 10 * 10.31 * 3600));
    double young = dev.gleaner.common.plan.Checkpointing.youngDaly(1, 11 / (10 * 10.31 * 3600));
    assertEquals(260, young, 1);
    assertTrue(r.run().longestPieceSeconds() <= 2 * young, "a saved piece of " + r.run().longestPieceSeconds() + " s");
    ClosedLoop.Result run = r.run();
    assertEquals(run.busySeconds() * 10, run.committed() + run.lostUnits() + run.cancelledUnits()
        + run.inProgressUnits() + run.savingUnits(), 1e-6 * run.committed());
    assertTrue(run.committed() >= 0.99 * r.bound(), run.committed() + " of the bound " + r.bound());
  }

  /** The same trace as owners' visits and as crashes: a vacate saves the piece under way, a crash loses it. */
  @Test
  void anOwnersReturnSavesThePieceUnderWayAndACrashLosesIt() {
    AvailabilityTrace trace = AvailabilityTrace.of(List.of(new TraceEvent("1", true, 0, 25.3, 1),
        new TraceEvent("1", false, 25.3, 40, 2), new TraceEvent("1", true, 40, 70.1, 3),
        new TraceEvent("1", false, 70.1, 200, 4)), "t");
    JobDef job = JobDef.of("j", "w", 0, 1000, "equal").withMinWorkers(1).withChunking(0, 3);
    ClosedLoop.Setup setup = new ClosedLoop.Setup(ControlConfig.defaults(), 0.5, 0, 200);
    TraceSimulation.Result crash = TraceSimulation.run(trace, platform(1, 2), job, setup, TraceSimulation.Prior.NONE);
    TraceSimulation.Result vacate = TraceSimulation.run(trace, platform(1, 2), job,
        setup.with(ClosedLoop.Interruptions.VACATE), TraceSimulation.Prior.NONE);
    assertTrue(crash.run().lostUnits() > 1, "a crash loses the piece under way: " + crash.run().lostUnits());
    // 2 units/s: at 25.3 s and 70.1 s, what was computed is saved but the part of a unit under way
    assertTrue(vacate.run().lostUnits() < 2, "a vacate loses less than a unit each time: " + vacate.run().lostUnits());
    assertEquals(110, vacate.run().committed(), "every unit of the 55.4 s up is saved, floored at each vacate");
    assertTrue(vacate.run().committed() > crash.run().committed());
    assertEquals(vacate.run().committed() + vacate.run().lostUnits(), 2 * vacate.run().busySeconds(), 1e-6);
    assertEquals(null, vacate.run().controller().views().checkLedger("j"));
  }

  @Test
  void aWorkerDownForTheWholeHorizonTakesNoPartAndIsListed() {
    AvailabilityTrace trace = AvailabilityTrace.of(List.of(new TraceEvent("1", true, 0, 100, 1),
        new TraceEvent("2", false, 0, 50, 2), new TraceEvent("2", true, 50, 100, 3)), "t");
    JobDef job = JobDef.of("j", "w", 0, 1000, "auto").withMinWorkers(1).withDeadline(40);
    TraceSimulation.Result r = TraceSimulation.run(trace, platform(2, 1), job,
        new ClosedLoop.Setup(ControlConfig.defaults(), 0.5, 0, 41), TraceSimulation.Prior.NONE);
    assertEquals(List.of("2"), r.neverUp());
    assertEquals(40, r.bound());
    assertTrue(r.run().committed() <= 40);
  }

  @Test
  void platformAndTraceMustNameTheSameComputers() {
    AvailabilityTrace trace = AvailabilityTrace.of(List.of(new TraceEvent("1", true, 0, 100, 1),
        new TraceEvent("9", true, 0, 100, 2)), "t");
    JobDef job = JobDef.of("j", "w", 0, 1000, "auto").withMinWorkers(1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TraceSimulation.run(trace,
        platform(2, 1), job, ClosedLoop.Setup.defaults(100), TraceSimulation.Prior.NONE));
    assertEquals("the platform's workers and the trace's nodes differ: workers not in the trace [2], nodes not in the"
        + " platform [9]", e.getMessage());
  }

  /** One worker alone: its time up is the trace's, and what it computed is what it saved plus what it lost. */
  @Test
  void theLoopAccountsForUpBusyAndLostWork() {
    AvailabilityTrace trace = AvailabilityTrace.of(List.of(new TraceEvent("1", true, 0, 25.3, 1),
        new TraceEvent("1", false, 25.3, 40, 2), new TraceEvent("1", true, 40, 70.1, 3),
        new TraceEvent("1", false, 70.1, 200, 4)), "t");
    JobDef job = JobDef.of("j", "w", 0, 1000, "equal").withMinWorkers(1).withChunking(0, 3);
    TraceSimulation.Result r = TraceSimulation.run(trace, platform(1, 2), job,
        new ClosedLoop.Setup(ControlConfig.defaults(), 0.5, 0, 200), TraceSimulation.Prior.NONE);
    assertEquals(55.4, r.run().upSeconds(), 1e-9);
    assertEquals(r.run().committed() + r.run().lostUnits() + r.run().inProgressUnits() + r.run().cancelledUnits(),
        2 * r.run().busySeconds(), 1e-6);
    assertTrue(r.run().lostUnits() > 0, "a vacate in the middle of a piece loses it");
    assertEquals(1, r.returns());
    assertEquals(110, r.bound());
  }
}
