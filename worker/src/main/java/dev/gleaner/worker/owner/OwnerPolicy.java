package dev.gleaner.worker.owner;

import dev.gleaner.worker.owner.OwnerActivity.Observation;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Whether the worker may compute now, from its windows and what its sources saw: a pure state
 * machine stepped by the {@link OwnerWatch} with the time and the observations of one poll.
 *
 * <pre>
 *            machine idle for idleBeforeStart, inside a window
 *   AWAY ---------------------------------------------------> WORKING
 *    ^  <----------------------------------------------------  |   ^
 *    |     owner back (vacate mode), or the window closed      |   | idle for idleBeforeResume
 *    |                                                          v   |
 *    +-------------- suspended for maxSuspend, or the window -- SUSPENDED
 *                    closed                    (owner back, suspend mode)
 * </pre>
 *
 * <p>How: the owner's last input is the latest any source saw (remembered across polls), and never
 * earlier than when the policy started: what a source cannot see of the past does not count as
 * idle. The owner is back when input comes after computing started, or when the other processes'
 * load, smoothed over a minute like a load average, passes {@code ownerLoad}.
 */
public final class OwnerPolicy {
  /** Seconds over which the load is smoothed (the one-minute load average's constant). */
  static final double LOAD_SECONDS = 60;

  /** The worker's state as its owner allows it. */
  public enum State {
    /** Takes no work: the owner is using the computer, has not been away long enough, or the windows are closed. */
    AWAY,
    /** Takes work and computes. */
    WORKING,
    /** Holds its chunks without computing: a short visit of the owner (suspend mode). */
    SUSPENDED
  }

  /**
   * What a poll decided.
   *
   * @param from the state before
   * @param to the state now (equal to {@code from}: nothing changes)
   * @param reason why, for the log and the master
   * @param backAt going AWAY: the earliest time the worker may work again; null when unknown
   * @param until going to WORKING: when its window ends; null for no end
   */
  public record Step(State from, State to, String reason, Instant backAt, Instant until) {
    public boolean changed() {
      return from != to;
    }
  }

  private final OwnerConfig config;
  private final Instant started;
  private State state = State.AWAY;
  private Instant lastInput;
  private String inputDetail = "";
  private double load = Double.NaN;
  private String loadDetail = "";
  private Instant lastLoadAt;
  /** When computing last started or resumed: input after it means the owner is back. */
  private Instant workingSince;
  private Instant suspendedSince;
  /** When the previous poll was: input after it means the owner is at the computer now. */
  private Instant previousPoll;
  private boolean presentNow;

  public OwnerPolicy(OwnerConfig config, Instant started) {
    this.config = config;
    this.started = started;
  }

  public State state() {
    return state;
  }

  /** The other processes' smoothed load, cores; NaN before two looks. */
  double load() {
    return load;
  }

  /** One poll: what the sources saw at {@code now}. */
  public Step step(Instant now, List<Observation> seen) {
    observe(now, seen);
    boolean inWindow = config.windows() == null || config.windows().contains(now);
    State from = state;
    switch (state) {
      case AWAY -> {
        if (inWindow && idleFor(now, config.idleBeforeStart())) {
          state = State.WORKING;
          workingSince = now;
          return new Step(from, state, config.sources().isEmpty() ? "its window is open"
              : "the owner has been away for " + human(config.idleBeforeStart()), null, windowEnd(now));
        }
      }
      case WORKING -> {
        if (!inWindow) {
          return away(from, now, "its availability window closed");
        }
        String back = ownerBack(now);
        if (back != null) {
          if (config.onOwner() == OwnerConfig.OnOwner.SUSPEND) {
            state = State.SUSPENDED;
            suspendedSince = now;
            return new Step(from, state, back, null, null);
          }
          return away(from, now, back);
        }
      }
      case SUSPENDED -> {
        if (!inWindow) {
          return away(from, now, "its availability window closed");
        }
        if (!Duration.between(suspendedSince, now).minus(config.maxSuspend()).isNegative()) {
          return away(from, now, "the owner stayed " + human(config.maxSuspend()));
        }
        if (idleFor(now, config.idleBeforeResume())) {
          state = State.WORKING;
          workingSince = now;
          return new Step(from, state, "the owner has been away for " + human(config.idleBeforeResume()), null,
              windowEnd(now));
        }
      }
    }
    return new Step(from, state, "", null, null);
  }

  private Step away(State from, Instant now, String why) {
    state = State.AWAY;
    Instant back = now.plus(config.idleBeforeStart());
    if (config.windows() != null) {
      back = config.windows().nextStart(back);
    }
    return new Step(from, state, why, back, null);
  }

  private void observe(Instant now, List<Observation> seen) {
    Instant previous = previousPoll == null ? started : previousPoll;
    previousPoll = now;
    presentNow = false;
    for (Observation o : seen) {
      if (o.lastInput() != null && (o.lastInput().isAfter(previous) || !o.lastInput().isBefore(now))) {
        presentNow = true;
      }
      if (o.lastInput() != null && (lastInput == null || o.lastInput().isAfter(lastInput))) {
        lastInput = o.lastInput();
        inputDetail = o.detail();
      }
      if (!Double.isNaN(o.load())) {
        if (Double.isNaN(load) || lastLoadAt == null) {
          load = o.load();
        } else {
          double dt = Math.max(0, Duration.between(lastLoadAt, now).toMillis() / 1000.0);
          load += (o.load() - load) * (1 - Math.exp(-dt / LOAD_SECONDS));
        }
        lastLoadAt = now;
        loadDetail = o.detail();
      }
    }
  }

  /**
   * Whether no input came for {@code d} (counted from the start at the earliest), none since the
   * last poll (with {@code d} zero: as soon as the owner leaves), and the load is low.
   */
  private boolean idleFor(Instant now, Duration d) {
    if (config.sources().isEmpty()) {
      // windows only: nobody to wait for
      return true;
    }
    if (presentNow) {
      return false;
    }
    Instant since = lastInput == null || lastInput.isBefore(started) ? started : lastInput;
    return !Duration.between(since, now).minus(d).isNegative() && !(load > config.ownerLoad());
  }

  /** Why the owner is back, or null. */
  private String ownerBack(Instant now) {
    if (lastInput != null && lastInput.isAfter(workingSince)) {
      return "the owner is back (" + inputDetail + ")";
    }
    if (load > config.ownerLoad()) {
      return String.format(Locale.ROOT, "the owner is back (%s; over %.2f)", loadDetail, config.ownerLoad());
    }
    return null;
  }

  private Instant windowEnd(Instant now) {
    return config.windows() == null ? null : config.windows().end(now).orElse(null);
  }

  /** A duration as people write it: 15m, 30s, 1h30m. */
  static String human(Duration d) {
    long s = d.toSeconds();
    if (s == 0) {
      return d.toMillis() + "ms";
    }
    StringBuilder b = new StringBuilder();
    if (s >= 3600) {
      b.append(s / 3600).append('h');
    }
    if (s % 3600 >= 60) {
      b.append(s % 3600 / 60).append('m');
    }
    if (s % 60 > 0) {
      b.append(s % 60).append('s');
    }
    return b.toString();
  }
}
