package dev.gleaner.common.sim;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;

/** The simulated master's port for the network it is given: one stream at a time, or a fluid model of several. */
final class SimPorts {
  private SimPorts() {}

  /** What the simulated workers ask of the port. */
  interface Port {
    /** Queues the input {@code s} of the worker's chunk; {@code arrived} runs once it is all there. */
    void queue(SimHost h, SimChunk c, Action.Stream s, Runnable arrived);

    /** The worker went down: its streams stop. */
    void hostDown(SimHost h);

    /** The chunk now ends at {@code end}: its streams carry no unit past it (nor past what was sent). */
    void truncate(SimChunk c, long end);

    /** The chunk was cancelled: its streams stop. */
    void cancel(SimChunk c);
  }

  static Port of(SimClock clock, Controller controller, JobDef job, SimNetwork network) {
    return network.onePort() ? new SimPort(clock, controller, job) : new SimFluidPort(clock, controller, job, network);
  }
}
