package dev.gleaner.common.sim;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.WorkerInfo;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The closed loop's simulated workers and the master's port that feeds them: the workers join, go
 * down and come back on their hosts' schedules, and take the controller's actions on the chunks
 * they hold ({@link SimPieces} computes and saves them, {@link SimPort} streams their input).
 *
 * <p>A worker that goes down loses what it computed since its last saved piece, unless its owner's
 * return is a vacate: then it first saves what it computed of the piece under way. The controller
 * hears of a loss at once and of a return when the worker is back.
 */
final class SimWorkers {
  private final SimClock clock;
  private final Controller controller;
  private final JobDef job;
  private final ClosedLoop.Setup setup;
  private final SimFigures figures;
  private final SimPorts.Port port;
  private final SimPieces pieces;
  private final Map<String, SimHost> hosts = new LinkedHashMap<>();
  /** Hosts up, and joins still to come: when both are 0 nothing can happen any more. */
  private int up;
  private int joinsToCome;

  SimWorkers(SimClock clock, Controller controller, JobDef job, ClosedLoop.Setup setup, List<ClosedLoop.Host> hosts,
      SimFigures figures) {
    this.clock = clock;
    this.controller = controller;
    this.job = job;
    this.setup = setup;
    this.figures = figures;
    this.port = SimPorts.of(clock, controller, job, setup.network());
    this.pieces = new SimPieces(clock, controller, setup, port, figures);
    for (ClosedLoop.Host h : hosts) {
      this.hosts.put(h.id(), new SimHost(h));
    }
  }

  /** Schedules every host's joins, outages and end of availability. */
  void schedule() {
    for (SimHost h : hosts.values()) {
      ClosedLoop.Host host = h.host;
      joinsToCome++;
      clock.at(host.joinAt(), () -> join(h));
      for (double[] o : host.outages()) {
        if (o[0] >= host.joinAt()) {
          clock.at(o[0], () -> {
            if (setup.interruptions() == ClosedLoop.Interruptions.VACATE) {
              pieces.savePartial(h);
              down(h, "vacated: its owner is back", true, true);
            } else {
              down(h, "interrupted", true, false);
            }
          });
          if (Double.isFinite(o[1])) {
            joinsToCome++;
            clock.at(o[1], () -> join(h));
          }
        }
      }
      if (Double.isFinite(host.availableUntil())) {
        clock.at(host.availableUntil(), () -> down(h, "its available time is over", false, false));
      }
    }
  }

  /** Whether no worker is up and none will join: nothing can happen any more. */
  boolean noneLeft() {
    return up == 0 && joinsToCome == 0;
  }

  /**
   * The run ended: the time of the workers still up, and of the pieces they were computing, is
   * counted.
   *
   * @return the units computed in those pieces
   */
  double finish() {
    double now = clock.now();
    double inProgress = 0;
    for (SimHost h : hosts.values()) {
      if (h.up) {
        figures.upSeconds += now - h.upSince;
        if (h.computing != null) {
          figures.busySeconds += now - h.pieceStart;
          inProgress += h.computed(now);
        }
      }
    }
    return inProgress;
  }

  // ---- the controller's actions

  /** @return whether the worker is up and took the chunk */
  boolean assign(Action.Assign a) {
    SimHost h = hosts.get(a.worker());
    if (h == null || !h.up) {
      return false;
    }
    pieces.assign(h, a);
    return true;
  }

  /** Carries out one batch of the controller's decisions: its streams start together, in the port's order. */
  void batch(Runnable carryOut) {
    port.begin();
    try {
      carryOut.run();
    } finally {
      port.end();
    }
  }

  /** The chunk's input goes into the port's queue; the worker may start it once it is there. */
  void stream(Action.Stream s) {
    SimHost h = hosts.get(s.worker());
    SimChunk c = h == null ? null : h.find(s.chunkId());
    if (c != null) {
      port.queue(h, c, s, () -> pieces.advance(h));
    }
  }

  void truncate(Action.Truncate t) {
    pieces.truncate(hosts.get(t.worker()), t.chunkId(), t.end(), t.split());
  }

  void cancel(Action.Cancel c) {
    pieces.cancel(hosts.get(c.worker()), c.chunkId());
  }

  /** The controller took the worker's work back: its session ends and it connects again at once. */
  void drop(Action.Drop d) {
    SimHost h = hosts.get(d.worker());
    if (h != null && h.up) {
      down(h, d.why(), true, false);
      joinsToCome++;
      clock.at(clock.now(), () -> join(h));
    }
  }

  // ---- joining and going down

  private void join(SimHost h) {
    joinsToCome--;
    double now = clock.now();
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
        setup.interruptions() == ClosedLoop.Interruptions.VACATE, h.host.pastReturns(), h.host.pastDowntime()), now);
    // the master records the session in its store as it would save a piece: eps's first figure
    controller.durableWrite(setup.commitDelay());
  }

  private void down(SimHost h, String why, boolean interrupted, boolean vacated) {
    if (!h.up) {
      return;
    }
    double now = clock.now();
    h.up = false;
    up--;
    h.token++;
    figures.upSeconds += now - h.upSince;
    if (h.computing != null) {
      // what it had computed of the piece, and the time it spent, are lost with it
      figures.busySeconds += now - h.pieceStart;
      figures.lostUnits += h.computed(now);
    }
    for (SimChunk c : h.chunks) {
      c.gone = true;
    }
    h.chunks.clear();
    h.computing = null;
    port.hostDown(h);
    if (vacated) {
      controller.workerVacated(h.host.id(), why, now);
    } else {
      controller.workerLost(h.host.id(), why, interrupted, now);
    }
  }
}
