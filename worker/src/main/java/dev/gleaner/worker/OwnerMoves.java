package dev.gleaner.worker;

import dev.gleaner.protocol.Availability;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.worker.owner.OwnerPolicy;
import dev.gleaner.worker.owner.OwnerWatch;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the owner's policy decides, carried out (on the policy's thread), and what the master is
 * told of it: whether the worker takes work, and until when it surely stays.
 *
 * <p>A vacate stops new work, lets the running chunk report up to its current step within the
 * vacate grace, stops it if it cannot, and tells the master on the same connection after those
 * pieces, so the master commits them first. Without an owner's policy the worker is always lent,
 * until its {@code --available-until} if it has one.
 */
final class OwnerMoves implements OwnerWatch.Moves {
  /** The daemon's log: its lines tell one worker's story, as an operator reads it. */
  private static final Logger log = LoggerFactory.getLogger(WorkerDaemon.class);

  private final WorkerConfig config;
  private final ChunkRunner runner;
  private final Outbox outbox;
  private final WorkerCounters counters;
  private final WorkerLifecycle life;
  /** While the owner's policy keeps it from taking work: what its Hello says; null while it takes work. */
  private volatile Availability away;
  /** When its current availability window ends (epoch ms); 0 for none. */
  private volatile long windowEndMillis;
  /** How long its last vacate took, from the owner's return to the master being told; null before one. */
  private volatile Duration lastVacate;

  OwnerMoves(WorkerConfig config, ChunkRunner runner, Outbox outbox, WorkerCounters counters, WorkerLifecycle life) {
    this.config = config;
    this.runner = runner;
    this.outbox = outbox;
    this.counters = counters;
    this.life = life;
  }

  /** Starts away or taking work, as the policy's first step says, before the first connection. */
  void first(OwnerPolicy.Step first) {
    if (first.to() == OwnerPolicy.State.AWAY) {
      runner.vacate();
      away = availability(false, first.reason(), first.backAt());
      log.info("taking no work for now: {}{}", first.reason(), first.backAt() == null ? "" : "; at the earliest at "
          + first.backAt());
    } else {
      windowEndMillis = first.until() == null ? 0 : first.until().toEpochMilli();
      log.info("taking work: {}{}", first.reason(), first.until() == null ? "" : ", until " + first.until());
    }
  }

  /** While the owner's policy keeps it from taking work: what to tell the master; null while it takes work. */
  Availability away() {
    return away;
  }

  /** When this worker will surely be gone (epoch ms): its --available-until or its window's end, the earlier; 0 for none. */
  long declaredUntilMillis() {
    long until = config.availableUntil() == null ? 0 : config.availableUntil().toEpochMilli();
    long window = windowEndMillis;
    return until == 0 ? window : window == 0 ? until : Math.min(until, window);
  }

  /** How long its last vacate took, from the owner's return to the master being told; null before one. */
  Duration lastVacate() {
    return lastVacate;
  }

  @Override
  public void vacate(String reason, Instant backAt) {
    if (life.leaving()) {
      return;
    }
    long t0 = System.nanoTime();
    long grace = config.owner().vacateGrace().toNanos();
    runner.vacate();
    // the running chunk reports up to its current step (a checkpoint for input, its piece for exec)
    while (runner.pending() > 0 && System.nanoTime() - t0 < grace) {
      try {
        TimeUnit.MILLISECONDS.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    boolean late = runner.pending() > 0;
    if (late) {
      runner.cancelAll();
    }
    Availability a = availability(false, reason, backAt);
    away = a;
    windowEndMillis = 0;
    // after every piece reported above, on the same connection: the master commits them first
    boolean told = outbox.send(Envelope.newBuilder().setAvailability(a).build());
    Duration took = Duration.ofNanos(System.nanoTime() - t0);
    lastVacate = took;
    counters.vacates.increment();
    config.events().vacated(System.currentTimeMillis(), took, late);
    log.info("vacated in {} ms (grace {} ms): {}{}{}", took.toMillis(), config.owner().vacateGrace().toMillis(), reason,
        late ? "; the running chunk did not reach a checkpoint within the grace and was stopped (its unsaved units"
            + " go to others)" : "", told ? "" : "; the master hears it when this worker connects");
  }

  @Override
  public void suspend(String reason) {
    runner.suspend();
    log.info("computing paused: {}", reason);
  }

  @Override
  public void resume(String reason) {
    runner.resume();
    log.info("computing again: {}", reason);
  }

  @Override
  public void available(String reason, Instant until) {
    if (life.leaving()) {
      return;
    }
    windowEndMillis = until == null ? 0 : until.toEpochMilli();
    away = null;
    runner.resume();
    long declared = declaredUntilMillis();
    boolean told = outbox.send(Envelope.newBuilder().setAvailability(availability(true, reason,
        declared > 0 ? Instant.ofEpochMilli(declared) : null)).build());
    log.info("taking work: {}{}{}", reason, declared > 0 ? ", until " + Instant.ofEpochMilli(declared) : "",
        told ? "" : "; the master hears it when this worker connects");
  }

  private static Availability availability(boolean available, String reason, Instant at) {
    Availability.Builder a = Availability.newBuilder().setAvailable(available).setReason(reason);
    if (at != null) {
      if (available) {
        a.setUntilMillis(at.toEpochMilli());
      } else {
        a.setBackAtMillis(at.toEpochMilli());
      }
    }
    return a.build();
  }
}
