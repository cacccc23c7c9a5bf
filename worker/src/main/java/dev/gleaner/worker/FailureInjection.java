package dev.gleaner.worker;

import io.netty.channel.EventLoopGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failure injection, for tests and trials: the worker goes down without draining (what it had not
 * reported is lost) and stays away, on a seeded outage schedule ({@link WorkerConfig#interrupt})
 * or while a crash file exists ({@link WorkerConfig#crashFile}); when the outage is over it connects
 * again.
 */
final class FailureInjection {
  /** The daemon's log: its lines tell one worker's story, as an operator reads it. */
  private static final Logger log = LoggerFactory.getLogger(WorkerDaemon.class);
  /** How often a crash file is looked at (see {@link WorkerConfig#crashFile}). */
  static final long CRASH_POLL_MILLIS = 20;

  private final WorkerConfig config;
  private final EventLoopGroup group;
  private final WorkerLifecycle life;
  private final ChunkRunner runner;
  private final Outbox outbox;
  private final MasterDialer dialer;

  FailureInjection(WorkerConfig config, EventLoopGroup group, WorkerLifecycle life, ChunkRunner runner, Outbox outbox,
      MasterDialer dialer) {
    this.config = config;
    this.group = group;
    this.life = life;
    this.runner = runner;
    this.outbox = outbox;
    this.dialer = dialer;
  }

  /** Schedules the configured outages, or the watch of the crash file, if any; the clock starts at {@code startNanos}. */
  void schedule(long startNanos) {
    if (config.interrupt() != null) {
      for (double[] o : config.interrupt().outages(config.interruptSeed(), config.workerId(), 30 * 86400.0)) {
        group.schedule(this::interrupt, delay(startNanos, o[0]), TimeUnit.NANOSECONDS);
        if (Double.isFinite(o[1])) {
          group.schedule(this::recover, delay(startNanos, o[1]), TimeUnit.NANOSECONDS);
        }
      }
      long startedAt = System.currentTimeMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
      log.info("failure injection: {}, seed {}, clock started at {} ms", config.interrupt(), config.interruptSeed(),
          startedAt);
      config.events().failureClockStarted(startedAt);
    }
    if (config.crashFile() != null) {
      Path file = config.crashFile();
      group.scheduleAtFixedRate(() -> {
        boolean down = Files.exists(file);
        if (down && life.live()) {
          log.warn("failure injection: {} exists", file);
          interrupt();
        } else if (!down) {
          recover();
        }
      }, CRASH_POLL_MILLIS, CRASH_POLL_MILLIS, TimeUnit.MILLISECONDS);
      log.info("failure injection: down while {} exists (looked at every {} ms)", file, CRASH_POLL_MILLIS);
    }
  }

  private static long delay(long startNanos, double seconds) {
    return Math.max(0, startNanos + (long) (seconds * 1e9) - System.nanoTime());
  }

  /** Dies without draining (what it had not reported is lost) and stays away. */
  private void interrupt() {
    if (!life.interrupted()) {
      return;
    }
    log.warn("failure injection: this worker goes down now");
    config.events().wentDown(System.currentTimeMillis());
    runner.cancelAll();
    outbox.clear();
    // the session, or the one being set up
    dialer.drop();
  }

  /** The outage is over; connect again. */
  private void recover() {
    if (life.recovered()) {
      log.warn("failure injection: this worker comes back");
      dialer.connect();
    }
  }
}
