package dev.gleaner.common.estimate;

/**
 * A rate (amount per second) from observations of an amount done in some seconds, where old
 * observations fade: each new observation of {@code s} seconds multiplies the weight of everything
 * before it by {@code 2^(-s / halfLife)}. A prior (a calibration) stands until the first real
 * observation, which replaces it.
 *
 * <p>Ratio of decayed sums rather than a mean of ratios: a long piece weighs more than a short
 * one, and a piece of 0 seconds (timer resolution) cannot produce an infinite rate.
 */
final class DecayingRate {
  private final double halfLife;
  private double amount;
  private double seconds;
  private long observations;

  DecayingRate(double halfLife) {
    this.halfLife = halfLife;
  }

  /** Sets the prior, a rate as if observed over {@code weightSeconds}, unless there are real observations. */
  void prior(double rate, double weightSeconds) {
    if (observations == 0 && rate > 0 && Double.isFinite(rate)) {
      amount = rate * weightSeconds;
      seconds = weightSeconds;
    }
  }

  void observe(double amountDone, double secondsTaken) {
    if (!(amountDone > 0) || !(secondsTaken > 0) || Double.isInfinite(secondsTaken)) {
      return;
    }
    // the first real observation replaces the prior: a piece measured on the job itself beats a
    // calibration on a sample (which can be off by several times: another range, a cold JIT)
    double keep = observations == 0 ? 0 : Math.pow(2, -secondsTaken / halfLife);
    amount = amount * keep + amountDone;
    seconds = seconds * keep + secondsTaken;
    observations++;
  }

  Estimate estimate() {
    return seconds > 0 ? new Estimate(amount / seconds, observations) : Estimate.UNKNOWN;
  }
}
