package dev.gleaner.common.sim;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.port.EgressEstimator;
import dev.gleaner.common.port.PortRule;
import dev.gleaner.common.port.PortWindow;
import dev.gleaner.common.port.Sends;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * The simulated master's port when several streams may be on the wire ({@link SimNetwork}): a fluid
 * model of the wire. The streams on it share the master's egress max-min fairly, each held to its own
 * link's rate, as TCP flows behind one bottleneck do (what the testbed measured); in a tree, the streams
 * to the workers under one relay share its link the same way (paper 002's bounded multi-port model,
 * the relay passing bytes on as they come, which is what {@code gleaner relay} does); which streams are on
 * it is the runtime port's choice: all ({@code share}), the ones whose links fit in the egress in the
 * plan's order ({@code fit}, the rule of {@link PortRule}), or n links. A worker's streams go one after
 * the other. Each piece boundary a stream's bytes reach lets its worker start that piece. When a stream
 * ends, the worker is told, and the controller hears how long the bytes took, unless the stream went
 * slower than its link (it shared the egress) and the link has a measure already, as the runtime does.
 * A stream let on the wire carries nothing for the network's {@link SimNetwork#handover}: its place is
 * taken (in one-port, the wire idles), its bytes' time begins after it, as the worker's span does;
 * but where the port does not keep the plan's order (share, or fit with chunks to whoever is free), a
 * worker's stream that follows its stream before on the connection flows at once, as the runtime's
 * port sends it once that one is all written.
 *
 * <p>A master that learns its egress ({@link SimNetwork#egressLearned}) learns it as the runtime's port
 * does, with the same {@link EgressEstimator} fed the same way: a window every {@link
 * EgressEstimator#WINDOW_SECONDS} while streams wait or go, each transfer's arrival and link; it admits
 * streams and tells the controller its port by what it learned so far.
 */
final class SimFluidPort implements SimPorts.Port {
  private final class Flow extends SimPorts.Transfer {
    double sent;
    /** The last piece boundary its bytes reached (its start at first). */
    long reached;
    double rate;
    boolean shared;
    /** Another worker's stream was on the wire beside it at some time. */
    boolean crowded;

    Flow(SimHost host, SimChunk chunk, Action.Stream s, long seq, Runnable arrived) {
      super(host, chunk, s, seq, arrived);
      this.reached = from;
    }

    /** The next piece boundary its bytes reach, or its end. */
    long nextBoundary() {
      return chunk.nextBoundary(reached, to);
    }

    /** Moves {@link #reached} to the last piece boundary its bytes passed; whether it moved. */
    boolean reach() {
      double at = from + sent + 1e-9 * Math.max(1, to - from);
      boolean moved = false;
      for (long b = nextBoundary(); b < to && b <= at; b = nextBoundary()) {
        reached = b;
        moved = true;
      }
      return moved;
    }

    /** The link's true rate, units/s. */
    double cap() {
      return host.host.bandwidth() / job.bytesPerUnit();
    }

    double left() {
      return (to - from) - sent;
    }
  }

  /** The master's egress among the links a stream shares. */
  private static final String EGRESS = "";

  private final SimClock clock;
  private final Controller controller;
  private final JobDef job;
  private final SimNetwork network;
  private final PriorityQueue<Flow> waiting = new PriorityQueue<>(SimPorts::serviceOrder);
  private final List<Flow> active = new ArrayList<>();
  /** When each worker's last stream ended. */
  private final Map<SimHost, Double> endedAt = new HashMap<>();
  /** Each worker's link as the port measured it last, bytes/s. */
  private final Map<SimHost, Double> measured = new HashMap<>();
  /** The egress as the master learns it; null when it knows it. */
  private final EgressEstimator egress;
  /** The estimator's window, and whether one is running (while streams wait or go). */
  private final PortWindow<Flow> window = new PortWindow<>();
  private boolean windowing;
  /** Units sent so far, every stream together. */
  private double sentTotal;
  private double lastUpdate;
  private long token;
  private boolean busy;
  private boolean again;
  /** Batches being carried out ({@link #begin}): while one is, nothing starts or ends. */
  private int batches;

  SimFluidPort(SimClock clock, Controller controller, JobDef job, SimNetwork network) {
    this.clock = clock;
    this.controller = controller;
    this.job = job;
    this.network = network;
    this.egress = network.egressLearned() ? EgressEstimator.fromArrivals() : null;
  }

  @Override
  public void queue(SimHost h, SimChunk c, Action.Stream s, Runnable arrived) {
    if (egress != null && !windowing) {
      advance();
      windowing = true;
      window.begin(clock.now(), sentTotal * job.bytesPerUnit());
    }
    waiting.add(new Flow(h, c, s, clock.next(), arrived));
    update();
  }

  @Override
  public void hostDown(SimHost h) {
    advance();
    active.removeIf(f -> f.host == h);
    waiting.removeIf(f -> f.host == h);
    update();
  }

  @Override
  public void truncate(SimChunk c, long end) {
    advance();
    for (Flow f : active) {
      if (f.chunk == c && f.to > end) {
        f.to = SimPorts.truncatedUnderWay(f.from, f.sent, f.to, end, job.bytesPerUnit());
      }
    }
    for (Flow f : waiting) {
      if (f.chunk == c) {
        f.to = Math.min(f.to, end);
      }
    }
    update();
  }

  @Override
  public void cancel(SimChunk c) {
    advance();
    active.removeIf(f -> f.chunk == c);
    waiting.removeIf(f -> f.chunk == c);
    update();
  }

  /**
   * Moves every stream on the wire on to now at its rate, ending the estimator's windows that end on
   * the way (the rates hold between two updates).
   */
  private void advance() {
    double now = clock.now();
    while (windowing && window.start() + EgressEstimator.WINDOW_SECONDS <= now) {
      double end = window.start() + EgressEstimator.WINDOW_SECONDS;
      moveTo(Math.max(end, lastUpdate));
      endWindow(end);
    }
    moveTo(now);
  }

  private void moveTo(double t) {
    for (Flow f : active) {
      double before = f.sent;
      f.sent = Double.isInfinite(f.rate) ? f.to - f.from : Math.min(f.to - f.from, f.sent + f.rate * (t - lastUpdate));
      sentTotal += f.sent - before;
    }
    lastUpdate = t;
  }

  /**
   * The window ends at {@code end}: told to the estimator as the runtime's port tells it, a stream's
   * progress being what it sent; the next begins, or none while no stream waits or goes.
   */
  private void endWindow(double end) {
    Map<Flow, Double> sent = new HashMap<>();
    for (Flow f : active) {
      // one in its handover sends nothing yet, as the runtime's stream waiting for its worker's word
      if (f.startedAt <= end) {
        sent.put(f, f.sent * job.bytesPerUnit());
      }
    }
    window.end(end, sentTotal * job.bytesPerUnit(), sent, this::link, egress);
    if (active.isEmpty() && waiting.isEmpty()) {
      windowing = false;
    }
  }

  @Override
  public void begin() {
    batches++;
  }

  @Override
  public void end() {
    batches--;
    update();
  }

  /** Ends the streams that are done, lets the next ones on, shares the egress, and plans the next end. */
  private void update() {
    if (batches > 0) {
      // the clock stands still in a batch: its end does it all at once
      return;
    }
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        advance();
        List<Flow> done = new ArrayList<>();
        for (Flow f : active) {
          // one cut to nothing in its handover ends when its bytes would have begun
          if (f.startedAt <= clock.now() && f.left() <= 1e-9 * Math.max(1, f.to - f.from)) {
            done.add(f);
          }
        }
        active.removeAll(done);
        for (Flow f : done) {
          endedAt.put(f.host, clock.now());
        }
        List<Flow> progressed = new ArrayList<>();
        for (Flow f : active) {
          if (f.reach()) {
            f.chunk.arrivedTo(f.reached);
            progressed.add(f);
          }
        }
        admit();
        share();
        for (Flow f : done) {
          finish(f);
        }
        for (Flow f : progressed) {
          f.arrived.run();
        }
        schedule();
      } while (again);
    } finally {
      busy = false;
    }
  }

  private void finish(Flow f) {
    double now = clock.now();
    f.chunk.arrivedTo(Long.MAX_VALUE);
    long bytes = (long) Math.ceil((f.to - f.from) * job.bytesPerUnit());
    // as the runtime's port judges it, without its fair-share test: a rate below the link's known one, beside
    // other links, may be a share, and a transfer beside others is never taken for its link's own rate
    double known = link(f);
    boolean slower = !Double.isNaN(known) && now > f.startedAt && bytes / (now - f.startedAt)
        < EgressEstimator.SLOWER_THAN_LINK * known;
    // as the runtime's port, a transfer too short to be timed well does not measure its link, nor, beside
    // others, one too small for it
    boolean clean = !(slower && f.crowded) && now - f.startedAt >= EgressEstimator.TIMED_MIN_SECONDS
        && !(f.crowded && EgressEstimator.tooSmallToMeasure(bytes, known))
        && (egress == null ? !f.shared : egress.clean(f.startedAt, now));
    if (egress != null) {
      // as the runtime's port: the link as the controller knew it, and the arrival, go through the estimator
      egress.carried(f.linkEstimate);
      egress.arrived(f.startedAt, now, bytes, known, f.host);
      controller.port(Sends.planRule(network.sends(), egress.rule(Integer.MAX_VALUE)));
    }
    if (clean && now > f.startedAt) {
      // the port's own last measure of the link, as the runtime's keeps one per connection
      measured.put(f.host, bytes / (now - f.startedAt));
      if (egress != null && !f.crowded) {
        egress.alone(bytes, now - f.startedAt);
      }
    }
    if (clean || Double.isNaN(known)) {
      controller.streamed(f.host.host.id(), job.id(), f.chunk.id, bytes, now - f.startedAt, clean && !f.crowded,
          now);
    }
    f.arrived.run();
  }

  /** A stream's link: the port's last measure of it, else the controller's when it was asked for. */
  private double link(Flow f) {
    Double m = measured.get(f.host);
    return m != null ? m : f.linkEstimate;
  }

  /** Lets waiting streams on the wire as the port's mode says. */
  private void admit() {
    Set<SimHost> onWire = new HashSet<>();
    Map<SimHost, Double> links = new HashMap<>();
    for (Flow f : active) {
      onWire.add(f.host);
      links.put(f.host, link(f));
    }
    PortRule rule = egress == null ? new PortRule(Integer.MAX_VALUE, network.egress()) : egress.rule(Integer.MAX_VALUE);
    Map<SimHost, Long> first = SimPorts.firstOfEach(waiting);
    List<Flow> notYet = new ArrayList<>();
    while (!waiting.isEmpty()) {
      Flow f = waiting.peek();
      if (!f.live()) {
        waiting.poll();
        continue;
      }
      if (onWire.contains(f.host) || f.seq != first.get(f.host)) {
        // a worker's streams go one after the other, in order
        notYet.add(waiting.poll());
        continue;
      }
      boolean go;
      if (network.sends() == Sends.SHARE) {
        go = true;
      } else if (network.sends() == Sends.FIT) {
        go = (f.rank == Integer.MAX_VALUE ? PortRule.ALL_KNOWN : rule).mayStart(links.values(), link(f));
      } else {
        go = onWire.size() < network.sends();
      }
      if (!go) {
        break;
      }
      waiting.poll();
      // its bytes flow once the handover is over; it holds its place on the wire meanwhile, unless its bytes
      // follow its worker's stream before it on the connection, as the runtime's port lets them where the
      // order does not matter (that one all written, not yet arrived)
      boolean follows = !Sends.keepsOrder(network.sends(), f.rank != Integer.MAX_VALUE)
          && endedAt.getOrDefault(f.host, Double.NaN) == clock.now();
      f.startedAt = clock.now() + (follows ? 0 : network.handover());
      active.add(f);
      onWire.add(f.host);
      links.put(f.host, link(f));
    }
    waiting.addAll(notYet);
  }

  /**
   * Max-min fair shares of the egress and of each inner link of the tree, each stream held to its own
   * link: progressive filling, every stream not yet held growing at the same pace until its own link or
   * a link it shares is full.
   */
  private void share() {
    if (active.size() > 1) {
      for (Flow f : active) {
        f.crowded = true;
      }
    }
    Map<String, Double> room = new HashMap<>();
    Map<Flow, List<String>> crosses = new HashMap<>();
    for (Flow f : active) {
      f.rate = 0;
      List<String> shared = new ArrayList<>();
      if (Double.isFinite(network.egress())) {
        shared.add(EGRESS);
        room.put(EGRESS, network.egress() / job.bytesPerUnit());
      }
      for (SimNetwork.Hop h : network.path(f.host.host.id())) {
        shared.add(h.id());
        room.put(h.id(), h.bandwidth() / job.bytesPerUnit());
      }
      crosses.put(f, shared);
    }
    Map<String, Double> size = new HashMap<>(room);
    List<Flow> open = new ArrayList<>();
    for (Flow f : active) {
      if (f.startedAt > clock.now()) {
        // in its handover: on the wire, carrying nothing yet
        continue;
      }
      if (Double.isInfinite(f.cap()) && crosses.get(f).isEmpty()) {
        // nothing holds it (no egress, no link): it takes it all at once
        f.rate = Double.POSITIVE_INFINITY;
      } else {
        open.add(f);
      }
    }
    // each round holds at least one stream or fills at least one link: at most streams + links rounds
    for (int round = 0; !open.isEmpty() && round <= active.size() + room.size(); round++) {
      Map<String, Integer> users = new HashMap<>();
      for (Flow f : open) {
        for (String l : crosses.get(f)) {
          users.merge(l, 1, Integer::sum);
        }
      }
      double step = Double.POSITIVE_INFINITY;
      for (Flow f : open) {
        step = Math.min(step, f.cap() - f.rate);
      }
      for (Map.Entry<String, Integer> u : users.entrySet()) {
        step = Math.min(step, room.get(u.getKey()) / u.getValue());
      }
      for (Flow f : open) {
        f.rate += step;
      }
      for (Map.Entry<String, Integer> u : users.entrySet()) {
        room.merge(u.getKey(), -step * u.getValue(), Double::sum);
      }
      List<Flow> held = new ArrayList<>();
      for (Flow f : open) {
        boolean full = f.rate >= f.cap() * (1 - 1e-12);
        for (String l : crosses.get(f)) {
          full |= room.get(l) <= 1e-12 * size.get(l);
        }
        if (full) {
          held.add(f);
        }
      }
      open.removeAll(held);
    }
    // a share of the egress is not the path's rate; a path held by a relay's link is, as the master
    // measures it end to end
    boolean egressFull = room.containsKey(EGRESS) && room.get(EGRESS) <= 1e-9 * size.get(EGRESS);
    for (Flow f : active) {
      if (egressFull && f.startedAt <= clock.now() && f.rate < f.cap() * (1 - 1e-9)) {
        f.shared = true;
      }
    }
  }

  /** The next end of a stream on the wire, or piece boundary reached, as the rates stand. */
  private void schedule() {
    double next = Double.POSITIVE_INFINITY;
    for (Flow f : active) {
      if (f.startedAt > clock.now()) {
        // its bytes begin to flow
        next = Math.min(next, f.startedAt - clock.now());
      }
      if (f.rate > 0) {
        // its end, or the next piece boundary its bytes reach (the worker may start that piece)
        next = Math.min(next, (f.nextBoundary() - f.from - f.sent) / f.rate);
      }
    }
    if (windowing && !waiting.isEmpty()) {
      // a window's end may let a waiting stream on (the floor it raises, the bound it finds)
      next = Math.min(next, window.start() + EgressEstimator.WINDOW_SECONDS - clock.now());
    }
    long t = ++token;
    if (Double.isFinite(next)) {
      double now = clock.now();
      // a remainder shorter than the clock's resolution at this time (a unit's last billionth at 20 s)
      // would be scheduled now again and again without a byte moving: the next instant the clock has
      double at = next > 0 ? Math.max(Math.nextUp(now), now + next) : now;
      clock.at(at, () -> {
        if (token == t) {
          update();
        }
      });
    }
  }
}
