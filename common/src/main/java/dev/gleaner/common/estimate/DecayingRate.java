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
 * in a row that may show it (a transfer at its link's own rate, not a share of the master's egress;
 * one as far below that may be a share neither counts nor ends the run) more than {@code shift} times
 * below the estimate as it stood before them replace what came before them, at their median rate
 * (a link whose rate was cut mid-job would otherwise take a half-life of transfers to show it; and
 * the first of them, decayed in, moves the estimate toward them, by much when little was known: held
 * to the moved estimate, the next would no longer lie far below).
 * A rise is followed at the decaying pace only, since a fast-looking transfer may be an artifact (a
 * worker that read late takes its socket buffer in one go), a slow one is not; with one exception:
 * after a drop, {@link #RUN} observations in a row (the link's own rate or not: beside others a
 * transfer can only look slower) each more than {@link #RISE} times above the estimate replace it
 * too, at their median rate; a run that comes back to within {@link #RISE} of the rate before the
 * drop restores what was known before it, and no run goes past it. The first transfers after a cut
 * often run below the new rate (the link's queue, shrunk with its rate, drops packets and TCP
 * recovers), and a link cut and then restored comes back to what it did: neither waits out a
 * half-life. A transfer read late may look fast beside others too, but a run of them raises a link
 * at most to what it did before its drop. Once the estimate is back there (by a run or by the
 * decaying mean), the drop is over: rises are followed at the decaying pace again.
 *
 * <p>The first observation is taken as such a drop too. A job's first transfers often run while every
 * process of the job wakes up at once (their JVMs compiling): on the testbed a 4.78 MB/s link's first
 * transfer read 0.89 to 1.05 MB/s; weighed by its long time it held the estimate at a third of the
 * link, DISTRIB served that worker last, and it waited six seconds for its next transfer. So a second
 * observation more than {@code shift} times above the first replaces it, and a run of {@link #RUN}
 * right after the first, each more than {@link #RISE} times above the estimate, replaces it at their
 * median. An estimate set too high this way is followed down by the next transfers; one too low may
 * get no more transfers to show it.
 */
final class DecayingRate {
  private final double halfLife;
  private final double shift;
  private double amount;
  private double seconds;
  private long observations;
  /** Observations in a row that may show a drop (or, after one, a rise) and lie far from the estimate. */
  static final int RUN = 3;
  /** After a drop, how many times above the estimate a run of observations shows the rate came back up. */
  static final double RISE = 1.1;

  /**
   * What was known before the first drop not recovered from yet (its rate the most a run may come
   * back to); NaN when there is none.
   */
  private double beforeAmount = Double.NaN;
  private double beforeSeconds = Double.NaN;
  /** The last observations in a row that lay far below (or, after a drop, far above), and what they did. */
  private final Run down = new Run(this);
  private final Run up = new Run(this);

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

  /**
   * An observation; {@code mayShift}: it may show a drop (see the class comment), else it only
   * decays in, or counts toward a rise back after a drop.
   */
  void observe(double amountDone, double secondsTaken, boolean mayShift) {
    if (!(amountDone > 0) || !(secondsTaken > 0) || Double.isInfinite(secondsTaken)) {
      return;
    }
    // the first real observation replaces the prior: a piece measured on the job itself beats a
    // calibration on a sample (which can be off by several times: another range, a cold JIT)
    boolean known = shift > 1 && observations > 0 && seconds > 0;
    double rate = amountDone / secondsTaken;
    // a run under way is held to the estimate it started from: its first observations, decayed in,
    // moved the estimate toward them (by much, when little was known before), and would end it
    double estimate = known ? down.startedFrom(amount / seconds) : Double.NaN;
    boolean below = known && rate * shift < estimate;
    boolean low = below && mayShift;
    double beforeDrop = beforeAmount / beforeSeconds;
    // beside others a transfer can only look slower than its link: a rise needs no wire to itself
    boolean high = shift > 1 && observations > 0 && seconds > 0 && rate > RISE * (amount / seconds)
        && (observations <= RUN || !Double.isNaN(beforeDrop) && amount / seconds < beforeDrop);
    if (shift > 1 && observations == 1 && seconds > 0 && rate > shift * (amount / seconds)) {
      // the first ran slowed by the job's start (see the class comment): the second says more
      set(rate, secondsTaken);
      up.clear();
      down.clear();
      return;
    }
    // held to where a drop's run started, one far below it may still lie above the moved estimate: it
    // counts for the drop, not for a rise
    high &= !low;
    // far below but maybe a share (of the master's egress): it neither counts for a drop nor ends one (a
    // share between a cut link's own transfers held its estimate 19% above the new rate five transfers on)
    double shifted = below && !mayShift ? Double.NaN : down.add(low, rate, secondsTaken);
    if (!Double.isNaN(shifted)) {
      // a run far below: the rate dropped; the run is what is known of it
      keepBeforeDrop(down.fromAmount, down.fromSeconds);
      set(shifted, down.seconds);
      up.clear();
      return;
    }
    shifted = up.add(high, rate, secondsTaken);
    if (!Double.isNaN(shifted)) {
      // a run far above after a drop: the rate came back up; back to what it was, what was known of it
      if (shifted * RISE >= beforeDrop) {
        amount = beforeAmount;
        seconds = beforeSeconds;
        observations++;
        recovered();
      } else {
        set(shifted, up.seconds);
      }
      down.clear();
      return;
    }
    double keep = observations == 0 ? 0 : Math.pow(2, -secondsTaken / halfLife);
    amount = amount * keep + amountDone;
    seconds = seconds * keep + secondsTaken;
    observations++;
    if (amount / seconds >= beforeDrop) {
      recovered();
    }
  }

  /**
   * The rate was seen to drop to {@code rate}, over {@code overSeconds}, by measures of part of an
   * observation still under way (a run of a transfer's paces far below what was known, as the
   * master's port judges them): below the estimate, it replaces it as a run of observations far
   * below would, and what was known before stays the most a rise may come back to. Returns whether
   * the estimate changed.
   */
  boolean cut(double rate, double overSeconds) {
    if (!(rate > 0) || !(overSeconds > 0) || Double.isInfinite(rate) || Double.isInfinite(overSeconds)
        || !(shift > 1 && observations > 0 && seconds > 0 && rate < amount / seconds)) {
      return false;
    }
    keepBeforeDrop(amount, seconds);
    set(rate, overSeconds);
    up.clear();
    down.clear();
    return true;
  }

  /**
   * A drop is followed from what was known ({@code knownAmount} over {@code knownSeconds}): the most a
   * rise comes back to, unless more was known before an earlier drop not recovered from.
   */
  private void keepBeforeDrop(double knownAmount, double knownSeconds) {
    double beforeDrop = beforeAmount / beforeSeconds;
    if (Double.isNaN(beforeDrop) || knownAmount / knownSeconds > beforeDrop) {
      beforeAmount = knownAmount;
      beforeSeconds = knownSeconds;
    }
  }

  /** The estimate is back where it was before the drop: the drop is over. */
  private void recovered() {
    beforeAmount = Double.NaN;
    beforeSeconds = Double.NaN;
    up.clear();
  }

  private void set(double rate, double overSeconds) {
    amount = rate * overSeconds;
    seconds = overSeconds;
    observations++;
  }

  /** Observations in a row on one side of the estimate. */
  private static final class Run {
    private final double[] rates = new double[RUN];
    private int count;
    private double seconds;
    /** What was known when the run started, before any of its observations decayed in. */
    private double fromAmount;
    private double fromSeconds;
    /** Where the run starts from: what the estimate holds when its first observation comes. */
    private final DecayingRate of;

    Run(DecayingRate of) {
      this.of = of;
    }

    /**
     * Adds an observation ({@code far}: it lies on this run's side) or ends the run; the run's median
     * rate once it is {@link #RUN} long (the run then starts again), else NaN.
     */
    double add(boolean far, double rate, double secondsTaken) {
      if (!far) {
        clear();
        return Double.NaN;
      }
      if (count == 0) {
        seconds = 0;
        fromAmount = of.amount;
        fromSeconds = of.seconds;
      }
      rates[count++] = rate;
      seconds += secondsTaken;
      if (count < RUN) {
        return Double.NaN;
      }
      double[] sorted = rates.clone();
      java.util.Arrays.sort(sorted);
      count = 0;
      return sorted[RUN / 2];
    }

    /** The rate the run started from, {@code otherwise} when no run is under way. */
    double startedFrom(double otherwise) {
      return count > 0 && fromSeconds > 0 ? fromAmount / fromSeconds : otherwise;
    }

    void clear() {
      count = 0;
    }
  }

  Estimate estimate() {
    return seconds > 0 ? new Estimate(amount / seconds, observations) : Estimate.UNKNOWN;
  }
}
