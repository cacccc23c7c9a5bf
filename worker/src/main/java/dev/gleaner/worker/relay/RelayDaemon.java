package dev.gleaner.worker.relay;

import dev.gleaner.common.time.Backoff;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Framing;
import dev.gleaner.protocol.Messages;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay: its own session upward ({@link Uplink}), and a {@link Pipe} for each peer below it.
 *
 * <p>It dials its upstreams as a worker does (the first; one that cannot be reached, or closes
 * before its Welcome, sends it on to the next; a session that worked is dialled again where it was
 * first). A peer that connects while it has no session is closed at once, so that the peer moves on
 * along its own list; the peers' connections go to the upstream its session is on.
 */
public final class RelayDaemon implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RelayDaemon.class);

  private final RelayConfig config;
  private final EventLoopGroup boss = new NioEventLoopGroup(1);
  private final EventLoopGroup group = new NioEventLoopGroup();
  private final Backoff backoff;
  private final Bootstrap uplinks;
  private final Set<Channel> below = ConcurrentHashMap.newKeySet();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile Channel server;
  private volatile Channel uplink;
  /** The upstream dialled now, an index into the config's list. */
  private volatile int current;
  private volatile boolean welcomed;
  /** Its session id while its session is up, else null. */
  private volatile String session;
  private volatile boolean stopping;
  private volatile String fatal;
  /** The input files it holds; null: none. */
  private final HeldInput held;

  private RelayDaemon(RelayConfig config, HeldInput held) {
    this.config = config;
    this.held = held;
    this.backoff = new Backoff(config.backoffInitial(), config.backoffCap(), new SplittableRandom());
    this.uplinks = new Bootstrap().group(group).channel(NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
        .handler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            if (config.up() != null) {
              InetSocketAddress at = upstream();
              ch.pipeline().addLast("tls", config.up().newHandler(ch.alloc(), at.getHostString(), at.getPort()));
            }
            Framing.install(ch.pipeline(), config.maxFrameBytes());
            ch.pipeline().addLast("uplink", new Uplink(RelayDaemon.this, config));
          }
        });
  }

  /** Listens on the config's address and dials its first upstream. */
  public static RelayDaemon start(RelayConfig config) throws InterruptedException, IOException {
    HeldInput held = config.serve() == null ? null : HeldInput.read(config.serve());
    RelayDaemon d = new RelayDaemon(config, held);
    if (held != null) {
      // a file withdrawn (changed on disk): the master hears what the relay offers now
      held.onChange(() -> {
        Channel up = d.uplink;
        if (up != null && d.session != null) {
          up.writeAndFlush(held.announcement());
        }
      });
    }
    try {
      d.server = new ServerBootstrap().group(d.boss, d.group).channel(NioServerSocketChannel.class)
          .childOption(ChannelOption.TCP_NODELAY, true)
          .childOption(ChannelOption.AUTO_READ, false)
          .childHandler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
              d.below.add(ch);
              ch.closeFuture().addListener(f -> d.below.remove(ch));
              if (config.down() != null) {
                // the peer's TLS ends here; the relay's own to the master carries its frames up
                ch.pipeline().addLast("tls", config.down().newHandler(ch.alloc()));
              }
              ch.pipeline().addLast("pipe", Pipe.below(d, config.bufferBytes()));
            }
          })
          .bind(config.bind()).sync().channel();
    } catch (RuntimeException | InterruptedException e) {
      d.shutdownGroups();
      throw e;
    }
    log.info("relay {} listening on {}{}, upstreams {}", config.id(), d.address(), config.down() == null ? ""
        : " (TLS)", names(config.upstreams()));
    d.dial();
    return d;
  }

  /** Where it listens. */
  public InetSocketAddress address() {
    return (InetSocketAddress) server.localAddress();
  }

  /** Its session id while its session is up, else null. */
  String session() {
    return session;
  }

  String id() {
    return config.id();
  }

  /** The input files it holds; null: none. */
  HeldInput held() {
    return held;
  }

  int maxFrameBytes() {
    return config.maxFrameBytes();
  }

  /** TLS to its upstreams; null: clear text. */
  dev.gleaner.protocol.tls.ClientTls upTls() {
    return config.up();
  }

  /** The upstream its session is on (or is being dialled). */
  InetSocketAddress upstream() {
    return config.upstreams().get(current);
  }

  /** The connections of peers below it now. */
  public int peersBelow() {
    return below.size();
  }

  /** Whether its own session is up. */
  public boolean loggedIn() {
    return session != null;
  }

  EventLoopGroup group() {
    return group;
  }

  private void dial() {
    if (stopping) {
      return;
    }
    InetSocketAddress at = upstream();
    welcomed = false;
    uplinks.connect(at.getHostString(), at.getPort()).addListener((ChannelFutureListener) f -> {
      if (!f.isSuccess()) {
        String was = name(at);
        moveOn();
        Duration wait = backoff.next();
        log.info("upstream {} is unreachable ({}); dialling {} in {} ms", was,
            f.cause() == null ? "?" : f.cause().getMessage(), name(upstream()), wait.toMillis());
        later(wait);
      } else {
        uplink = f.channel();
      }
    });
  }

  private void moveOn() {
    current = (current + 1) % config.upstreams().size();
  }

  private void later(Duration wait) {
    if (!stopping && !group.isShuttingDown()) {
      group.schedule(this::dial, wait.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** Its session was welcomed: peers below may connect through it now. */
  void welcomed(String sessionId) {
    welcomed = true;
    session = sessionId;
    log.info("relay {} logged in at {} (session {})", config.id(), name(upstream()), sessionId);
  }

  /** Its upstream answered a heartbeat: the next loss dials again quickly. */
  void answered() {
    backoff.reset();
  }

  /**
   * Its session is gone. The peers' connections stay as long as theirs do (each is a connection of
   * its own, and the master checked its Via when it came); new ones wait for the next session.
   */
  void lost(String why) {
    session = null;
    if (stopping || fatal != null) {
      // stopping, or about to (a refusal or a certificate it can never take): nothing to dial again
      return;
    }
    String was = name(upstream());
    if (!welcomed) {
      moveOn();
    }
    Duration wait = backoff.next();
    log.warn("relay {} lost its session at {} ({}); dialling {} in {} ms", config.id(), was, why, name(upstream()),
        wait.toMillis());
    later(wait);
  }

  /** The upstream refused it for good (its credential, its version): it stops, saying why. */
  void refused(Error e) {
    if (e.getCode() == Error.Code.AUTH_FAILED || e.getCode() == Error.Code.VERSION_MISMATCH
        || e.getCode() == Error.Code.TLS_REQUIRED) {
      stopFor(e.getMessage(), "the upstream refused it: " + e.getMessage());
    } else {
      log.warn("relay {}: the upstream closed its session: {}", config.id(), e.getMessage());
    }
  }

  /** The upstream it dials now, as host:port. */
  String upstreamName() {
    return name(upstream());
  }

  /**
   * TLS with its upstream failed. A certificate untrusted, expired or for another host is the same
   * next time: with no other upstream on its list it stops, saying why; otherwise it dials the next.
   */
  void tlsFailed(dev.gleaner.protocol.tls.TlsProblem problem) {
    if (problem.permanent() && config.upstreams().size() == 1) {
      stopFor(problem.message(), problem.message());
    } else {
      log.warn("relay {}: {}", config.id(), problem.message());
    }
  }

  /** It stops on its own for {@code why} (what {@link #fatalError} says), logging {@code logged}. */
  private void stopFor(String why, String logged) {
    fatal = why;
    log.error("relay {}: {}", config.id(), logged);
    // not on this event loop: stopping waits for the loops to end
    new Thread(this::stop, "gleaner-relay-stop").start();
  }

  /** Why it stopped on its own (a refusal it cannot mend), or null. */
  public String fatalError() {
    return fatal;
  }

  /** Waits until it stopped, at most {@code max}; whether it did. */
  public boolean awaitStop(Duration max) throws InterruptedException {
    return stopped.await(max.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Says goodbye upward, closes every connection and stops. */
  public void stop() {
    if (stopping) {
      return;
    }
    stopping = true;
    Channel up = uplink;
    if (up != null && up.isActive()) {
      up.writeAndFlush(Messages.goodbye("relay " + config.id() + " is stopping"))
          .addListener(ChannelFutureListener.CLOSE).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
    for (Channel c : List.copyOf(below)) {
      c.close();
    }
    shutdownGroups();
    stopped.countDown();
    log.info("relay {} stopped", config.id());
  }

  private void shutdownGroups() {
    boss.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    stop();
  }

  static String name(InetSocketAddress a) {
    return a.getHostString() + ":" + a.getPort();
  }

  private static String names(List<InetSocketAddress> all) {
    return String.join(", ", all.stream().map(RelayDaemon::name).toList());
  }
}
