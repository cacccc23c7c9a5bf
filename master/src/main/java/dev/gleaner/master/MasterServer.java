package dev.gleaner.master;

import dev.gleaner.common.port.PortRule;
import dev.gleaner.master.loop.ControlLoop;
import dev.gleaner.master.loop.JobService;
import dev.gleaner.master.metrics.MasterMetrics;
import dev.gleaner.master.net.MasterChannelInitializer;
import dev.gleaner.master.status.StatusService;
import dev.gleaner.master.auth.Revocations;
import dev.gleaner.master.store.Store;
import dev.gleaner.protocol.StatusReply;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master daemon: one TCP port for workers and clients, the store, the control loop around the
 * controller, and the heartbeat sweep. {@link #start} binds and resumes stored jobs; {@link #close}
 * stops everything.
 */
public final class MasterServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MasterServer.class);
  /** How often the controller's clock ticks (deadlines, drifting estimates, tails to split). */
  static final long TICK_MILLIS = 250;

  private final MasterConfig config;
  private final MeterRegistry registry;
  private Store store;
  private ControlLoop loop;
  private StatusService status;
  private EventLoopGroup boss;
  private EventLoopGroup workers;
  private Channel server;
  private ScheduledFuture<?> sweeper;
  /** The JVM's garbage collections, counted as they happen (a listener to remove at the close). */
  private io.micrometer.core.instrument.binder.jvm.JvmGcMetrics gc;

  public MasterServer(MasterConfig config) {
    // Prometheus' registry: /metrics scrapes it, and status reads the same meters
    this(config, new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
        io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT));
  }

  public MasterServer(MasterConfig config, MeterRegistry registry) {
    this.config = config;
    this.registry = registry;
  }

  /** Opens the store, resumes unfinished jobs and binds the port. */
  public MasterServer start() throws InterruptedException {
    // a master that cannot start leaves no data folder of its own making behind
    boolean freshDataDir = !java.nio.file.Files.exists(config.dataDir());
    store = new Store(config.dataDir());
    Revocations revocations = new Revocations(store);
    MasterMetrics metrics = new MasterMetrics(registry);
    // the JVM's memory, collections, threads and CPU beside the master's own meters on /metrics
    new io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.system.ProcessorMetrics().bindTo(registry);
    new io.micrometer.core.instrument.binder.system.UptimeMetrics().bindTo(registry);
    gc = new io.micrometer.core.instrument.binder.jvm.JvmGcMetrics();
    gc.bindTo(registry);
    loop = new ControlLoop(store, metrics, config.ticker(), config.control());
    status = new StatusService(loop, TICK_MILLIS / 1000.0, config.control());
    if (config.expectedUpSeconds() > 0) {
      loop.expectUp(config.expectedUpSeconds());
    }
    if (config.expectedDownSeconds() > 0) {
      loop.expectDown(config.expectedDownSeconds());
    }
    JobService jobs;
    try {
      jobs = new JobService(store, loop, config.workloads(), config.serve());
    } catch (IllegalArgumentException e) {
      if (freshDataDir) {
        store.deleteOnClose();
      }
      close();
      throw e;
    }
    jobs.resume();
    MasterChannelInitializer initializer = new MasterChannelInitializer(config, loop, jobs, status, revocations,
        metrics, registry);

    boss = new NioEventLoopGroup(1);
    workers = new NioEventLoopGroup();
    ServerBootstrap b = new ServerBootstrap().group(boss, workers).channel(NioServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(PortRule.WRITTEN_AHEAD_BYTES / 4,
            PortRule.WRITTEN_AHEAD_BYTES))
        .childHandler(initializer);
    try {
      server = b.bind(config.bind()).sync().channel();
    } catch (Exception e) {
      if (freshDataDir) {
        store.deleteOnClose();
      }
      close();
      throw new IllegalStateException("cannot listen on " + config.bind() + ": " + e.getMessage(), e);
    }
    loop.start(TICK_MILLIS);
    // before the first job's messages come (each kind's first use costs a cold JVM a few hundred ms)
    dev.gleaner.protocol.Messages.warmUpInBackground();
    long period = Math.max(10, config.heartbeatInterval().toMillis() / 2);
    sweeper = workers.next().scheduleAtFixedRate(() -> {
      try {
        initializer.sweepSilent();
      } catch (RuntimeException e) {
        log.error("heartbeat sweep failed: {}", e.getMessage(), e);
      }
    }, period, period, TimeUnit.MILLISECONDS);
    log.info("master listening on {} with data in {} ({}; logins: {})", port(), store.file(),
        config.tls() == null ? "clear text" : "TLS" + (config.tls().requiresClientCertificates() ? ", client certificates required" : ""),
        (config.auth().clusterKey() != null ? "tokens" : "") + (config.auth().clusterKey() != null && config.auth().sharedSecret() != null ? " and " : "")
            + (config.auth().sharedSecret() != null ? "shared secret" : ""));
    log.info("web page on http{}://localhost:{}/ ({})", config.tls() == null ? "" : "s", port(),
        config.webFromAnywhere() ? "any address with a client token or the shared secret; loopback without"
            : "loopback addresses only");
    if (config.webFromAnywhere() && config.tls() == null) {
      log.warn("--web-from-anywhere on a clear-text master: the tokens browsers show it cross the network unencrypted;"
          + " use --tls anywhere but a trusted lab network");
    }
    return this;
  }

  /** The store (for fault injection in tests). */
  Store store() {
    return store;
  }

  /** The bound port. */
  public int port() {
    return ((InetSocketAddress) server.localAddress()).getPort();
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** Jobs (all, or the one with this id) and every worker, as {@code gleaner status --all-workers} shows them. */
  public StatusReply status(String jobId) {
    return status.status(jobId == null ? "" : jobId, registry, 0, false, true).join();
  }

  /** Ids of the connected workers. */
  public List<String> liveWorkers() {
    return loop.liveWorkers().join();
  }

  /**
   * Stops everything, each step bounded whatever the load (SIGTERM ends the master within seconds
   * even while its control loop is busy): the loop is told first, without waiting for it, so the
   * sessions about to close are not counted as lost workers; the port and the connections close;
   * the loop gets a second for what it has queued; the store writes what it was given, for a few
   * seconds at most, and closes (nothing acknowledged was ever only in its queue).
   */
  @Override
  public void close() {
    if (sweeper != null) {
      sweeper.cancel(false);
    }
    if (loop != null) {
      loop.stopping();
    }
    if (server != null) {
      server.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
    if (workers != null) {
      workers.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
    if (boss != null) {
      boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
    if (status != null) {
      status.close();
    }
    if (loop != null) {
      loop.close();
    }
    if (store != null) {
      store.close();
    }
    if (gc != null) {
      gc.close();
    }
  }
}
