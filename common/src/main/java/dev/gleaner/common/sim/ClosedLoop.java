package dev.gleaner.common.sim;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.JobView;
import dev.gleaner.common.control.Progress;
import dev.gleaner.common.control.Verdict;
import dev.gleaner.common.control.WorkerInfo;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * The simulator's body around the real {@link Controller}: a discrete-event clock, a one-port
 * master that streams input at each worker's bandwidth, workers that compute their copies in
 * order at their true speed and save a piece at every checkpoint (paying {@code commitDelay}
 * seconds, the per-chunk overhead eps of the papers), and workers that go down and come back on
 * their outage schedules.
 * Every decision (plans, re-plans, reroutes, splits, replicas, the deadline) is the controller's,
 * exactly as in the master.
 *
 * <p>Model: a copy with input starts computing once its whole input has arrived (the papers'
 * single-round model); the port serves one stream at a time in rank order; a worker that goes
 * down loses everything it had not reported; the controller hears of a loss at once and of a
 * return when the worker is back.
 */
public final class ClosedLoop {
  /**
   * A simulated computer.
   *
   * @param speed true units/s
   * @param bandwidth true bytes/s from the master
   * @param calibrated the speed it reports when it joins (a prior; NaN: none)
   * @param joinAt when it first connects
   * @param outages {@code [down, up]} pairs, seconds, increasing (up infinite: gone for good)
   * @param availableUntil when it leaves for good without being interrupted (infinity: never)
   * @param pastInterruptions interruptions in its history before the run (the store's, in the master)
   * @param pastExposure seconds up in that history
   */
  public record Host(String id, double speed, double bandwidth, double calibrated, double joinAt,
      List<double[]> outages, double availableUntil, long pastInterruptions, double pastExposure) {
    public Host {
      outages = List.copyOf(outages);
    }

    public Host(String id, double speed, double bandwidth, double calibrated, double joinAt, List<double[]> outages,
        double availableUntil) {
      this(id, speed, bandwidth, calibrated, joinAt, outages, availableUntil, 0, 0);
    }

    public static Host of(String id, double speed) {
      return new Host(id, speed, Double.POSITIVE_INFINITY, speed, 0, List.of(), Double.POSITIVE_INFINITY);
    }

    public Host withHistory(long interruptions, double exposureSeconds) {
      return new Host(id, speed, bandwidth, calibrated, joinAt, outages, availableUntil, interruptions,
          exposureSeconds);
    }
  }

  /**
   * How the run goes.
   *
   * @param tick seconds between the controller's ticks
   * @param commitDelay seconds a worker spends saving each piece (eps: the checkpoint round trip),
   *     after which the piece is committed
   * @param horizon seconds after which the run stops whatever happens
   * @param interruptions what an interruption of a host's outages does to the piece under way
   */
  public record Setup(ControlConfig config, double tick, double commitDelay, double horizon,
      Interruptions interruptions) {
    /** Interruptions are crashes. */
    public Setup(ControlConfig config, double tick, double commitDelay, double horizon) {
      this(config, tick, commitDelay, horizon, Interruptions.CRASH);
    }

    public static Setup defaults(double horizon) {
      return new Setup(ControlConfig.defaults(), 0.5, 0.005, horizon);
    }

    public Setup with(Interruptions i) {
      return new Setup(config, tick, commitDelay, horizon, i);
    }
  }

  /** What an outage does to the worker's piece under way. */
  public enum Interruptions {
    /** A crash or a node failure: what it computed since its last saved piece is lost. */
    CRASH,
    /**
     * An owner's return to a lent desktop: the worker saves what it computed of the piece under way
     * before it goes, as a real worker's owner policy does within its vacate grace.
     */
    VACATE;

    /** {@code vacate} or {@code crash}, as the commands' {@code --interruptions} takes it. */
    public static Interruptions parse(String name) {
      return switch (name) {
        case "vacate" -> VACATE;
        case "crash" -> CRASH;
        default -> throw new IllegalArgumentException("--interruptions is vacate or crash, not '" + name + "'");
      };
    }
  }

  /** Called after every event, with the controller in a consistent state. */
  @FunctionalInterface
  public interface Observer {
    void after(Controller controller, double now);
  }

  /**
   * What happened.
   *
   * @param committed units committed when the run ended
   * @param end when the job ended (or the run stopped)
   * @param lostUnits units workers had computed but not saved when they went down (lost work)
   * @param busySeconds seconds workers spent computing and saving, lost pieces included
   * @param upSeconds seconds workers were up (connected), until the run ended
   * @param inProgressUnits units computed in pieces not finished when the run ended (counted in
   *     busySeconds, neither saved nor lost)
   * @param cancelledUnits units computed in pieces the master cancelled while they were under way
   *     (at the job's deadline, a copy whose rest others saved), counted in busySeconds
   * @param savingUnits units its workers could have computed in the time they spent saving pieces
   *     (eps per piece), counted in busySeconds
   * @param longestPieceSeconds the most seconds of its worker's work one saved piece held: what a
   *     crash at its worst moment would have lost
   */
  public record Result(long committed, double end, JobPhase phase, Controller controller, long assigns,
      long truncations, long cancels, long replans, long reroutes, double lostUnits, double busySeconds,
      double upSeconds, double inProgressUnits, double cancelledUnits, double savingUnits, double longestPieceSeconds) {}

  private record Event(double at, long seq, Runnable run) {}

  private final class SimCopy {
    final String job;
    final long id;
    long end;
    final long[] checkpoints;
    long cursor;
    boolean ready;
    boolean gone;

    SimCopy(Action.Assign a) {
      job = a.job();
      id = a.copyId();
      end = a.end();
      checkpoints = a.checkpoints();
      cursor = a.start();
      ready = a.inputBytes() == 0;
    }
  }

  private final class SimHost {
    final Host host;
    boolean up;
    final Deque<SimCopy> copies = new ArrayDeque<>();
    SimCopy computing;
    long pieceFrom;
    long pieceTo;
    double pieceStart;
    long token;
    double upSince;

    SimHost(Host host) {
      this.host = host;
    }
  }

  private final class SimStream {
    final SimHost host;
    final SimCopy copy;
    final long from;
    long to;
    final int rank;
    final long seq;
    double startedAt = Double.NaN;
    long token;

    SimStream(SimHost host, SimCopy copy, Action.Stream s, long seq) {
      this.host = host;
      this.copy = copy;
      this.from = s.start();
      this.to = s.end();
      this.rank = s.rank();
      this.seq = seq;
    }
  }

  private final JobDef job;
  private final Setup setup;
  private final Observer observer;
  private final Controller controller;
  private final Map<String, SimHost> hosts = new LinkedHashMap<>();
  private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) ->
      a.at != b.at ? Double.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
  private final PriorityQueue<SimStream> port = new PriorityQueue<>((a, b) ->
      a.rank != b.rank ? Integer.compare(a.rank, b.rank) : Long.compare(a.seq, b.seq));
  private SimStream sending;
  /** Hosts up, and joins still to come: when both are 0 nothing can happen any more. */
  private int up;
  private int joinsToCome;
  /** Every range the controller said to commit: none may be said twice. */
  private final dev.gleaner.common.util.RangeSet commits = new dev.gleaner.common.util.RangeSet();
  private long seq;
  private double now;
  private long assigns;
  private long truncations;
  private long cancels;
  private long replans;
  private long reroutes;
  private double lostUnits;
  private double longestPieceSeconds;
  private double cancelledUnits;
  private double savingUnits;
  private double busySeconds;
  private double upSeconds;

  private ClosedLoop(JobDef job, List<Host> hosts, Setup setup, Observer observer) {
    this.job = job;
    this.setup = setup;
    this.observer = observer;
    this.controller = new Controller(setup.config());
    for (Host h : hosts) {
      this.hosts.put(h.id(), new SimHost(h));
    }
  }

  /** Runs the job on the hosts until it ends or the horizon passes. */
  public static Result run(JobDef job, List<Host> hosts, Setup setup) {
    return run(job, hosts, setup, (c, t) -> { });
  }

  public static Result run(JobDef job, List<Host> hosts, Setup setup, Observer observer) {
    return new ClosedLoop(job, hosts, setup, observer).go();
  }

  private Result go() {
    for (SimHost h : hosts.values()) {
      Host host = h.host;
      joinsToCome++;
      at(host.joinAt(), () -> join(h));
      for (double[] o : host.outages()) {
        if (o[0] >= host.joinAt()) {
          at(o[0], () -> {
            if (setup.interruptions() == Interruptions.VACATE) {
              savePartial(h);
              down(h, "vacated: its owner is back", true, true);
            } else {
              down(h, "interrupted", true);
            }
          });
          if (Double.isFinite(o[1])) {
            joinsToCome++;
            at(o[1], () -> join(h));
          }
        }
      }
      if (Double.isFinite(host.availableUntil())) {
        at(host.availableUntil(), () -> down(h, "its available time is over", false));
      }
    }
    // hosts that are there from the start are connected when the job is submitted, as on a cluster
    at(0, () -> controller.addJob(job, now));
    at(setup.tick(), this::tick);
    if (job.hasDeadline()) {
      at(job.deadline(), () -> controller.tick(now));
    }
    int steps = 0;
    while (!events.isEmpty() && steps++ < 50_000_000) {
      Event e = events.poll();
      if (e.at > setup.horizon()) {
        break;
      }
      now = e.at;
      e.run.run();
      apply();
      // the progress, not the job's view: a view gathers every queue and copy, too much after each event
      Progress p = controller.views().progress(job.id());
      if (p != null) {
        observer.after(controller, now);
      }
      if (p != null && p.phase().ended() || up == 0 && joinsToCome == 0 && now > 0) {
        break;
      }
    }
    JobView v = controller.views().job(job.id());
    double inProgress = 0;
    for (SimHost h : hosts.values()) {
      if (h.up) {
        upSeconds += now - h.upSince;
        if (h.computing != null) {
          busySeconds += now - h.pieceStart;
          inProgress += computed(h);
        }
      }
    }
    return new Result(v.committed(), now, v.phase(), controller, assigns, truncations, cancels, replans, reroutes,
        lostUnits, busySeconds, upSeconds, inProgress, cancelledUnits, savingUnits, longestPieceSeconds);
  }

  /** The controller's clock tick; the next one is scheduled by this one, up to the horizon. */
  private void tick() {
    controller.tick(now);
    if (now + setup.tick() <= setup.horizon()) {
      at(now + setup.tick(), this::tick);
    }
  }

  private void at(double t, Runnable r) {
    events.add(new Event(t, seq++, r));
  }

  private void join(SimHost h) {
    joinsToCome--;
    if (h.up || now >= h.host.availableUntil()) {
      return;
    }
    h.up = true;
    h.upSince = now;
    up++;
    Map<String, Double> calibrated = Double.isNaN(h.host.calibrated()) ? Map.of() : Map.of(job.workload(), h.host.calibrated());
    // with owners' visits, each worker saves its piece as it vacates, as one with an owner policy does
    controller.workerJoined(new WorkerInfo(h.host.id(), Set.of(job.workload()), 1, calibrated,
        h.host.availableUntil(), h.host.pastInterruptions(), h.host.pastExposure(),
        setup.interruptions() == Interruptions.VACATE), now);
    // the master records the session in its store as it would save a piece: eps's first figure
    controller.durableWrite(setup.commitDelay());
  }

  /** Units the worker has computed of its piece under way, by now (a fraction of one included). */
  private double computed(SimHost h) {
    return Math.min(h.pieceTo - h.pieceFrom, Math.max(0, h.host.speed() * (now - h.pieceStart)));
  }

  /** The last whole unit the worker has reached in its piece under way (its start if none). */
  private long reached(SimHost h) {
    return h.pieceFrom + (long) Math.floor(computed(h));
  }

  /**
   * The owner is back: the worker saves what it computed of its piece under way, a piece of its own
   * (the vacate's save costs no eps here: the real worker makes it within its grace, on the owner's
   * time).
   */
  private void savePartial(SimHost h) {
    SimCopy c = h.computing;
    if (!h.up || c == null) {
      return;
    }
    long at = reached(h);
    if (at <= h.pieceFrom) {
      return;
    }
    double seconds = (at - h.pieceFrom) / h.host.speed();
    busySeconds += now - h.pieceStart;
    lostUnits += computed(h) - (at - h.pieceFrom);
    h.computing = null;
    h.token++;
    long from = h.pieceFrom;
    c.cursor = at;
    record(h, c, from, at, seconds);
  }

  private void down(SimHost h, String why, boolean interrupted) {
    down(h, why, interrupted, false);
  }

  private void down(SimHost h, String why, boolean interrupted, boolean vacated) {
    if (!h.up) {
      return;
    }
    h.up = false;
    up--;
    h.token++;
    upSeconds += now - h.upSince;
    if (h.computing != null) {
      // what it had computed of the piece, and the time it spent, are lost with it
      busySeconds += now - h.pieceStart;
      lostUnits += computed(h);
    }
    for (SimCopy c : h.copies) {
      c.gone = true;
    }
    h.copies.clear();
    h.computing = null;
    if (sending != null && sending.host == h) {
      sending = null;
      kickPort();
    }
    if (vacated) {
      controller.workerVacated(h.host.id(), why, now);
    } else {
      controller.workerLost(h.host.id(), why, interrupted, now);
    }
  }

  /** Carries the controller's decisions out, in order: a simulated store is durable at once. */
  private void apply() {
    controller.drive(ready -> ready.actions().forEach(this::carryOut));
  }

  private void carryOut(Action a) {
    if (a instanceof Action.Assign x) {
      SimHost h = hosts.get(x.worker());
      if (h != null && h.up) {
        assigns++;
        h.copies.add(new SimCopy(x));
        advance(h);
      }
    } else if (a instanceof Action.Stream x) {
      SimHost h = hosts.get(x.worker());
      SimCopy c = h == null ? null : find(h, x.copyId());
      if (c != null) {
        port.add(new SimStream(h, c, x, seq++));
        kickPort();
      }
    } else if (a instanceof Action.Truncate x) {
      truncations++;
      truncate(hosts.get(x.worker()), x.copyId(), x.end(), x.split());
    } else if (a instanceof Action.Cancel x) {
      cancels++;
      cancel(hosts.get(x.worker()), x.copyId());
    } else if (a instanceof Action.Drop x) {
      // the controller took the worker's work back; the worker connects again
      SimHost h = hosts.get(x.worker());
      if (h != null && h.up) {
        down(h, x.why(), true);
        joinsToCome++;
        at(now, () -> join(h));
      }
    } else if (a instanceof Action.Planned) {
      replans++;
    } else if (a instanceof Action.Rerouted) {
      reroutes++;
    }
  }

  private SimCopy find(SimHost h, long id) {
    for (SimCopy c : h.copies) {
      if (c.id == id) {
        return c;
      }
    }
    return null;
  }

  // ---- the port

  private void kickPort() {
    while (sending == null && !port.isEmpty()) {
      SimStream s = port.poll();
      if (s.copy.gone || !s.host.up || s.to <= s.from) {
        continue;
      }
      sending = s;
      s.startedAt = now;
      scheduleStreamEnd(s);
    }
  }

  private void scheduleStreamEnd(SimStream s) {
    long token = ++s.token;
    double seconds = (s.to - s.from) * job.bytesPerUnit() / s.host.host.bandwidth();
    at(s.startedAt + seconds, () -> {
      if (sending != s || s.token != token) {
        return;
      }
      sending = null;
      s.copy.ready = true;
      controller.streamed(s.host.host.id(), job.id(), s.copy.id, (long) Math.ceil((s.to - s.from) * job.bytesPerUnit()),
          now - s.startedAt, now);
      advance(s.host);
      kickPort();
    });
  }

  // ---- computing

  /** Starts the next piece if the worker is free and its next copy's input is there. */
  private void advance(SimHost h) {
    if (!h.up || h.computing != null) {
      return;
    }
    SimCopy c = h.copies.peekFirst();
    if (c == null || !c.ready) {
      return;
    }
    h.computing = c;
    long to = c.end;
    for (long k : c.checkpoints) {
      if (k > c.cursor && k < to) {
        to = k;
        break;
      }
    }
    startPiece(h, c, c.cursor, to, now);
  }

  private void startPiece(SimHost h, SimCopy c, long from, long to, double startedAt) {
    h.pieceFrom = from;
    h.pieceTo = to;
    h.pieceStart = startedAt;
    long token = ++h.token;
    double seconds = (to - from) / h.host.speed();
    // saving the piece costs the worker eps (the papers' per-chunk overhead) before it goes on
    at(startedAt + seconds + setup.commitDelay(), () -> {
      if (h.token == token) {
        pieceDone(h, c, from, to, seconds);
      }
    });
  }

  private void pieceDone(SimHost h, SimCopy c, long from, long to, double seconds) {
    h.computing = null;
    busySeconds += now - h.pieceStart;
    savingUnits += setup.commitDelay() * h.host.speed();
    c.cursor = to;
    record(h, c, from, to, seconds);
    if (c.cursor >= c.end) {
      c.gone = true;
      h.copies.remove(c);
    }
    advance(h);
  }

  /** The piece [from, to) of the worker's copy reaches the controller, and is committed if it says so. */
  private void record(SimHost h, SimCopy c, long from, long to, double seconds) {
    Verdict v = controller.piece(h.host.id(), c.job, c.id, from, to, now);
    if (v == Verdict.REFUSE) {
      throw new IllegalStateException("the controller refused piece [" + from + ", " + to + ") of copy " + c.id
          + " from " + h.host.id() + " at t=" + now);
    }
    if (v == Verdict.COMMIT) {
      if (commits.intersects(from, to)) {
        throw new IllegalStateException("units of [" + from + ", " + to + ") would be counted twice (copy " + c.id
            + " of " + h.host.id() + " at t=" + now + ")");
      }
      commits.add(from, to);
      longestPieceSeconds = Math.max(longestPieceSeconds, seconds);
      controller.overhead(setup.commitDelay());
      controller.committed(h.host.id(), c.job, c.id, from, to, seconds, now);
    } else if (v == Verdict.CHECK || v == Verdict.TIE_BREAK) {
      // simulated workers are honest: every check agrees
      controller.checked(h.host.id(), c.job, c.id, true, false, now);
    }
  }

  private void truncate(SimHost h, long id, long end, boolean split) {
    SimCopy c = h == null ? null : find(h, id);
    if (c == null) {
      return;
    }
    if (h.computing == c && h.pieceTo > end) {
      double position = h.pieceFrom + h.host.speed() * (now - h.pieceStart);
      if (!split && position >= end) {
        // a cancel's or the deadline's stop: the worker reports what it computed up to now and stops
        long at = reached(h);
        if (at > h.pieceFrom) {
          startPiece(h, c, h.pieceFrom, at, h.pieceStart);
        } else {
          busySeconds += now - h.pieceStart;
          h.computing = null;
          h.token++;
        }
        c.end = Math.max(at, h.pieceFrom);
      } else if (position < end) {
        startPiece(h, c, h.pieceFrom, end, h.pieceStart);
        c.end = end;
      } else {
        c.end = h.pieceTo;
      }
    } else {
      c.end = Math.max(end, c.cursor);
    }
    if (sending != null && sending.copy == c && sending.to > end) {
      double sentUnits = (now - sending.startedAt) * sending.host.host.bandwidth() / job.bytesPerUnit();
      sending.to = Math.max(end, (long) Math.ceil(sending.from + sentUnits));
      scheduleStreamEnd(sending);
    }
    for (SimStream s : port) {
      if (s.copy == c) {
        s.to = Math.min(s.to, end);
      }
    }
    if (c.cursor >= c.end && h.computing != c) {
      c.gone = true;
      h.copies.remove(c);
      advance(h);
    }
  }

  private void cancel(SimHost h, long id) {
    SimCopy c = h == null ? null : find(h, id);
    if (c == null) {
      return;
    }
    c.gone = true;
    h.copies.remove(c);
    if (h.computing == c) {
      busySeconds += now - h.pieceStart;
      cancelledUnits += computed(h);
      h.computing = null;
      h.token++;
    }
    if (sending != null && sending.copy == c) {
      sending = null;
      kickPort();
    }
    advance(h);
  }
}
