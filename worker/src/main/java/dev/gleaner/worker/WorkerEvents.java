package dev.gleaner.worker;

import java.time.Duration;

/**
 * What a worker tells, beside its log, of the moments a tool that started it measures against:
 * when the clock of its drawn interruptions started, each time its failure injection took it down,
 * and each vacate for its owner with how long it took ({@code gleaner worker --events-file} writes
 * them to a file). Called on the daemon's threads: an implementation returns quickly and throws
 * nothing.
 */
public interface WorkerEvents {
  /** Tells nobody. */
  WorkerEvents NONE = new WorkerEvents() {};

  /** The drawn interruptions' clock started at {@code epochMillis}: their times count from then. */
  default void failureClockStarted(long epochMillis) {}

  /** Its failure injection (a drawn interruption, or its crash file) took it down at {@code epochMillis}. */
  default void wentDown(long epochMillis) {}

  /**
   * It vacated for its owner: the master was told at {@code epochMillis}, {@code took} after the
   * owner was seen back; {@code late} when a chunk had not reached a checkpoint within the grace and
   * was stopped.
   */
  default void vacated(long epochMillis, Duration took, boolean late) {}
}
