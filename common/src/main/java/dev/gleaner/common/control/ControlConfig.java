package dev.gleaner.common.control;

/**
 * The controller's tuning: the settings a body chooses, and the fixed figures beside them.
 *
 * @param window chunks a worker holds at once (one computing, the rest waiting on it so it never
 *     waits for a round trip)
 * @param lead a worker whose chunks would all be done within this many seconds gets more, up to
 *     {@code maxWindow}: tiny chunks keep the pipeline full instead of waiting for round trips
 * @param maxWindow the most chunks a worker ever holds
 * @param replanInterval least seconds between two re-plans of a job (joins and losses in a burst
 *     make one re-plan)
 * @param drift relative change of a worker's estimated speed or bandwidth, against the figures the
 *     current plan used, that makes the platform "materially" different
 * @param splitSeconds a running chunk is split (its tail given to an idle worker) only if its holder
 *     still needs more than this many seconds for it
 * @param splitMargin seconds of the holder's work left ahead of the cut, so the holder is not
 *     already past it when told
 * @param replicateAbove a tail is replicated instead of split when its holder is at least this
 *     likely to be interrupted before finishing it (0..1)
 * @param leaseFloor least seconds a worker may compute a piece without reporting before its work is
 *     taken back (a lease), heartbeats or not
 * @param leaseFactor the lease is this many times the piece's expected time at the worker's
 *     measured speed (and link), at least {@code leaseFloor}; with the speed unknown, this many
 *     floors
 * @param maxAttempts a piece that failed this many times (each time on a worker that had not failed
 *     it) fails its job; a worker that failed twice on a job is set aside from it
 */
public record ControlConfig(int window, double lead, int maxWindow, double replanInterval, double drift,
    double splitSeconds, double splitMargin, double replicateAbove, double leaseFloor, double leaseFactor, int maxAttempts) {
  public ControlConfig {
    if (window < 1 || maxWindow < window) {
      throw new IllegalArgumentException("window must be at least 1 and at most maxWindow, got " + window + " and "
          + maxWindow);
    }
    if (!(lead >= 0) || !(replanInterval >= 0) || !(drift > 0) || !(splitSeconds >= 0) || !(splitMargin >= 0)
        || !(replicateAbove >= 0 && replicateAbove <= 1) || !(leaseFloor > 0) || !(leaseFactor >= 1)
        || maxAttempts < 1) {
      throw new IllegalArgumentException("bad controller settings: " + this);
    }
  }

  /**
   * Seconds the last pieces of a job at its deadline are waited for (at least three checkpoint round
   * trips, when those are longer): each chunk being computed was told to stop where its worker is and
   * report what it computed.
   */
  public static final double DEADLINE_GRACE = 5;

  /** Seconds a job whose units are all committed waits for a worker able to take its remaining checks. */
  public static final double CHECK_WAIT_SECONDS = 60;

  /** Seconds after a restart before reserved chunks go to workers that have nothing else to do. */
  public static final double IDLE_RESERVED_SECONDS = 10;

  /** Re-plan intervals a burst of joins may hold back its re-plan. */
  public static final double BURST_REPLANS = 10;

  /**
   * Seconds from its probe plan a job's first plan waits at most for the workers still measured by
   * their probe chunks (see {@code Planner.probing}).
   */
  public static final double PROBE_WAIT_SECONDS = 5;

  /** How long a re-plan may keep auto's last pick instead of comparing every strategy again. */
  public static final double AUTO_REVIEW_SECONDS = 60;

  /** Least seconds between two {@link Action.Remember} of one job: each one is written whole. */
  public static final double MEMORY_INTERVAL = 1;

  /**
   * The checkpoint round trip assumed, in seconds, until one is measured and before the store's own
   * write time is known: a piece saved over a slow network to a disk that syncs. Larger than the
   * real one makes the pieces longer than the best (sqrt of the ratio), never unbounded.
   */
  public static final double EPS_PRIOR = 1;

  /**
   * Two chunks per worker (up to 32 while they would be done within 50 ms), re-plans at most every
   * second on a 30% drift, splits above 2 s of work, leases of 10 times a piece's expected time and
   * at least 2 minutes, 3 attempts per piece.
   */
  public static ControlConfig defaults() {
    return new ControlConfig(2, 0.05, 32, 1, 0.3, 2, 0.5, 0.5, 120, 10, 3);
  }

  public ControlConfig withWindow(int n) {
    return new ControlConfig(n, lead, Math.max(n, maxWindow), replanInterval, drift, splitSeconds, splitMargin,
        replicateAbove, leaseFloor, leaseFactor, maxAttempts);
  }

  /** A fixed window of n chunks, whatever their size. */
  public ControlConfig withFixedWindow(int n) {
    return new ControlConfig(n, 0, n, replanInterval, drift, splitSeconds, splitMargin, replicateAbove, leaseFloor,
        leaseFactor, maxAttempts);
  }

  /** Leases of at least {@code floor} seconds and {@code factor} times a piece's expected time. */
  public ControlConfig withLease(double floor, double factor) {
    return new ControlConfig(window, lead, maxWindow, replanInterval, drift, splitSeconds, splitMargin, replicateAbove,
        floor, factor, maxAttempts);
  }
}
