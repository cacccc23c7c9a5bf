package dev.gleaner.common.sim;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import java.util.HashMap;
import java.util.Map;

/** The simulated master's port for the network it is given: one stream at a time, or a fluid model of several. */
final class SimPorts {
  private SimPorts() {}

  /** What the simulated workers ask of the port. */
  interface Port {
    /**
     * Queues the input {@code s} of the worker's chunk; {@code arrived} runs at each piece boundary its
     * bytes reach, and once they are all there.
     */
    void queue(SimHost h, SimChunk c, Action.Stream s, Runnable arrived);

    /** The worker went down: its streams stop. */
    void hostDown(SimHost h);

    /** The chunk now ends at {@code end}: its streams carry no unit past it (nor past what was sent). */
    void truncate(SimChunk c, long end);

    /** The chunk was cancelled: its streams stop. */
    void cancel(SimChunk c);
  }

  /** A stream waiting at a port: its worker, when it was asked for, and whether it still has bytes to send. */
  interface Queued {
    SimHost host();

    long seq();

    /** Its chunk is not gone, its worker is up, and it has units left. */
    boolean live();
  }

  /**
   * Each worker's first live stream among those waiting: a worker's streams go in the order they were
   * asked for, as its connection sends them, so only that one is in line (one asked for later, of a
   * better rank, does not block the others).
   */
  static Map<SimHost, Long> firstOfEach(Iterable<? extends Queued> waiting) {
    Map<SimHost, Long> first = new HashMap<>();
    for (Queued q : waiting) {
      if (q.live()) {
        first.merge(q.host(), q.seq(), Math::min);
      }
    }
    return first;
  }

  /**
   * The order in which waiting streams are served, as the master's port serves them: by the plan's
   * rank, between equal ranks the faster link first (one not measured yet first of all), then in the
   * order they were asked for. Each stream as its rank, the link as measured when it was asked
   * (bytes/s, NaN: not known) and its sequence number.
   */
  static int serviceOrder(int rankA, double linkA, long seqA, int rankB, double linkB, long seqB) {
    if (rankA != rankB) {
      return Integer.compare(rankA, rankB);
    }
    double ra = Double.isNaN(linkA) ? Double.POSITIVE_INFINITY : linkA;
    double rb = Double.isNaN(linkB) ? Double.POSITIVE_INFINITY : linkB;
    return ra != rb ? Double.compare(rb, ra) : Long.compare(seqA, seqB);
  }

  static Port of(SimClock clock, Controller controller, JobDef job, SimNetwork network) {
    return network.onePort() ? new SimPort(clock, controller, job) : new SimFluidPort(clock, controller, job, network);
  }
}
