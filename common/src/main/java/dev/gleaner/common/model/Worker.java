package dev.gleaner.common.model;

/**
 * One computer as the planner sees it.
 *
 * @param id stable worker id
 * @param speed units per second on all its cores ({@code s_i}); must be positive
 * @param bandwidth units per second the master can send it ({@code bw_i}); positive, or
 *     {@link Double#POSITIVE_INFINITY} when the workload carries no input
 * @param risk linear interruption risk {@code kappa_i} per second, P(down by t) = min(1, kappa t); 0 for
 *     a dedicated computer
 */
public record Worker(String id, double speed, double bandwidth, double risk) {
  public Worker {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException("worker id must not be empty");
    }
    if (!(speed > 0) || Double.isInfinite(speed)) {
      throw new IllegalArgumentException("worker " + id + ": speed must be a positive number, got " + speed);
    }
    if (!(bandwidth > 0)) {
      throw new IllegalArgumentException("worker " + id + ": bandwidth must be positive, got " + bandwidth);
    }
    if (!(risk >= 0) || Double.isInfinite(risk)) {
      throw new IllegalArgumentException("worker " + id + ": risk must be a finite number >= 0, got " + risk);
    }
  }

  /** A worker of known speed whose bandwidth does not matter and whose risk is unknown (0). */
  public static Worker ofSpeed(String id, double speed) {
    return new Worker(id, speed, Double.POSITIVE_INFINITY, 0);
  }
}
