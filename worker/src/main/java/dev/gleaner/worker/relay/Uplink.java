package dev.gleaner.worker.relay;

import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Heartbeat;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.ProtocolVersion;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.WireException;
import dev.gleaner.worker.WorkerDaemon;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A relay's own session: the handshake as RELAY with its own credential, then heartbeats at the
 * interval its Welcome asks for; a session silent past the Welcome's timeout is closed and dialled
 * again. It carries nothing else: the peers' traffic goes on connections of their own.
 */
final class Uplink extends SimpleChannelInboundHandler<Envelope> {
  private static final Logger log = LoggerFactory.getLogger(Uplink.class);
  /** How long the upstream has to complete the handshake. */
  private static final long HANDSHAKE_SECONDS = 30;

  private enum Phase { AWAIT_CHALLENGE, AWAIT_WELCOME, READY }

  private final RelayDaemon daemon;
  private final RelayConfig config;
  private Phase phase = Phase.AWAIT_CHALLENGE;
  private ScheduledFuture<?> heartbeats;
  private long seq;
  private volatile long lastHeardNanos = System.nanoTime();
  private String closedBecause = "connection closed";

  Uplink(RelayDaemon daemon, RelayConfig config) {
    this.daemon = daemon;
    this.config = config;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    Hello.Builder hello = Hello.newBuilder().setProtocolVersion(ProtocolVersion.CURRENT).setRole(Role.RELAY)
        .setPeerId(config.id()).setHost(WorkerDaemon.hostName()).setCredential(config.credential().kind())
        .setTokenGeneration(config.credential().generation());
    ctx.writeAndFlush(Envelope.newBuilder().setHello(hello).build());
    ctx.executor().schedule(() -> {
      if (phase != Phase.READY && ctx.channel().isActive()) {
        close(ctx, "no complete handshake within " + HANDSHAKE_SECONDS + " s");
      }
    }, HANDSHAKE_SECONDS, TimeUnit.SECONDS);
    ctx.fireChannelActive();
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Envelope msg) {
    lastHeardNanos = System.nanoTime();
    if (msg.hasError()) {
      closedBecause = "refused: " + msg.getError().getMessage();
      daemon.refused(msg.getError());
      ctx.close();
      return;
    }
    switch (phase) {
      case AWAIT_CHALLENGE -> {
        if (!msg.hasChallenge()) {
          close(ctx, "expected a challenge, got " + msg.getBodyCase());
          return;
        }
        if (msg.getChallenge().getProtocolVersion() != ProtocolVersion.CURRENT) {
          daemon.refused(Error.newBuilder().setCode(Error.Code.VERSION_MISMATCH)
              .setMessage(ProtocolVersion.mismatch(msg.getChallenge().getProtocolVersion())).build());
          ctx.close();
          return;
        }
        ctx.writeAndFlush(Messages.answer(msg.getChallenge(), config.credential(), Role.RELAY, config.id()));
        phase = Phase.AWAIT_WELCOME;
      }
      case AWAIT_WELCOME -> {
        if (!msg.hasWelcome()) {
          close(ctx, "expected a welcome, got " + msg.getBodyCase());
          return;
        }
        phase = Phase.READY;
        long interval = Math.max(10, msg.getWelcome().getHeartbeatIntervalMs());
        long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(msg.getWelcome().getHeartbeatTimeoutMs());
        heartbeats = ctx.executor().scheduleAtFixedRate(() -> {
          long silent = System.nanoTime() - lastHeardNanos;
          if (timeoutNanos > 0 && silent > timeoutNanos) {
            close(ctx, "nothing heard for " + TimeUnit.NANOSECONDS.toMillis(silent) + " ms");
            return;
          }
          ctx.writeAndFlush(Envelope.newBuilder().setHeartbeat(Heartbeat.newBuilder().setSeq(++seq)
              .setSentAtMillis(System.currentTimeMillis())).build());
        }, interval, interval, TimeUnit.MILLISECONDS);
        daemon.welcomed(msg.getWelcome().getSessionId());
        if (daemon.held() != null) {
          // the master has it send the input it holds to the workers behind it
          ctx.writeAndFlush(daemon.held().announcement());
        }
      }
      case READY -> {
        switch (msg.getBodyCase()) {
          case HEARTBEAT -> daemon.answered();
          case DRAIN -> log.info("relay {}: the master asks it to leave ({}); it keeps passing connections until"
              + " stopped", config.id(), msg.getDrain().getReason());
          default -> close(ctx, "unexpected " + msg.getBodyCase() + " on a relay's session");
        }
      }
    }
  }

  private void close(ChannelHandlerContext ctx, String why) {
    closedBecause = why;
    log.warn("relay {}: closing its session: {}", config.id(), why);
    ctx.close();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    dev.gleaner.protocol.tls.TlsProblem tls = dev.gleaner.protocol.tls.TlsProblem.of(cause, daemon.upstreamName());
    if (tls != null) {
      // a certificate the relay does not trust, or one that does not name the host it dialled
      closedBecause = tls.message();
      daemon.tlsFailed(tls);
      ctx.close();
    } else if (cause instanceof WireException w) {
      close(ctx, "bad frame from the upstream: " + w.getMessage());
    } else if (cause instanceof IOException) {
      closedBecause = cause.getMessage();
      ctx.close();
    } else {
      log.error("relay {}: internal error on its session: {}", config.id(), cause.toString(), cause);
      closedBecause = "internal error: " + cause;
      ctx.close();
    }
  }

  /** The TLS failure in {@code cause}'s chain, or null. */
  static javax.net.ssl.SSLException tlsProblem(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause()) {
      if (t instanceof javax.net.ssl.SSLException e) {
        return e;
      }
    }
    return null;
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (heartbeats != null) {
      heartbeats.cancel(false);
    }
    daemon.lost(closedBecause);
    ctx.fireChannelInactive();
  }
}
