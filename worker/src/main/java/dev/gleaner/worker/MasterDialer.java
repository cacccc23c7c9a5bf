package dev.gleaner.worker;

import dev.gleaner.common.time.Backoff;
import dev.gleaner.protocol.Framing;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.traffic.ChannelTrafficShapingHandler;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connecting to the master, and again with capped, jittered exponential backoff whenever it cannot
 * be reached or the session is lost; the whole pipeline of a connection in one place.
 *
 * <p>The backoff starts again only once the master has answered a heartbeat, not at its Welcome: a
 * master that refuses the session just after it (a duplicate id) meets a growing wait.
 *
 * <p>With several upstreams (relays, the master: {@code --master A,B,...}) it dials the first; one
 * that cannot be reached, or that closes the connection before its Welcome (a relay whose own
 * upstream is gone), sends it on to the next, round the list. After a session that worked and was
 * lost it starts again at the head of the list (its relay, back after a restart, is preferred).
 */
final class MasterDialer {
  /** The daemon's log: its lines tell one worker's story, as an operator reads it. */
  private static final Logger log = LoggerFactory.getLogger(WorkerDaemon.class);

  private final WorkerConfig config;
  private final EventLoopGroup group;
  private final WorkerLifecycle life;
  private final WorkerCounters counters;
  private final Backoff backoff;
  private final Bootstrap bootstrap;
  private volatile MasterLink link;
  private final java.util.List<java.net.InetSocketAddress> upstreams;
  /** The upstream dialled now, an index into {@link #upstreams}. */
  private volatile int current;
  /** Whether the link of the current connection got its Welcome. */
  private volatile boolean welcomed;
  /** The connection of the last dial, from its first byte on (being set up, or a session); null before one. */
  private volatile Channel dialed;

  /** {@code links} makes the handler of each new connection. */
  MasterDialer(WorkerConfig config, EventLoopGroup group, WorkerLifecycle life, WorkerCounters counters,
      Supplier<MasterLink> links) {
    this.config = config;
    this.group = group;
    this.life = life;
    this.counters = counters;
    this.backoff = new Backoff(config.backoffInitial(), config.backoffCap(), new SplittableRandom());
    this.upstreams = config.upstreams();
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
              java.net.InetSocketAddress at = upstream();
              ch.pipeline().addLast("tls", config.tls().newHandler(ch.alloc(), at.getHostString(), at.getPort()));
            }
            Framing.install(ch.pipeline(), config.maxFrameBytes(), true);
            ch.pipeline().addLast("master", links.get());
          }
        });
    if (config.receiveBytesPerSecond() > 0) {
      // a small kernel buffer, so the limit shows at the master at once instead of after megabytes
      bootstrap.option(ChannelOption.SO_RCVBUF, 64 * 1024);
    }
  }

  /** The session's link, or null while there is none. */
  MasterLink link() {
    return link;
  }

  /** The upstream it dials now. */
  java.net.InetSocketAddress upstream() {
    return upstreams.get(current);
  }

  /** "host:port" of the upstream it dials now. */
  String upstreamName() {
    java.net.InetSocketAddress at = upstream();
    return at.getHostString() + ":" + at.getPort();
  }

  /**
   * Connects unless the daemon is down on purpose or leaving, or a connection of its last dial is still
   * open (its end dials again); retries after the backoff's wait if it fails. One connection at a time:
   * two sessions of one worker take the id from each other, each loss dialing again.
   */
  void connect() {
    Channel open = dialed;
    if (open != null && open.isOpen()) {
      return;
    }
    if (!life.connecting()) {
      return;
    }
    java.net.InetSocketAddress at = upstream();
    welcomed = false;
    ChannelFuture dial = bootstrap.connect(at.getHostString(), at.getPort());
    dialed = dial.channel();
    dial.addListener(f -> {
      if (!f.isSuccess()) {
        Duration wait = backoff.next();
        String was = upstreamName();
        moveOn();
        log.info("{} {} is unreachable ({}); retrying{} in {} ms", upstreams.size() > 1 ? "upstream" : "master", was,
            f.cause() == null ? "?" : f.cause().getMessage(),
            upstreams.size() > 1 ? " with " + upstreamName() : "", wait.toMillis());
        scheduleConnect(wait);
      }
    });
  }

  /** The next upstream in the list, round it. */
  private void moveOn() {
    current = (current + 1) % upstreams.size();
  }

  private void scheduleConnect(Duration wait) {
    if (!life.stopped() && !group.isShuttingDown()) {
      group.schedule(this::connect, wait.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * A session began on {@code l}; whether it stands. One that was being set up when an injected outage
   * took the worker down is dropped: the worker is down, and when the outage ends it connects again, so
   * the session kept would have had a second one beside it, each taking the id from the other as it
   * reconnects (one worker was seen doing so for minutes, all through the jobs).
   */
  boolean connected(MasterLink l) {
    if (life.get() == WorkerDaemon.State.INTERRUPTED) {
      log.info("a session came up while the worker was down (failure injection): dropped");
      l.drop();
      return false;
    }
    counters.connects.increment();
    link = l;
    welcomed = true;
    life.connected();
    log.info("worker {} connected to {} {}", config.workerId(), upstreams.size() > 1 ? "upstream" : "master",
        upstreamName());
    return true;
  }

  /** Closes the connection of the last dial, a session or one being set up, abruptly: to the master, a lost worker. */
  void drop() {
    Channel c = dialed;
    if (c != null) {
      c.close();
    }
  }

  /** The master answered a heartbeat: the session works, so the next loss reconnects quickly. */
  void answered() {
    backoff.reset();
  }

  void disconnected(MasterLink l) {
    if (link == l) {
      link = null;
      counters.disconnects.increment();
    } else if (link != null) {
      // an older session than the current one: it reconnects nothing (another loop would dial beside the one
      // that keeps the current session)
      return;
    }
    if (life.lost()) {
      Duration wait = backoff.next();
      String was = upstreamName();
      if (!welcomed) {
        // closed before its Welcome: a relay that cannot reach its own upstream, a master refusing
        moveOn();
      } else {
        current = 0;
      }
      log.warn("lost the {} at {}; reconnecting{} in {} ms", upstreams.size() > 1 ? "upstream" : "master", was,
          was.equals(upstreamName()) ? "" : " to " + upstreamName(), wait.toMillis());
      scheduleConnect(wait);
    }
  }
}
