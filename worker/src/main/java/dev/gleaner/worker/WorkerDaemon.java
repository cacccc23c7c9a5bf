package dev.gleaner.worker;

import dev.gleaner.protocol.Availability;
import dev.gleaner.protocol.Error;
import dev.gleaner.worker.owner.OwnerPolicy;
import dev.gleaner.worker.owner.OwnerWatch;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker daemon: calibrates, connects, computes what it is given, and reconnects with capped,
 * jittered exponential backoff whenever the master goes away. A master that refuses this worker
 * for a reason retrying cannot fix (wrong secret or token, wrong version, a certificate it cannot
 * trust) stops it with that reason.
 *
 * <p>Layout: this class starts the daemon, drains and stops it, and is what each connection's
 * {@link MasterLink} reports to; connecting with backoff is {@link MasterDialer}, the owner's moves
 * (vacate, suspend, resume, lend again) {@link OwnerMoves}, failure injection
 * {@link FailureInjection}, and its state and the moves between states {@link WorkerLifecycle}.
 */
public final class WorkerDaemon implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WorkerDaemon.class);

  /** The daemon's life. */
  public enum State {
    /** Trying to reach the master. */
    CONNECTING,
    /** Authenticated and taking work. */
    CONNECTED,
    /** Reporting what it has and leaving. */
    DRAINING,
    /** Down on purpose (failure injection): disconnected, computing nothing, until its outage ends. */
    INTERRUPTED,
    /** Stopped for good. */
    STOPPED
  }

  private final WorkerConfig config;
  private final EventLoopGroup group;
  private final boolean ownsGroup;
  private final ChunkRunner runner;
  private final WorkerCounters counters = new WorkerCounters();
  private final Outbox outbox = new Outbox(counters);
  private final WorkerLifecycle life = new WorkerLifecycle();
  private final MasterDialer dialer;
  private final OwnerMoves moves;
  private final FailureInjection injection;
  private final CountDownLatch stopped = new CountDownLatch(1);
  /** This process's instance number: a reconnect replaces its old session, a namesake is refused. */
  private final long instance = new SecureRandom().nextLong() | 1L;
  /** Stops chunks held past their lease while the master is away. */
  private volatile Future<?> expiry;
  private volatile String fatal;
  /** Its owner's policy; null for a computer that is always lent. */
  private final OwnerWatch owner;

  private WorkerDaemon(WorkerConfig config, Map<String, Double> speeds, EventLoopGroup shared) {
    this.config = config;
    this.ownsGroup = shared == null;
    this.group = shared == null ? new NioEventLoopGroup(1) : shared;
    this.runner = new ChunkRunner(config.workloads(), config.cores(), config.slowdown(), config.maxSpeed(), speeds,
        config.maxFrameBytes());
    runner.countComputed(counters.unitsComputed);
    outbox.chunks(new Outbox.Chunks() {
      @Override
      public void cancel(String jobId, long chunkId) {
        runner.cancel(jobId, chunkId);
      }

      @Override
      public void cancelAll() {
        runner.cancelAll();
      }
    });
    this.dialer = new MasterDialer(config, group, life, counters,
        () -> new MasterLink(this, config, runner, speeds, outbox));
    this.moves = new OwnerMoves(config, runner, outbox, counters, life);
    this.owner = config.owner() == null ? null : new OwnerWatch(config.owner(), Clock.systemDefaultZone(), moves);
    this.injection = new FailureInjection(config, group, life, runner, outbox, dialer);
  }

  /** Calibrates this computer and starts connecting; returns at once. */
  public static WorkerDaemon start(WorkerConfig config) {
    return start(config, null);
  }

  /**
   * Like {@link #start(WorkerConfig)}, with the connection on a shared event loop group (many
   * workers embedded in one JVM, as in benchmarks); the group stays open when the daemon stops.
   */
  public static WorkerDaemon start(WorkerConfig config, EventLoopGroup shared) {
    // while it calibrates: the first assignment was read 0.5-0.7 s late on a busy two-core machine
    dev.gleaner.protocol.Messages.warmUpInBackground();
    Map<String, Double> speeds = Calibrator.measure(config.workloads(), config.cores(), config.slowdown(), config.maxSpeed());
    WorkerDaemon d = new WorkerDaemon(config, speeds, shared);
    if (d.owner != null) {
      try {
        // away or taking work, as the owner's policy says before the first connection; then it watches
        d.moves.first(d.owner.first());
        d.owner.start();
      } catch (IllegalArgumentException e) {
        d.stop();
        throw e;
      }
    }
    d.scheduleOwnEnd();
    d.expiry = d.group.scheduleAtFixedRate(() -> d.outbox.expire(System.nanoTime()), 1, 1, TimeUnit.SECONDS);
    d.dialer.connect();
    return d;
  }

  /** Schedules the injected outages and the declared end of availability, if any. */
  private void scheduleOwnEnd() {
    injection.schedule(System.nanoTime());
    if (config.availableUntil() != null) {
      long ms = Math.max(0, config.availableUntil().toEpochMilli() - System.currentTimeMillis());
      group.schedule(() -> drainAsync("its available time is over"), ms, TimeUnit.MILLISECONDS);
    }
  }

  /** What its owner's policy allows now; null when it has none. */
  public OwnerPolicy.State ownerState() {
    return owner == null ? null : owner.state();
  }

  /** How long its last vacate took, from the owner's return to the master being told; null before one. */
  public Duration lastVacate() {
    return moves.lastVacate();
  }

  // ---------------------------------------------------------------- what its connection reports

  /** While the owner's policy keeps it from taking work: what to tell the master; null while it takes work. */
  Availability away() {
    return moves.away();
  }

  /** When this worker will surely be gone (epoch ms): its --available-until or its window's end, the earlier; 0 for none. */
  long declaredUntilMillis() {
    return moves.declaredUntilMillis();
  }

  long instance() {
    return instance;
  }

  /** @return whether the session stands (false: dropped, the worker being down on purpose) */
  boolean connected(MasterLink l) {
    return dialer.connected(l);
  }

  /** How many upstreams it may dial (the master, relays). */
  int upstreams() {
    return config.upstreams().size();
  }

  /** "host:port" of the upstream (the master, or a relay) it dials now. */
  String upstreamName() {
    return dialer.upstreamName();
  }

  /**
   * The master answered a heartbeat: the session works, so the next loss reconnects quickly. (Not at
   * Welcome: a master that refuses the session just after it, such as for a duplicate id, must meet
   * a growing backoff, not a retry every 200 ms.)
   */
  void answered() {
    dialer.answered();
  }

  void disconnected(MasterLink l) {
    dialer.disconnected(l);
  }

  void refused(Error error) {
    log.error("the master refused this worker: {}", error.getMessage());
    if (error.getCode() == Error.Code.AUTH_FAILED || error.getCode() == Error.Code.VERSION_MISMATCH
        || error.getCode() == Error.Code.TLS_REQUIRED) {
      fatal = error.getMessage();
      stop();
    }
  }

  /** Stops for a reason no retry can fix (a certificate the worker cannot trust). */
  void fatal(String why) {
    if (fatal == null) {
      log.error("stopping: {}", why);
      fatal = why;
      stop();
    }
  }

  // ---------------------------------------------------------------- leaving

  void drainAsync(String why) {
    Thread t = new Thread(() -> drain(why), "gleaner-drain");
    t.setDaemon(true);
    t.start();
  }

  /**
   * Reports what has been computed, waits (at most the configured drain timeout) for the master to
   * acknowledge it, says goodbye and stops.
   */
  public void drain(String why) {
    if (!life.draining()) {
      return;
    }
    log.info("draining: {}", why);
    runner.drain();
    MasterLink l = dialer.link();
    if (l != null) {
      l.sendDrain(why);
      long deadline = System.nanoTime() + config.drainTimeout().toNanos();
      while (System.nanoTime() < deadline && (runner.pending() > 0 || l.unacked() > 0) && dialer.link() == l) {
        try {
          TimeUnit.MILLISECONDS.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      if (runner.pending() > 0 || l.unacked() > 0) {
        log.warn("drain timed out with {} chunk(s) running and {} piece(s) unacknowledged; the master will reroute them",
            runner.pending(), l.unacked());
      } else {
        log.info("drained: everything it computed is saved at the master; exiting");
      }
      l.goodbye(why);
    } else {
      log.info("drained with no master connected (what it had not reported is computed elsewhere); exiting");
    }
    stop();
  }

  /** Stops at once; the master reroutes whatever was unfinished. */
  public void stop() {
    life.stop();
    if (owner != null) {
      owner.close();
    }
    Future<?> e = expiry;
    if (e != null) {
      e.cancel(false);
    }
    runner.close();
    if (ownsGroup) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    } else {
      MasterLink l = dialer.link();
      if (l != null) {
        l.goodbye("stopped");
      }
    }
    stopped.countDown();
  }

  /** What it has done since it started. */
  public WorkerCounters counters() {
    return counters;
  }

  /** Pieces computed and not yet acknowledged by the master. */
  public int unacknowledgedPieces() {
    return outbox.unacked();
  }

  /** Chunks running or waiting for input here. */
  public int chunksRunning() {
    return runner.pending();
  }

  public State state() {
    return life.get();
  }

  /** Waits for the daemon to stop; true if it did within the time. */
  public boolean awaitStop(Duration max) throws InterruptedException {
    return stopped.await(max.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Why the master refused this worker for good, or null. */
  public String fatalError() {
    return fatal;
  }

  @Override
  public void close() {
    stop();
  }

  /** This computer's name, as a Hello tells it. */
  public static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      return "unknown-host";
    }
  }
}
