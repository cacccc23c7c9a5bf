package dev.gleaner.deploy.bench.links;

import dev.gleaner.deploy.bench.driver.CpuClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Waits, before a run, for the daemons to be done starting. A JVM's first seconds go to compiling
 * and to the protocol's warm-up (1.4-1.6 s of CPU each); on two cores, a master and four workers
 * starting at once slowed a first job by up to 10%, which is neither the links nor the workers'
 * speeds, and no model of them holds it. Quiet: the daemons together used less than {@link
 * #QUIET_SHARE} of one core over the last {@link #WINDOW}. The wait is bounded ({@link #LIMIT});
 * past it the run goes on and the bench says so.
 */
final class Settle {
  static final Duration WINDOW = Duration.ofMillis(500);
  static final double QUIET_SHARE = 0.1;
  static final Duration LIMIT = Duration.ofSeconds(20);
  private static final long POLL_MILLIS = 100;

  private Settle() {}

  /** A reading: when, and the CPU seconds the live daemons had used by then. */
  private record Reading(long nanos, double cpu) {}

  /**
   * Waits until the processes still alive among {@code pids} are quiet.
   *
   * @param say where it says so when they were not
   * @return the seconds it waited, or NaN if they were not quiet within {@link #LIMIT}
   */
  static double await(List<Long> pids, BiConsumer<String, Object[]> say) throws InterruptedException {
    return await(pids, LIMIT, say);
  }

  /** {@link #await(List, BiConsumer)}, waiting at most {@code limit}. */
  static double await(List<Long> pids, Duration limit, BiConsumer<String, Object[]> say) throws InterruptedException {
    long start = System.nanoTime();
    List<Reading> window = new ArrayList<>();
    for (long i = 0; i <= limit.toMillis() / POLL_MILLIS; i++) {
      long now = System.nanoTime();
      window.add(new Reading(now, cpu(pids)));
      // the oldest reading kept is the latest that still opens a whole window
      while (window.size() > 1 && now - window.get(1).nanos() >= WINDOW.toNanos()) {
        window.remove(0);
      }
      Reading first = window.get(0);
      double span = (now - first.nanos()) / 1e9;
      if (span >= WINDOW.toNanos() / 1e9 && (window.get(window.size() - 1).cpu() - first.cpu()) / span < QUIET_SHARE) {
        return (now - start) / 1e9;
      }
      Thread.sleep(POLL_MILLIS);
    }
    say.accept("  the daemons still used %.0f%% of a core or more after %d s; running all the same",
        new Object[] {100 * QUIET_SHARE, limit.toSeconds()});
    return Double.NaN;
  }

  /** The CPU seconds the live processes among {@code pids} have used; one that ended counts no more. */
  private static double cpu(List<Long> pids) {
    return pids.stream().mapToDouble(CpuClock::secondsIfAlive).sum();
  }
}
