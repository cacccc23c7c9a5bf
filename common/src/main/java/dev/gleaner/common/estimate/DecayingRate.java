package dev.gleaner.common.estimate;

/**
 * A rate (amount per second) from observations of an amount done in some seconds, where old
 * observations fade: each new observation of {@code s} seconds multiplies the weight of everything
 * before it by {@code 2^(-s / halfLife)}. A prior (a calibration) stands until the first real
 * observation, which replaces it.
 *
 * <p>Ratio of decayed sums rather than a mean of ratios: a long piece weighs more than a short
 * one, and a piece of 0 seconds (timer resolution) cannot produce an infinite rate.
 *
 * <p>With a {@code shift} factor, a rate that dropped is followed at once: {@link #RUN} observations
 * in a row that may show it (a transfer alone on the wire, not one that shared the master's egress)
 * more than {@code shift} times below the estimate replace what came before them (a link whose
 * rate was cut mid-job would otherwise take a half-life of transfers to show it). A rise is followed
 * at the decaying pace only: a fast-looking transfer may be an artifact (a worker that read late
 * takes its socket buffer in one go), a slow one is not.
 */
final class DecayingRate {
  private final double halfLife;
  private final double shift;
  private double amount;
  private double seconds;
  private long observations;
  /** Observations in a row that may show a drop and lie more than the shift below the estimate. */
  static final int RUN = 3;

  /** How many of the last observations in a row were far below, and what they did. */
  private int offRun;
  private double offAmount;
  private double offSeconds;

  DecayingRate(double halfLife) {
    this(halfLife, 0);
  }

  /** A rate that follows a drop once {@link #RUN} observations in a row are {@code shift} times below it (0: never). */
  DecayingRate(double halfLife, double shift) {
    this.halfLife = halfLife;
    this.shift = shift;
  }

  /** Sets the prior, a rate as if observed over {@code weightSeconds}, unless there are real observations. */
  void prior(double rate, double weightSeconds) {
    if (observations == 0 && rate > 0 && Double.isFinite(rate)) {
      amount = rate * weightSeconds;
      seconds = weightSeconds;
    }
  }

  void observe(double amountDone, double secondsTaken) {
    observe(amountDone, secondsTaken, false);
  }

  /** An observation; {@code mayShift}: it may show a drop (see the class comment), else it only decays in. */
  void observe(double amountDone, double secondsTaken, boolean mayShift) {
    if (!(amountDone > 0) || !(secondsTaken > 0) || Double.isInfinite(secondsTaken)) {
      return;
    }
    // the first real observation replaces the prior: a piece measured on the job itself beats a
    // calibration on a sample (which can be off by several times: another range, a cold JIT)
    boolean off = mayShift && shift > 1 && observations > 0 && seconds > 0
        && amountDone / secondsTaken * shift < amount / seconds;
    if (off && offRun == RUN - 1) {
      // the last of a run far below: the rate dropped; the run is what is known of it
      amount = offAmount + amountDone;
      seconds = offSeconds + secondsTaken;
      observations++;
      offRun = 0;
      return;
    }
    offRun = off ? offRun + 1 : 0;
    offAmount = off ? offAmount + amountDone : 0;
    offSeconds = off ? offSeconds + secondsTaken : 0;
    double keep = observations == 0 ? 0 : Math.pow(2, -secondsTaken / halfLife);
    amount = amount * keep + amountDone;
    seconds = seconds * keep + secondsTaken;
    observations++;
  }

  Estimate estimate() {
    return seconds > 0 ? new Estimate(amount / seconds, observations) : Estimate.UNKNOWN;
  }
}
