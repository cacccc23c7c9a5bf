package dev.gleaner.common.time;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with full jitter: the n-th wait is uniform in
 * [0.5 d, d] with d = min(cap, initial * 2^n), so reconnecting workers spread out instead of
 * hammering a master that just came back in step.
 */
public final class Backoff {
  private final long initialNanos;
  private final long capNanos;
  private final RandomGenerator random;
  private int attempt;

  public Backoff(Duration initial, Duration cap, RandomGenerator random) {
    if (initial.isNegative() || initial.isZero() || cap.compareTo(initial) < 0) {
      throw new IllegalArgumentException("backoff needs 0 < initial <= cap, got " + initial + " and " + cap);
    }
    this.initialNanos = initial.toNanos();
    this.capNanos = cap.toNanos();
    this.random = random;
  }

  /** The wait before the next attempt. */
  public Duration next() {
    long d = capNanos;
    if (attempt < 62 && initialNanos <= capNanos >> Math.min(attempt, 62)) {
      d = Math.min(capNanos, initialNanos << attempt);
    }
    attempt++;
    long half = d / 2;
    return Duration.ofNanos(half + (long) (random.nextDouble() * (d - half)));
  }

  /** After a success: the next wait starts small again. */
  public void reset() {
    attempt = 0;
  }
}
