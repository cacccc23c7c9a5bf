package dev.gleaner.common.estimate;

/**
 * One estimated figure.
 *
 * @param value the estimate; {@link Double#NaN} when nothing is known
 * @param observations how many observations it rests on (0: a prior only, or nothing)
 */
public record Estimate(double value, long observations) {
  public static final Estimate UNKNOWN = new Estimate(Double.NaN, 0);

  /** Whether there is a usable value. */
  public boolean known() {
    return !Double.isNaN(value);
  }
}
