package dev.gleaner.worker;

import dev.gleaner.common.time.Backoff;
import dev.gleaner.protocol.Availability;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.worker.owner.OwnerPolicy;
import dev.gleaner.worker.owner.OwnerWatch;
import java.time.Clock;
import java.time.Instant;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Framing;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.traffic.ChannelTrafficShapingHandler;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker daemon: calibrates, connects, computes what it is given, and reconnects with capped,
 * jittered exponential backoff whenever the master goes away. A master that refuses this worker
 * for a reason retrying cannot fix (wrong secret or token, wrong version, a certificate it cannot
 * trust) stops it with that reason.
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
  private final Backoff backoff;
  private final Bootstrap bootstrap;
  private final CountDownLatch stopped = new CountDownLatch(1);
  /** This process's instance number: a reconnect replaces its old session, a namesake is refused. */
  private final long instance = new java.security.SecureRandom().nextLong() | 1L;
  private volatile MasterLink link;
  /** Stops chunks held past their lease while the master is away. */
  private volatile java.util.concurrent.Future<?> expiry;
  private volatile State state = State.CONNECTING;
  private volatile String fatal;
  /** Its owner's policy; null for a computer that is always lent. */
  private final OwnerWatch owner;
  /** While the owner's policy keeps it from taking work: what its Hello says; null while it takes work. */
  private volatile Availability away;
  /** When its current availability window ends (epoch ms); 0 for none. */
  private volatile long windowEndMillis;
  /** How long its last vacate took, from the owner's return to the master being told; null before one. */
  private volatile Duration lastVacate;

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
    this.backoff = new Backoff(config.backoffInitial(), config.backoffCap(), new SplittableRandom());
    this.owner = config.owner() == null ? null : new OwnerWatch(config.owner(), Clock.systemDefaultZone(), new OwnerMoves());
    this.bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
        // chunk input streams through as slices of the buffers it is read into (no copy): read big while
        // it streams, but no bigger than a MiB, so that a read buffer is a part of one of the pool's 4 MiB
        // chunks (a buffer of a whole chunk was zeroed anew for each read: twice the CPU per GiB)
        .option(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(4096, 64 * 1024, 1 << 20))
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            if (config.receiveBytesPerSecond() > 0) {
              // a thin link: read no faster than this, so TCP flow control slows the master's sends
              ch.pipeline().addLast("thin-link", new ChannelTrafficShapingHandler(0, config.receiveBytesPerSecond(), 100));
            }
            if (config.tls() != null) {
              ch.pipeline().addLast("tls", config.tls().newHandler(ch.alloc(), config.host(), config.port()));
            }
            Framing.install(ch.pipeline(), config.maxFrameBytes(), true);
            ch.pipeline().addLast("master", new MasterLink(WorkerDaemon.this, config, runner, speeds, outbox));
          }
        });
    if (config.receiveBytesPerSecond() > 0) {
      // a small kernel buffer, so the limit shows at the master at once instead of after megabytes
      bootstrap.option(ChannelOption.SO_RCVBUF, 64 * 1024);
    }
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
    Map<String, Double> speeds = Calibrator.measure(config.workloads(), config.cores(), config.slowdown(), config.maxSpeed());
    WorkerDaemon d = new WorkerDaemon(config, speeds, shared);
    if (d.owner != null) {
      try {
        d.firstLookAtTheOwner();
      } catch (IllegalArgumentException e) {
        d.stop();
        throw e;
      }
    }
    d.scheduleOwnEnd();
    d.expiry = d.group.scheduleAtFixedRate(() -> d.outbox.expire(System.nanoTime()), 1, 1, TimeUnit.SECONDS);
    d.connect();
    return d;
  }

  /** Starts away or taking work, as the owner's policy says before the first connection; then watches. */
  private void firstLookAtTheOwner() {
    OwnerPolicy.Step first = owner.first();
    if (first.to() == OwnerPolicy.State.AWAY) {
      runner.vacate();
      away = availability(false, first.reason(), first.backAt());
      log.info("taking no work for now: {}{}", first.reason(), first.backAt() == null ? "" : "; at the earliest at "
          + first.backAt());
    } else {
      windowEndMillis = first.until() == null ? 0 : first.until().toEpochMilli();
      log.info("taking work: {}{}", first.reason(), first.until() == null ? "" : ", until " + first.until());
    }
    owner.start();
  }

  private static Availability availability(boolean available, String reason, Instant at) {
    Availability.Builder a = Availability.newBuilder().setAvailable(available).setReason(reason);
    if (at != null) {
      if (available) {
        a.setUntilMillis(at.toEpochMilli());
      } else {
        a.setBackAtMillis(at.toEpochMilli());
      }
    }
    return a.build();
  }

  /** What the owner's policy decides, carried out (on the policy's thread). */
  private final class OwnerMoves implements OwnerWatch.Moves {
    @Override
    public void vacate(String reason, Instant backAt) {
      if (state == State.STOPPED || state == State.DRAINING) {
        return;
      }
      long t0 = System.nanoTime();
      long grace = config.owner().vacateGrace().toNanos();
      runner.vacate();
      // the running chunk reports up to its current step (a checkpoint for input, its piece for exec)
      while (runner.pending() > 0 && System.nanoTime() - t0 < grace) {
        try {
          TimeUnit.MILLISECONDS.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      boolean late = runner.pending() > 0;
      if (late) {
        runner.cancelAll();
      }
      Availability a = availability(false, reason, backAt);
      away = a;
      windowEndMillis = 0;
      // after every piece reported above, on the same connection: the master commits them first
      boolean told = outbox.send(Envelope.newBuilder().setAvailability(a).build());
      Duration took = Duration.ofNanos(System.nanoTime() - t0);
      lastVacate = took;
      counters.vacates.increment();
      log.info("vacated in {} ms (grace {} ms): {}{}{}", took.toMillis(), config.owner().vacateGrace().toMillis(), reason,
          late ? "; the running chunk did not reach a checkpoint within the grace and was stopped (its unsaved units"
              + " go to others)" : "", told ? "" : "; the master hears it when this worker connects");
    }

    @Override
    public void suspend(String reason) {
      runner.suspend();
      log.info("computing paused: {}", reason);
    }

    @Override
    public void resume(String reason) {
      runner.resume();
      log.info("computing again: {}", reason);
    }

    @Override
    public void available(String reason, Instant until) {
      if (state == State.STOPPED || state == State.DRAINING) {
        return;
      }
      windowEndMillis = until == null ? 0 : until.toEpochMilli();
      away = null;
      runner.resume();
      long declared = declaredUntilMillis();
      boolean told = outbox.send(Envelope.newBuilder().setAvailability(availability(true, reason,
          declared > 0 ? Instant.ofEpochMilli(declared) : null)).build());
      log.info("taking work: {}{}{}", reason, declared > 0 ? ", until " + Instant.ofEpochMilli(declared) : "",
          told ? "" : "; the master hears it when this worker connects");
    }
  }

  /** While the owner's policy keeps it from taking work: what to tell the master; null while it takes work. */
  Availability away() {
    return away;
  }

  /** When this worker will surely be gone (epoch ms): its --available-until or its window's end, the earlier; 0 for none. */
  long declaredUntilMillis() {
    long until = config.availableUntil() == null ? 0 : config.availableUntil().toEpochMilli();
    long window = windowEndMillis;
    return until == 0 ? window : window == 0 ? until : Math.min(until, window);
  }

  /** What its owner's policy allows now; null when it has none. */
  public OwnerPolicy.State ownerState() {
    return owner == null ? null : owner.state();
  }

  /** How long its last vacate took, from the owner's return to the master being told; null before one. */
  public Duration lastVacate() {
    return lastVacate;
  }

  /** Schedules the injected outages and the declared end of availability, if any. */
  private void scheduleOwnEnd() {
    long start = System.nanoTime();
    if (config.interrupt() != null) {
      for (double[] o : config.interrupt().outages(config.interruptSeed(), config.workerId(), 30 * 86400.0)) {
        group.schedule(this::interrupt, delay(start, o[0]), TimeUnit.NANOSECONDS);
        if (Double.isFinite(o[1])) {
          group.schedule(this::recover, delay(start, o[1]), TimeUnit.NANOSECONDS);
        }
      }
      log.info("failure injection: {}, seed {}, clock started at {} ms", config.interrupt(), config.interruptSeed(),
          System.currentTimeMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }
    if (config.crashFile() != null) {
      java.nio.file.Path file = config.crashFile();
      group.scheduleAtFixedRate(() -> {
        boolean down = java.nio.file.Files.exists(file);
        if (down && (state == State.CONNECTED || state == State.CONNECTING)) {
          log.warn("failure injection: {} exists", file);
          interrupt();
        } else if (!down) {
          recover();
        }
      }, CRASH_POLL_MILLIS, CRASH_POLL_MILLIS, TimeUnit.MILLISECONDS);
      log.info("failure injection: down while {} exists (looked at every {} ms)", file, CRASH_POLL_MILLIS);
    }
    if (config.availableUntil() != null) {
      long ms = Math.max(0, config.availableUntil().toEpochMilli() - System.currentTimeMillis());
      group.schedule(() -> drainAsync("its available time is over"), ms, TimeUnit.MILLISECONDS);
    }
  }

  /** How often a crash file is looked at (see {@link WorkerConfig#crashFile}). */
  static final long CRASH_POLL_MILLIS = 20;

  private static long delay(long startNanos, double seconds) {
    return Math.max(0, startNanos + (long) (seconds * 1e9) - System.nanoTime());
  }

  /** Failure injection: dies without draining (what it had not reported is lost) and stays away. */
  private void interrupt() {
    if (state != State.CONNECTED && state != State.CONNECTING) {
      return;
    }
    state = State.INTERRUPTED;
    log.warn("failure injection: this worker goes down now");
    runner.cancelAll();
    outbox.clear();
    MasterLink l = link;
    if (l != null) {
      l.drop();
    }
  }

  /** Failure injection: the outage is over; connect again. */
  private void recover() {
    if (state == State.INTERRUPTED) {
      log.warn("failure injection: this worker comes back");
      state = State.CONNECTING;
      connect();
    }
  }

  private void connect() {
    if (state == State.STOPPED || state == State.DRAINING || state == State.INTERRUPTED) {
      return;
    }
    state = State.CONNECTING;
    bootstrap.connect(config.host(), config.port()).addListener(f -> {
      if (!f.isSuccess()) {
        Duration wait = backoff.next();
        log.info("master at {}:{} is unreachable ({}); retrying in {} ms", config.host(), config.port(),
            f.cause() == null ? "?" : f.cause().getMessage(), wait.toMillis());
        scheduleConnect(wait);
      }
    });
  }

  private void scheduleConnect(Duration wait) {
    if (state != State.STOPPED && !group.isShuttingDown()) {
      group.schedule(this::connect, wait.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  void connected(MasterLink l) {
    counters.connects.increment();
    link = l;
    if (state == State.CONNECTING) {
      state = State.CONNECTED;
    }
    log.info("worker {} connected to master {}:{}", config.workerId(), config.host(), config.port());
  }

  /**
   * The master answered a heartbeat: the session works, so the next loss reconnects quickly. (Not at
   * Welcome: a master that refuses the session just after it, such as for a duplicate id, must meet
   * a growing backoff, not a retry every 200 ms.)
   */
  void answered() {
    backoff.reset();
  }

  void disconnected(MasterLink l) {
    if (link == l) {
      link = null;
      counters.disconnects.increment();
    }
    if (state == State.CONNECTED || state == State.CONNECTING) {
      Duration wait = backoff.next();
      log.warn("lost the master at {}:{}; reconnecting in {} ms", config.host(), config.port(), wait.toMillis());
      state = State.CONNECTING;
      scheduleConnect(wait);
    }
  }

  long instance() {
    return instance;
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
    if (state == State.STOPPED || state == State.DRAINING) {
      return;
    }
    state = State.DRAINING;
    log.info("draining: {}", why);
    runner.drain();
    MasterLink l = link;
    if (l != null) {
      l.sendDrain(why);
      long deadline = System.nanoTime() + config.drainTimeout().toNanos();
      while (System.nanoTime() < deadline && (runner.pending() > 0 || l.unacked() > 0) && link == l) {
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
    state = State.STOPPED;
    if (owner != null) {
      owner.close();
    }
    java.util.concurrent.Future<?> e = expiry;
    if (e != null) {
      e.cancel(false);
    }
    runner.close();
    if (ownsGroup) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    } else {
      MasterLink l = link;
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
    return state;
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

  static String hostName() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      return "unknown-host";
    }
  }
}
