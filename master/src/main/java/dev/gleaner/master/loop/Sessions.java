package dev.gleaner.master.loop;

import dev.gleaner.common.control.Held;
import dev.gleaner.common.control.WorkerInfo;
import dev.gleaner.common.control.WorkerView;
import dev.gleaner.master.store.WorkerTable;
import dev.gleaner.protocol.Availability;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.HeldChunk;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.Speed;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Workers' sessions at the loop: a worker that logged in joins the controller with its
 * calibration, its history and its declared end (unless it comes in away); its owner's policy takes
 * it away and gives it back; it drains; its session ends, lost, refused or said goodbye. Each
 * session's time up is kept in the store's history, the interruptions counted. Confined to the
 * control thread.
 */
final class Sessions {
  // one logger for the whole loop: what an operator reads and filters is the control loop's
  private static final Logger log = LoggerFactory.getLogger(ControlLoop.class);

  private final Books b;
  private final ControlThread thread;

  Sessions(Books b, ControlThread thread) {
    this.b = b;
    this.thread = thread;
  }

  /**
   * A worker authenticated at {@code at} (epoch ms): it joins the controller, or waits connected
   * while away. A session that has closed meanwhile joins all the same: its end is the next event
   * of its connection, so it is known and then GONE, never left out.
   */
  void joined(WorkerLink link, Hello hello, long at) {
    String id = link.workerId();
    WorkerLink old = b.links.get(id);
    if (old != null && old != link && old.isOpen() && old.instance() != link.instance()) {
      // another process under a live worker's id: refused, so the two do not evict each other
      link.refuse(Error.Code.ID_IN_USE, "worker id '" + id + "' is in use by a live worker from " + old.host()
          + "; give each worker its own --id (this one may join once that worker is gone)");
      return;
    }
    b.links.put(id, link);
    if (old != null && old != link) {
      old.refuse(Error.Code.SHUTTING_DOWN, "replaced by a new connection of worker " + id + " from " + link.host());
      b.hellos.remove(old);
      endSession(old, "left", "");
    }
    b.hellos.put(link, hello);
    b.store.submit(WorkerTable.workerSeen(id, link.host(), link.cores(), at));
    if (hello.hasAway() && !hello.getAway().getAvailable()) {
      // connected, taking nothing: it joins the controller when it says it is available
      Books.Away was = b.away.put(id, new Books.Away(hello.getAway().getReason(), hello.getAway().getBackAtMillis()));
      if (was == null) {
        b.controller.workerLost(id, "it came back away: " + hello.getAway().getReason(), false, b.clock.now());
      }
      log.info("worker {} joined from {} with {} cores, taking no work: {}{}", id, link.host(), link.cores(),
          hello.getAway().getReason(), backAt(hello.getAway().getBackAtMillis()));
      return;
    }
    b.away.remove(id);
    List<Held> claims = claims(id, hello);
    b.controller.workerJoined(info(link, hello, hello.getAvailableUntilMillis()), claims, b.clock.now());
    if (!claims.isEmpty()) {
      log.info("worker {} kept computing {} chunk(s) while away: {}", id, claims.size(), claims);
    }
    sessionStarted(link, at);
    log.info("worker {} joined from {}{} with {} cores{}", id, link.host(),
        link.via().isEmpty() ? "" : " through relay " + link.via(), link.cores(),
        until(hello.getAvailableUntilMillis()));
  }

  /**
   * The worker's owner policy says whether it takes work. Not available: its pieces came before
   * this message and are committed as usual; the rest of its chunks is taken back exactly as from
   * a lost worker (recovery lists, then a re-plan), an interruption is recorded in its history,
   * and it gets nothing, connected, until it says it is available again: then it joins the
   * controller anew with its new end.
   */
  void availability(WorkerLink link, Availability a) {
    String id = link.workerId();
    if (b.links.get(id) != link) {
      return;
    }
    if (!a.getAvailable()) {
      if (b.away.put(id, new Books.Away(a.getReason(), a.getBackAtMillis())) != null) {
        log.info("worker {} is still away: {}{}", id, a.getReason(), backAt(a.getBackAtMillis()));
        return;
      }
      WorkerView before = b.controller.views().worker(id, b.clock.now());
      b.controller.workerVacated(id, "vacated: " + a.getReason(), b.clock.now());
      endSession(link, "interrupted", "vacated: " + a.getReason());
      b.metrics.workersVacated.increment();
      log.info("worker {} vacates: {}{}{}", id, a.getReason(), backAt(a.getBackAtMillis()),
          before == null || before.chunks().isEmpty() ? "" : "; its chunks " + before.chunks() + " go to others");
      return;
    }
    if (b.away.remove(id) == null) {
      log.info("worker {} says it is available{} while it is; nothing changes", id, until(a.getUntilMillis()));
      return;
    }
    b.controller.workerJoined(info(link, b.hellos.get(link), a.getUntilMillis()), List.of(), b.clock.now());
    sessionStarted(link, b.clock.epochMillis());
    log.info("worker {} is available again{}: {}", id, until(a.getUntilMillis()), a.getReason());
  }

  /** A worker's later calibration: a new prior for its estimator. */
  void calibrated(WorkerLink link, List<Speed> speeds) {
    if (b.links.get(link.workerId()) == link) {
      for (Speed s : speeds) {
        if (s.getUnitsPerSecond() > 0 && Double.isFinite(s.getUnitsPerSecond())) {
          b.controller.calibrated(link.workerId(), s.getWorkload(), s.getUnitsPerSecond());
        }
      }
    }
  }

  /** The worker asked to leave: it finishes what it holds and gets nothing new. */
  void draining(WorkerLink link) {
    if (b.links.get(link.workerId()) == link) {
      log.info("worker {} is draining", link.workerId());
      b.controller.workerDraining(link.workerId(), b.clock.now());
    }
  }

  /**
   * The session ended (closed, silent, said goodbye, or refused by the master).
   *
   * @param interrupted whether it counts in the worker's interruption history
   * @param refused whether the master ended it for a request it may not make: not an
   *     interruption, and no re-plan
   */
  void ended(WorkerLink link, String why, boolean interrupted, boolean refused) {
    if (b.links.get(link.workerId()) != link || b.stopping) {
      return;
    }
    b.links.remove(link.workerId());
    b.hellos.remove(link);
    if (b.away.remove(link.workerId()) != null) {
      // it held nothing, and its session in the history ended when it vacated
      b.controller.workerLost(link.workerId(), "left while away: " + why, false, b.clock.now());
      log.info("worker {} left while away: {}", link.workerId(), why);
      return;
    }
    WorkerView before = b.controller.views().worker(link.workerId(), b.clock.now());
    if (refused) {
      b.controller.workerRefused(link.workerId(), why, b.clock.now());
    } else {
      // a relayed worker whose connection closed most likely lost its relay, not its life: it goes on
      // computing and comes back another way, so what it holds waits for it
      b.controller.workerLost(link.workerId(), why, interrupted, interrupted && !link.via().isEmpty(), b.clock.now());
    }
    endSession(link, interrupted ? "interrupted" : "left", "");
    if (interrupted) {
      b.metrics.workerFailures.increment();
      log.warn("worker {} is down: {}{}", link.workerId(), why,
          before == null || before.chunks().isEmpty() ? "" : "; it held " + before.chunks());
    } else {
      log.info("worker {} left: {}", link.workerId(), why);
    }
  }

  /**
   * Records the worker's session in the store. The write is made durable as a piece is: its time
   * stands for eps until the first piece is saved, so a fresh master cuts its first pieces for
   * its store's real cost.
   */
  private void sessionStarted(WorkerLink link, long at) {
    long t0 = b.clock.nanos();
    CompletableFuture<Long> row = b.store.submit(WorkerTable.sessionStarted(link.workerId(), at));
    b.sessionRows.put(link, row);
    row.thenRun(() -> thread.then(() -> b.controller.durableWrite((b.clock.nanos() - t0) / 1e9)));
  }

  /** The session's time up ends in the history, with an event {@code kind} ("interrupted" counts as one). */
  private void endSession(WorkerLink link, String kind, String detail) {
    CompletableFuture<Long> row = b.sessionRows.remove(link);
    long at = b.clock.epochMillis();
    boolean interrupted = kind.equals("interrupted");
    if (row != null) {
      // by way of the control thread: a submit from the store's own thread could wait on itself
      row.thenAccept(r -> thread.then(() -> b.store.submit(WorkerTable.sessionEnded(r, at, interrupted))));
    }
    b.store.submit(WorkerTable.workerEvent(link.workerId(), at, kind, detail));
  }

  /** What the controller knows of a worker: its Hello's calibration, its history, and when it will surely be gone. */
  private WorkerInfo info(WorkerLink link, Hello hello, long untilMillis) {
    Map<String, Double> speeds = new HashMap<>();
    for (Speed s : hello.getSpeedsList()) {
      if (s.getUnitsPerSecond() > 0 && Double.isFinite(s.getUnitsPerSecond())) {
        speeds.put(s.getWorkload(), s.getUnitsPerSecond());
      }
    }
    double until = untilMillis > 0 ? b.clock.fromMillis(untilMillis) : Double.POSITIVE_INFINITY;
    WorkerTable.History h = b.histories.getOrDefault(link.workerId(), new WorkerTable.History(0, 0));
    // with a risk prior, every worker's history starts with PRIOR_WEIGHT interruptions at the expected rate
    long pastInterruptions = h.interruptions() + b.priorInterruptions();
    double pastExposure = h.exposureSeconds() + b.priorInterruptions() * b.expectedUpSeconds;
    // and with an outages' prior, as many outages of the expected mean
    long priorOutages = b.expectedDownSeconds > 0 ? Books.PRIOR_WEIGHT : 0;
    return new WorkerInfo(link.workerId(), Set.copyOf(hello.getWorkloadsList()), link.cores(), speeds, until,
        pastInterruptions, pastExposure, hello.getSavesOnVacate(), priorOutages,
        priorOutages * b.expectedDownSeconds, link.site());
  }

  /** The chunks a worker says it kept computing; a malformed one is logged and left out (the worker then drops it). */
  private static List<Held> claims(String worker, Hello hello) {
    List<Held> out = new ArrayList<>();
    for (HeldChunk h : hello.getHeldList()) {
      try {
        out.add(new Held(worker, h.getJobId(), h.getChunkId(), h.getStart(), h.getEnd(), h.getAcked(),
            h.getCheckpointsList().stream().mapToLong(Long::longValue).toArray()));
      } catch (IllegalArgumentException e) {
        log.warn("worker {} claims a malformed chunk {} of job {}: {}", worker, h.getChunkId(), h.getJobId(),
            e.getMessage());
      }
    }
    return out;
  }

  private static String until(long millis) {
    return millis > 0 ? ", available until " + Instant.ofEpochMilli(millis) : "";
  }

  private static String backAt(long millis) {
    return millis > 0 ? "; back at " + Instant.ofEpochMilli(millis) : "";
  }
}
