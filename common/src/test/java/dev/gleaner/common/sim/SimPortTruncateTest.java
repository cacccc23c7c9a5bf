package dev.gleaner.common.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.port.PortRule;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A chunk truncated while its input is on the wire, on both of the simulator's ports: the stream
 * stops at the new end only past what the master's port has written ahead of the wire, as the real
 * port (whose Truncate travels behind those bytes); a stream not started yet stops at the new end.
 */
class SimPortTruncateTest {
  /** One worker behind a 1 MB/s link, a byte a unit. */
  private static final double LINK = 1e6;

  /** When the input of a chunk of {@code units} is all there, truncated to {@code newEnd} at {@code cutAt}. */
  private static double inputThere(boolean fluid, long units, double cutAt, long newEnd) {
    return inputThere(fluid, 0, units, cutAt, newEnd);
  }

  /** The same, the chunk's stream queued behind one of {@code before} units for the same worker (0: none). */
  private static double inputThere(boolean fluid, long before, long units, double cutAt, long newEnd) {
    SimClock clock = new SimClock();
    Controller controller = new Controller(ControlConfig.defaults());
    JobDef job = JobDef.of("j", "wc", 0, units, "self").withInput(1, x -> x);
    SimHost host = new SimHost(new ClosedLoop.Host("w1", 1e12, LINK, 1e12, 0, List.of(), Double.POSITIVE_INFINITY));
    host.up = true;
    SimChunk chunk = new SimChunk(new Action.Assign("w1", "j", 1, 0, units, new long[0], units, 60));
    SimPorts.Port port = fluid ? new SimFluidPort(clock, controller, job, new SimNetwork(1e15, 1))
        : new SimPort(clock, controller, job);
    if (before > 0) {
      SimChunk first = new SimChunk(new Action.Assign("w1", "j", 0, units, units + before, new long[0], before, 60));
      port.queue(host, first, new Action.Stream("w1", "j", 0, units, units + before, 0, LINK), () -> { });
    }
    double[] there = {Double.NaN};
    port.queue(host, chunk, new Action.Stream("w1", "j", 1, 0, units, 0, LINK), () -> {
      if (chunk.arrived == Long.MAX_VALUE && Double.isNaN(there[0])) {
        there[0] = clock.now();
      }
    });
    clock.at(cutAt, () -> {
      chunk.end = newEnd;
      port.truncate(chunk, newEnd);
    });
    for (int i = 0; i < 10_000 && clock.step(1e6); i++) {
      // events in order of time
    }
    return there[0];
  }

  @Test
  void aChunkCutUnderWayStillCarriesWhatWasWrittenAhead() {
    long ahead = PortRule.WRITTEN_AHEAD_BYTES;
    for (boolean fluid : List.of(false, true)) {
      String port = fluid ? "fluid port" : "one port";
      // 8 MB; cut to 1.5 MB after 1 s (1 MB sent): the bytes written ahead of the wire still go
      assertEquals((1_000_000 + ahead) / LINK, inputThere(fluid, 8_000_000, 1.0, 1_500_000), 1e-6, port);
      // 1 MB, all written at once; cut to 0.2 MB after 0.1 s: the whole megabyte goes
      assertEquals(1.0, inputThere(fluid, 1_000_000, 0.1, 200_000), 1e-6, port);
      // cut past what was written ahead: it stops at the new end
      assertEquals(6.0, inputThere(fluid, 8_000_000, 1.0, 6_000_000), 1e-6, port);
      // not cut: 8 s
      assertEquals(8.0, inputThere(fluid, 8_000_000, 9.0, 6_000_000), 1e-6, port);
    }
  }

  @Test
  void aChunkCutBeforeItsStreamStartsStopsAtTheNewEnd() {
    for (boolean fluid : List.of(false, true)) {
      // behind 1 MB for the same worker; cut to 0.5 MB while it waits: 1 s, then 0.5 s
      assertEquals(1.5, inputThere(fluid, 1_000_000, 8_000_000, 0.5, 500_000), 1e-6, fluid ? "fluid port" : "one port");
    }
  }
}
