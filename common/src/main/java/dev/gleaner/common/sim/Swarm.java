package dev.gleaner.common.sim;

import dev.gleaner.common.control.JobDef;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Many simulated workers on one job, to run the controller at the scale of a large fleet in
 * {@link ClosedLoop}: {@code workers} hosts whose speeds are drawn evenly from
 * {@code [minSpeed, maxSpeed]}, joining at instants drawn evenly from {@code [0, joinSeconds]}
 * (0: all there when the job starts), never interrupted, each declaring its true speed or, with
 * {@code declared} set, that speed whatever its true one (as 4,000 workers declaring 10^9 units/s
 * once did); one job of {@code units} units in chunks of {@code chunkUnits} (0: the strategy
 * chooses) planned with {@code strategy}. The same seed gives the same swarm.
 */
public record Swarm(int workers, double minSpeed, double maxSpeed, double declared, double joinSeconds, long units,
    long chunkUnits, String strategy, long seed) {
  public Swarm {
    if (workers < 1 || !(minSpeed > 0) || !(maxSpeed >= minSpeed) || !(joinSeconds >= 0) || units < 1
        || chunkUnits < 0) {
      throw new IllegalArgumentException("a swarm needs at least one worker, speeds 0 < min <= max, a join time >= 0,"
          + " units and a chunk size >= 0; got " + this);
    }
  }

  /**
   * 100,000 workers of 10^3 to 10^4 units/s joining within 10 s, on 10^10 units planned by
   * {@code auto}: about 20 simulated seconds of work.
   */
  public static Swarm hundredThousand() {
    return new Swarm(100_000, 1e3, 1e4, Double.NaN, 10, 10_000_000_000L, 0, "auto", 1);
  }

  /** 4,000 workers declaring and computing 10^9 units/s, there from the start, on 100,000 chunks of 1,000 units. */
  public static Swarm fastFour() {
    return new Swarm(4000, 1e9, 1e9, 1e9, 0, 100_000_000L, 1000, "self", 1);
  }

  /** The job, with every host needed before it starts when they are all there at once. */
  public JobDef job() {
    JobDef j = JobDef.of("swarm", "sim", 0, units, strategy).withChunking(chunkUnits, 0);
    return joinSeconds == 0 ? j.withMinWorkers(workers) : j;
  }

  /** The hosts, in the order of their ids. */
  public List<ClosedLoop.Host> hosts() {
    SplittableRandom r = new SplittableRandom(seed);
    List<ClosedLoop.Host> out = new ArrayList<>(workers);
    for (int i = 0; i < workers; i++) {
      double speed = minSpeed + (maxSpeed - minSpeed) * r.nextDouble();
      double joinAt = joinSeconds > 0 ? joinSeconds * r.nextDouble() : 0;
      out.add(new ClosedLoop.Host("s" + i, speed, Double.POSITIVE_INFINITY, Double.isNaN(declared) ? speed : declared,
          joinAt, List.of(), Double.POSITIVE_INFINITY));
    }
    return out;
  }
}
