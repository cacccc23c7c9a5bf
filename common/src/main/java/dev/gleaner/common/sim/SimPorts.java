package dev.gleaner.common.sim;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.port.PortRule;
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

    /**
     * A batch of the controller's decisions is carried out: no stream starts until its {@link #end},
     * so that all of its streams are weighed together by the port's order (as the master's port does).
     */
    void begin();

    /** The batch is carried out: the best-ranked of what waits start. */
    void end();
  }

  /**
   * A chunk's input at a port, waiting or on the wire: its worker and chunk, the units it still
   * carries, its place in the port's order, and what its worker does as its bytes come. Each port
   * keeps what it needs more of the stream's progress in its own kind of transfer.
   */
  abstract static class Transfer {
    final SimHost host;
    final SimChunk chunk;
    final long from;
    long to;
    final int rank;
    /** When it was asked for, in the run's one sequence. */
    final long seq;
    /** The link as the controller measured it when it asked, bytes/s; NaN: not known. */
    final double linkEstimate;
    /** What the worker does at each piece boundary its bytes reach, and once they are all there. */
    final Runnable arrived;
    double startedAt = Double.NaN;

    Transfer(SimHost host, SimChunk chunk, Action.Stream s, long seq, Runnable arrived) {
      this.host = host;
      this.chunk = chunk;
      this.from = s.start();
      this.to = s.end();
      this.rank = s.rank();
      this.seq = seq;
      this.linkEstimate = s.linkRate();
      this.arrived = arrived;
    }

    /** Its chunk is not gone, its worker is up, and it has units left. */
    boolean live() {
      return !chunk.gone && host.up && to > from;
    }
  }

  /**
   * Each worker's first live stream among those waiting: a worker's streams go in the order they were
   * asked for, as its connection sends them, so only that one is in line (one asked for later, of a
   * better rank, does not block the others).
   */
  static Map<SimHost, Long> firstOfEach(Iterable<? extends Transfer> waiting) {
    Map<SimHost, Long> first = new HashMap<>();
    for (Transfer t : waiting) {
      if (t.live()) {
        first.merge(t.host, t.seq, Math::min);
      }
    }
    return first;
  }

  /** The order in which waiting streams are served, as the master's port serves them ({@link PortRule#serveBefore}). */
  static int serviceOrder(Transfer a, Transfer b) {
    return PortRule.serveBefore(a.rank, a.linkEstimate, a.seq, b.rank, b.linkEstimate, b.seq);
  }

  /**
   * Where a stream under way from {@code from}, {@code sentUnits} of it sent, ends once its chunk is
   * truncated to {@code end}: not before what the master has written ahead of the wire
   * ({@link PortRule#WRITTEN_AHEAD_BYTES}), nor past where it ended.
   */
  static long truncatedUnderWay(long from, double sentUnits, long to, long end, double bytesPerUnit) {
    long written = (long) Math.ceil(Math.min((double) to,
        from + sentUnits + PortRule.WRITTEN_AHEAD_BYTES / bytesPerUnit));
    return Math.max(Math.min(end, to), written);
  }

  static Port of(SimClock clock, Controller controller, JobDef job, SimNetwork network) {
    return network.onePort() ? new SimPort(clock, controller, job, network.handover())
        : new SimFluidPort(clock, controller, job, network);
  }
}
