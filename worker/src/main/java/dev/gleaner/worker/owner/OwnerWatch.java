package dev.gleaner.worker.owner;

import dev.gleaner.worker.owner.OwnerActivity.Observation;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Looks at the owner every poll and tells the worker what to do: the body around an
 * {@link OwnerPolicy}, with the sources' I/O and a thread of its own. A source that cannot be read
 * at start stops the worker with the reason; one that fails later is logged (once per message) and
 * counts as the owner present, so a broken source costs work, never the owner's machine.
 */
public final class OwnerWatch implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OwnerWatch.class);

  /** What the worker does on the policy's decisions; called on the watch's thread, one at a time. */
  public interface Moves {
    /** The owner is back or the window closed: report what was computed, give the rest back, take nothing. */
    void vacate(String reason, Instant backAt);

    /** A short visit: pause computing, keep the chunks. */
    void suspend(String reason);

    /** The visit is over: compute again. */
    void resume(String reason);

    /** The owner left (or the window opened): take work again, until {@code until} (null: no end). */
    void available(String reason, Instant until);
  }

  private final OwnerConfig config;
  private final Clock clock;
  private final Moves moves;
  private final OwnerPolicy policy;
  private final Map<OwnerActivity, String> failing = new HashMap<>();
  private ScheduledExecutorService thread;

  public OwnerWatch(OwnerConfig config, Clock clock, Moves moves) {
    this.config = config;
    this.clock = clock;
    this.moves = moves;
    this.policy = new OwnerPolicy(config, clock.instant());
  }

  /**
   * The first look, before the worker connects: the state it starts in (AWAY or WORKING) with its
   * reason, its end or when it may be back.
   *
   * @throws IllegalArgumentException naming a source that cannot be read
   */
  public OwnerPolicy.Step first() {
    Instant now = clock.instant();
    List<Observation> seen = new ArrayList<>();
    for (OwnerActivity s : config.sources()) {
      try {
        seen.add(s.observe(now));
      } catch (IOException | RuntimeException e) {
        throw new IllegalArgumentException("cannot see the owner through " + s.name() + ": " + e.getMessage(), e);
      }
    }
    OwnerPolicy.Step step = policy.step(now, seen);
    if (step.changed()) {
      return step;
    }
    // still away: say why and when it may work
    boolean closed = config.windows() != null && !config.windows().contains(now);
    Instant back = now.plus(config.idleBeforeStart());
    if (config.windows() != null) {
      back = config.windows().nextStart(closed ? now : back);
    }
    return new OwnerPolicy.Step(step.from(), step.to(), closed ? "outside its availability windows "
        + config.windows() : "waiting for the owner to be away for " + OwnerPolicy.human(config.idleBeforeStart()),
        back, null);
  }

  /** Polls every {@code config.poll()} on a thread of its own until {@link #close}. */
  public void start() {
    thread = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "gleaner-owner");
      t.setDaemon(true);
      return t;
    });
    long every = config.poll().toMillis();
    thread.scheduleWithFixedDelay(() -> {
      try {
        poll();
      } catch (RuntimeException e) {
        log.error("owner policy: {}", e.toString(), e);
      }
    }, every, every, TimeUnit.MILLISECONDS);
  }

  public OwnerPolicy.State state() {
    return policy.state();
  }

  /** One look at the sources and what follows from it. */
  public OwnerPolicy.Step poll() {
    Instant now = clock.instant();
    List<Observation> seen = new ArrayList<>();
    for (OwnerActivity s : config.sources()) {
      try {
        seen.add(s.observe(now));
        if (failing.remove(s) != null) {
          log.info("{} can be read again", s.name());
        }
      } catch (IOException | RuntimeException e) {
        String why = String.valueOf(e.getMessage());
        if (!why.equals(failing.put(s, why))) {
          log.warn("cannot see the owner through {} ({}); the owner counts as present", s.name(), why);
        }
        seen.add(Observation.input(now, "cannot read " + s.name()));
      }
    }
    OwnerPolicy.Step step = policy.step(now, seen);
    if (step.changed()) {
      log.info("owner policy: {} -> {}: {}", step.from(), step.to(), step.reason());
      switch (step.to()) {
        case AWAY -> moves.vacate(step.reason(), step.backAt());
        case SUSPENDED -> moves.suspend(step.reason());
        case WORKING -> {
          if (step.from() == OwnerPolicy.State.SUSPENDED) {
            moves.resume(step.reason());
          } else {
            moves.available(step.reason(), step.until());
          }
        }
      }
    }
    return step;
  }

  @Override
  public void close() {
    if (thread != null) {
      thread.shutdownNow();
    }
  }
}
