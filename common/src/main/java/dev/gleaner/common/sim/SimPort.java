package dev.gleaner.common.sim;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.port.PortRule;
import java.util.PriorityQueue;

/**
 * The simulated master's one port: it streams one chunk's input at a time, at its worker's
 * bandwidth, the waiting streams in the controller's rank order, between equal ranks the faster
 * link first, each worker's own in the order they were asked for (as the master's port serves them).
 *
 * <p>A stream whose chunk is gone or whose worker is down is skipped; a truncated chunk's streams are
 * cut to its new end, the one under way no sooner than what the master has written ahead of the wire
 * ({@link PortRule#WRITTEN_AHEAD_BYTES}). Each piece boundary a stream's bytes
 * reach lets its worker start that piece; when a stream ends, the controller hears how long the bytes
 * took. Between two streams the port idles for the network's {@link SimNetwork#handover}.
 */
final class SimPort implements SimPorts.Port {
  private static final class SimStream extends SimPorts.Transfer {
    /** Raised whenever the stream's end moves, so that the end scheduled before is ignored. */
    long token;

    SimStream(SimHost host, SimChunk chunk, Action.Stream s, long seq, Runnable arrived) {
      super(host, chunk, s, seq, arrived);
    }
  }

  private final SimClock clock;
  private final Controller controller;
  private final JobDef job;
  /** In the plan's order; between equal ranks the faster link first (an unknown one first of all), as the master's port. */
  private final PriorityQueue<SimStream> waiting = new PriorityQueue<>(SimPorts::serviceOrder);
  private SimStream sending;
  /** Seconds a stream holds the port before its bytes flow ({@link SimNetwork#handover}). */
  private final double handover;
  /** Batches being carried out ({@link #begin}): while one is, no stream starts. */
  private int batches;

  SimPort(SimClock clock, Controller controller, JobDef job) {
    this(clock, controller, job, 0);
  }

  SimPort(SimClock clock, Controller controller, JobDef job, double handover) {
    this.clock = clock;
    this.controller = controller;
    this.job = job;
    this.handover = handover;
  }

  /**
   * Queues the input {@code s} of the worker's chunk; {@code arrived} runs at each piece boundary its
   * bytes reach, and once they are all there.
   */
  @Override
  public void queue(SimHost h, SimChunk c, Action.Stream s, Runnable arrived) {
    waiting.add(new SimStream(h, c, s, clock.next(), arrived));
    kick();
  }

  /** The worker went down: the stream under way to it, if any, stops and the port serves the next. */
  @Override
  public void hostDown(SimHost h) {
    if (sending != null && sending.host == h) {
      sending = null;
      kick();
    }
  }

  /** The chunk now ends at {@code end}: its streams carry no unit past it, but what was written ahead. */
  @Override
  public void truncate(SimChunk c, long end) {
    if (sending != null && sending.chunk == c && sending.to > end) {
      // none yet while it holds the port before its bytes flow
      double sentUnits = Math.max(0, clock.now() - sending.startedAt) * sending.host.host.bandwidth()
          / job.bytesPerUnit();
      sending.to = SimPorts.truncatedUnderWay(sending.from, sentUnits, sending.to, end, job.bytesPerUnit());
      scheduleEnd(sending, Math.min(sending.to, (long) Math.floor(sending.from + sentUnits)));
    }
    for (SimStream s : waiting) {
      if (s.chunk == c) {
        s.to = Math.min(s.to, end);
      }
    }
  }

  /** The chunk was cancelled: the stream under way for it, if any, stops and the port serves the next. */
  @Override
  public void cancel(SimChunk c) {
    if (sending != null && sending.chunk == c) {
      sending = null;
      kick();
    }
  }

  @Override
  public void begin() {
    batches++;
  }

  @Override
  public void end() {
    batches--;
    kick();
  }

  private void kick() {
    if (sending != null || batches > 0) {
      return;
    }
    java.util.Map<SimHost, Long> first = SimPorts.firstOfEach(waiting);
    java.util.List<SimStream> notYet = new java.util.ArrayList<>();
    while (sending == null && !waiting.isEmpty()) {
      SimStream s = waiting.poll();
      if (!s.live()) {
        continue;
      }
      if (s.seq != first.get(s.host)) {
        notYet.add(s);
        continue;
      }
      sending = s;
      // its bytes flow once the handover is over; the port is its meanwhile (the wire idles)
      s.startedAt = clock.now() + handover;
      scheduleEnd(s, s.from);
    }
    waiting.addAll(notYet);
  }

  /**
   * Plans the stream's next event: the next piece boundary its bytes reach (the worker may start that
   * piece), or its end.
   */
  private void scheduleEnd(SimStream s, long reached) {
    long token = ++s.token;
    double unitSeconds = job.bytesPerUnit() / s.host.host.bandwidth();
    long next = s.chunk.nextBoundary(reached, s.to);
    clock.at(s.startedAt + (next - s.from) * unitSeconds, () -> {
      if (sending != s || s.token != token) {
        return;
      }
      if (next < s.to) {
        s.chunk.arrivedTo(next);
        s.arrived.run();
        scheduleEnd(s, next);
        return;
      }
      double now = clock.now();
      sending = null;
      s.chunk.arrivedTo(Long.MAX_VALUE);
      // one stream at a time: each is alone on the wire
      controller.streamed(s.host.host.id(), job.id(), s.chunk.id, (long) Math.ceil((s.to - s.from) * job.bytesPerUnit()),
          now - s.startedAt, true, now);
      s.arrived.run();
      kick();
    });
  }
}
