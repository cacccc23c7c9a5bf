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
      String ledger = r.run().controller().checkLedger("j");
      assertEquals(null, ledger, "seed " + seed);
    }
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
    assertEquals(r.run().committed() + r.run().lostUnits(), 2 * r.run().busySeconds(), 1e-6);
    assertTrue(r.run().lostUnits() > 0, "a vacate in the middle of a piece loses it");
    assertEquals(1, r.returns());
    assertEquals(110, r.bound());
  }
}
