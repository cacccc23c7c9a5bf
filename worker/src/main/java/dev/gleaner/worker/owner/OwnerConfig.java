package dev.gleaner.worker.owner;

import dev.gleaner.common.time.WeeklyWindows;
import java.time.Duration;
import java.util.List;

/**
 * A worker's owner policy: when it may work, how it sees its owner, and what it does when the
 * owner comes back (thresholds in HTCondor's style: start after the machine was idle a while and
 * the owner's own load is low; vacate or suspend at the owner's first input).
 *
 * @param windows when it may work (weekly, local time); null for always
 * @param sources how it sees the owner; empty for not at all (windows only)
 * @param idleBeforeStart how long the owner must have left the machine (no input, load at most
 *     {@code ownerLoad}) before it takes work
 * @param idleBeforeResume in suspend mode, how long a short visit must be over before computing goes on
 * @param ownerLoad cores that other processes may keep busy without counting as the owner
 * @param vacateGrace how long a vacate may take: what is not reported by then is given up
 * @param onOwner what it does when the owner comes back
 * @param maxSuspend in suspend mode, how long it stays suspended before it vacates
 * @param poll how often it looks at its sources
 */
public record OwnerConfig(WeeklyWindows windows, List<OwnerActivity> sources, Duration idleBeforeStart,
    Duration idleBeforeResume, double ownerLoad, Duration vacateGrace, OnOwner onOwner, Duration maxSuspend,
    Duration poll) {

  /** What the worker does when its owner comes back. */
  public enum OnOwner {
    /** Reports what it computed, gives its chunks back and takes nothing until the owner leaves. */
    VACATE,
    /** Pauses, keeping its chunks; goes on when the owner leaves, or vacates after {@code maxSuspend}. */
    SUSPEND
  }

  public OwnerConfig {
    sources = List.copyOf(sources);
    if (windows == null && sources.isEmpty()) {
      throw new IllegalArgumentException("an owner policy needs availability windows or a way to see the owner");
    }
    for (Duration d : List.of(idleBeforeStart, idleBeforeResume, vacateGrace, maxSuspend)) {
      if (d.isNegative()) {
        throw new IllegalArgumentException("owner policy times must not be negative, got " + d);
      }
    }
    if (!(ownerLoad >= 0) || Double.isInfinite(ownerLoad)) {
      throw new IllegalArgumentException("the owner load threshold must be a number of cores >= 0, got " + ownerLoad);
    }
    if (poll.isNegative() || poll.isZero()) {
      throw new IllegalArgumentException("the owner poll interval must be positive, got " + poll);
    }
  }

  /** HTCondor's desktop defaults: 15 min idle before starting, load 0.3, 30 s to vacate, 5 min idle to resume, 10 min suspended at most. */
  public static OwnerConfig defaults(WeeklyWindows windows, List<OwnerActivity> sources) {
    return new OwnerConfig(windows, sources, Duration.ofMinutes(15), Duration.ofMinutes(5), 0.3, Duration.ofSeconds(30),
        OnOwner.VACATE, Duration.ofMinutes(10), Duration.ofSeconds(1));
  }

  public OwnerConfig withIdleBeforeStart(Duration d) {
    return new OwnerConfig(windows, sources, d, idleBeforeResume, ownerLoad, vacateGrace, onOwner, maxSuspend, poll);
  }

  public OwnerConfig withIdleBeforeResume(Duration d) {
    return new OwnerConfig(windows, sources, idleBeforeStart, d, ownerLoad, vacateGrace, onOwner, maxSuspend, poll);
  }

  public OwnerConfig withOwnerLoad(double cores) {
    return new OwnerConfig(windows, sources, idleBeforeStart, idleBeforeResume, cores, vacateGrace, onOwner, maxSuspend, poll);
  }

  public OwnerConfig withVacateGrace(Duration d) {
    return new OwnerConfig(windows, sources, idleBeforeStart, idleBeforeResume, ownerLoad, d, onOwner, maxSuspend, poll);
  }

  public OwnerConfig withOnOwner(OnOwner o, Duration maxSuspended) {
    return new OwnerConfig(windows, sources, idleBeforeStart, idleBeforeResume, ownerLoad, vacateGrace, o, maxSuspended, poll);
  }

  public OwnerConfig withPoll(Duration d) {
    return new OwnerConfig(windows, sources, idleBeforeStart, idleBeforeResume, ownerLoad, vacateGrace, onOwner, maxSuspend, d);
  }
}
