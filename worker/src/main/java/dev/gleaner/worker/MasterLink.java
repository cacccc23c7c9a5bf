package dev.gleaner.worker;

import dev.gleaner.protocol.DataFrame;
import dev.gleaner.protocol.Drain;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.InputArrived;
import dev.gleaner.protocol.InputPace;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.ProtocolVersion;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.Speed;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.WireException;
import dev.gleaner.protocol.tls.TlsProblem;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's end of one connection: handshake, heartbeats, and routing of assignments, input and
 * acknowledgements to the {@link ChunkRunner}.
 */
final class MasterLink extends SimpleChannelInboundHandler<Envelope> {
  private static final Logger log = LoggerFactory.getLogger(MasterLink.class);
  static final long HANDSHAKE_SECONDS = 30;

  private enum Phase {
    /** Hello sent, waiting for the challenge. */
    AWAIT_CHALLENGE,
    /** Answer sent, waiting for the welcome. */
    AWAIT_WELCOME,
    /** Authenticated: computing. */
    READY
  }

  private final WorkerDaemon daemon;
  private final WorkerConfig config;
  private final ChunkRunner runner;
  private final Map<String, Double> speeds;
  private final Outbox outbox;
  private Phase phase = Phase.AWAIT_CHALLENGE;
  private volatile Channel channel;
  /** The pace input is read at, for the master's word of it (on the event loop only). */
  private final ReadPace pace = new ReadPace();
  /** When to stop reading this connection: one for the input of every chunk assigned over it. */
  private final InputFlow flow = new InputFlow(on -> {
    Channel c = channel;
    if (on) {
      lastHeardNanos = System.nanoTime();
    } else {
      // only the network thread pauses reading (as input arrives)
      pace.paused();
    }
    if (c != null) {
      c.config().setAutoRead(on);
    }
  });
  private ScheduledFuture<?> heartbeats;
  private long heartbeatSeq;
  /** When anything last came from the master (any frame, data included). */
  private volatile long lastHeardNanos = System.nanoTime();
  /** Bytes waiting to be written at the last heartbeat tick (on the event loop only). */
  private long lastPending;

  MasterLink(WorkerDaemon daemon, WorkerConfig config, ChunkRunner runner, Map<String, Double> speeds, Outbox outbox) {
    this.outbox = outbox;
    this.daemon = daemon;
    this.config = config;
    this.runner = runner;
    this.speeds = speeds;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    channel = ctx.channel();
    Hello.Builder hello = Messages.hello(Role.WORKER, config.workerId(), WorkerDaemon.hostName(), config.cores(),
        config.workloads().names()).getHello().toBuilder();
    hello.setInstance(daemon.instance()).setCredential(config.credential().kind())
        .setTokenGeneration(config.credential().generation());
    // chunks computed on while the master was away: the master takes them up or cancels them
    hello.addAllHeld(outbox.claims());
    speeds.forEach((w, s) -> hello.addSpeeds(Speed.newBuilder().setWorkload(w).setUnitsPerSecond(s)));
    if (daemon.declaredUntilMillis() > 0) {
      hello.setAvailableUntilMillis(daemon.declaredUntilMillis());
    }
    if (config.owner() != null && config.owner().onOwner() == dev.gleaner.worker.owner.OwnerConfig.OnOwner.VACATE) {
      hello.setSavesOnVacate(true);
    }
    if (daemon.away() != null) {
      // its owner's policy keeps it from taking work: the master gives it nothing until it says so
      hello.setAway(daemon.away());
    }
    ctx.writeAndFlush(Envelope.newBuilder().setHello(hello).build());
    // a master that accepts the connection but never answers (a stopped process) must not hold us
    ctx.executor().schedule(() -> {
      if (phase != Phase.READY && ctx.channel().isActive()) {
        log.warn("the master did not complete the handshake within {} s; connecting again", HANDSHAKE_SECONDS);
        ctx.close();
      }
    }, HANDSHAKE_SECONDS, TimeUnit.SECONDS);
    ctx.fireChannelActive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    lastHeardNanos = System.nanoTime();
    if (msg instanceof DataFrame d) {
      // chunk input, sliced from the frame without a copy; the runner releases it once consumed
      long size = d.payload().readableBytes();
      daemon.counters().inputBytes.add(size);
      long[] span = pace.read(d.jobId(), d.chunkId(), size, System.nanoTime());
      long[] arrival = runner.data(d.jobId(), d.chunkId(), d.payload().retain(), d.arrivingSince());
      if (arrival != null) {
        arrived(ctx, d.jobId(), d.chunkId(), arrival);
      } else if (span != null) {
        ctx.writeAndFlush(Envelope.newBuilder().setInputPace(InputPace.newBuilder().setJobId(d.jobId())
            .setChunkId(d.chunkId()).setBytes(span[0]).setNanos(span[1])).build(), ctx.voidPromise());
      }
      d.release();
      return;
    }
    super.channelRead(ctx, msg);
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Envelope msg) {
    if (msg.hasError()) {
      daemon.refused(msg.getError());
      ctx.close();
      return;
    }
    switch (phase) {
      case AWAIT_CHALLENGE -> {
        if (!msg.hasChallenge()) {
          protocolError(ctx, "expected a challenge, got " + msg.getBodyCase());
          return;
        }
        if (msg.getChallenge().getProtocolVersion() != ProtocolVersion.CURRENT) {
          daemon.refused(Error.newBuilder().setCode(Error.Code.VERSION_MISMATCH)
              .setMessage(ProtocolVersion.mismatch(msg.getChallenge().getProtocolVersion())).build());
          ctx.close();
          return;
        }
        ctx.writeAndFlush(Messages.answer(msg.getChallenge(), config.credential(), Role.WORKER, config.workerId()));
        phase = Phase.AWAIT_WELCOME;
      }
      case AWAIT_WELCOME -> {
        if (!msg.hasWelcome()) {
          protocolError(ctx, "expected a welcome, got " + msg.getBodyCase());
          return;
        }
        if (!daemon.connected(this)) {
          // the worker went down (failure injection) while this session was being set up
          return;
        }
        phase = Phase.READY;
        // the master's limits on what it receives, not this worker's on what it reads, bound a piece
        // a frame must pass this worker's encoder and the master's decoder: the smaller limit
        int frame = Math.min(config.maxFrameBytes(), msg.getWelcome().getMaxFrameBytes() > 0
            ? msg.getWelcome().getMaxFrameBytes() : config.maxFrameBytes());
        long maxResult = msg.getWelcome().getMaxResultBytes() > 0 ? msg.getWelcome().getMaxResultBytes() : frame;
        runner.maxResultBytes(maxResult);
        long interval = Math.max(10, msg.getWelcome().getHeartbeatIntervalMs());
        long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(msg.getWelcome().getHeartbeatTimeoutMs());
        heartbeats = ctx.executor().scheduleAtFixedRate(() -> {
          // the master is reading what this worker sends (a large piece ahead of the heartbeats): alive
          long pending = pendingBytes(ctx);
          if (pending < lastPending) {
            lastHeardNanos = System.nanoTime();
          }
          lastPending = pending;
          long silent = System.nanoTime() - lastHeardNanos;
          // while this worker has paused reading (its input buffers are full) silence is its own doing
          if (timeoutNanos > 0 && silent > timeoutNanos && ctx.channel().config().isAutoRead()) {
            // a master that vanished without closing (power, cable, a stopped process): connect again
            log.warn("nothing heard from the master for {} ms (its timeout: {} ms); connecting again",
                TimeUnit.NANOSECONDS.toMillis(silent), TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
            ctx.close();
            return;
          }
          // with what it computed so far: the master shows the work between checkpoints too
          ctx.writeAndFlush(dev.gleaner.protocol.Envelope.newBuilder().setHeartbeat(dev.gleaner.protocol.Heartbeat
              .newBuilder().setSeq(++heartbeatSeq).setSentAtMillis(System.currentTimeMillis())
              .setUnitsComputed(daemon.counters().unitsComputed())).build());
        }, interval, interval, TimeUnit.MILLISECONDS);
        outbox.connected(ctx.channel(), frame, maxResult);
      }
      case READY -> onMessage(ctx, msg);
    }
  }

  private void onMessage(ChannelHandlerContext ctx, Envelope msg) {
    switch (msg.getBodyCase()) {
      case ASSIGN -> assign(ctx, msg);
      case DATA -> {
        daemon.counters().inputBytes.add(msg.getData().getPayload().size());
        arrived(ctx, msg.getData().getJobId(), msg.getData().getChunkId(), runner.data(msg.getData().getJobId(),
            msg.getData().getChunkId(), Unpooled.wrappedBuffer(msg.getData().getPayload().asReadOnlyByteBuffer()),
            System.nanoTime()));
      }
      case PIECE_ACK -> outbox.acked(msg.getPieceAck().getJobId(), msg.getPieceAck().getChunkId(),
          msg.getPieceAck().getEnd(), msg.getPieceAck().getCounted());
      case HEARTBEAT -> daemon.answered();
      case CANCEL -> {
        runner.cancel(msg.getCancel().getJobId(), msg.getCancel().getChunkId());
        outbox.forget(msg.getCancel().getJobId(), msg.getCancel().getChunkId());
      }
      case TRUNCATE -> {
        arrived(ctx, msg.getTruncate().getJobId(), msg.getTruncate().getChunkId(), runner.truncate(
            msg.getTruncate().getJobId(), msg.getTruncate().getChunkId(), msg.getTruncate().getEnd()));
        outbox.truncated(msg.getTruncate().getJobId(), msg.getTruncate().getChunkId(), msg.getTruncate().getEnd());
      }
      case DRAIN -> daemon.drainAsync("the master asked: " + msg.getDrain().getReason());
      default -> protocolError(ctx, "the master sent an unexpected " + msg.getBodyCase());
    }
  }

  private void assign(ChannelHandlerContext ctx, Envelope msg) {
    outbox.assigned(msg.getAssign());
    runner.assign(msg.getAssign(), flow, outbox);
  }

  private void protocolError(ChannelHandlerContext ctx, String message) {
    log.error("closing the connection to the master: {}", message);
    ctx.writeAndFlush(Messages.error(Error.Code.UNEXPECTED_MESSAGE, message));
    ctx.close();
  }

  /** Pieces sent and not yet acknowledged as durable. */
  int unacked() {
    return outbox.unacked();
  }

  /** Bytes written to the channel and not yet taken by the kernel. */
  private static long pendingBytes(ChannelHandlerContext ctx) {
    io.netty.channel.ChannelOutboundBuffer b = ctx.channel().unsafe().outboundBuffer();
    return b == null ? 0 : b.totalPendingWriteBytes();
  }

  /**
   * Tells the master that a chunk's input has all arrived ({@code arrival}: its bytes, the
   * nanoseconds from its first byte to its last, and at the pace after its first read), when it has:
   * its port counts the stream on the wire until then, and measures the link with it.
   */
  private static void arrived(ChannelHandlerContext ctx, String jobId, long chunkId, long[] arrival) {
    if (arrival != null) {
      ctx.writeAndFlush(Envelope.newBuilder().setInputArrived(InputArrived.newBuilder().setJobId(jobId)
          .setChunkId(chunkId).setBytes(arrival[0]).setNanos(arrival[1]).setPacedNanos(arrival[2])).build(),
          ctx.voidPromise());
    }
  }

  void sendDrain(String reason) {
    Channel c = channel;
    if (c != null) {
      c.writeAndFlush(Envelope.newBuilder().setDrain(Drain.newBuilder().setReason(reason)).build());
    }
  }

  /** Closes the connection abruptly, without a goodbye: to the master, a lost worker. */
  void drop() {
    Channel c = channel;
    if (c != null) {
      c.close();
    }
  }

  void goodbye(String reason) {
    Channel c = channel;
    if (c != null && c.isActive()) {
      c.writeAndFlush(Messages.goodbye(reason)).awaitUninterruptibly(2, TimeUnit.SECONDS);
      c.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (heartbeats != null) {
      heartbeats.cancel(false);
    }
    // chunks go on for their lease: a restarted master takes them up when this worker is back
    outbox.disconnected(ctx.channel(), System.nanoTime(), runner::awaitsInput);
    daemon.disconnected(this);
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    TlsProblem tls = TlsProblem.of(cause, daemon.upstreamName());
    if (tls != null) {
      // a certificate that is untrusted, expired or for another host: connecting again cannot help
      if (tls.permanent() && daemon.upstreams() > 1) {
        // another upstream on its list may have what this one lacks
        log.error("{}; trying the next upstream", tls.message());
      } else if (tls.permanent()) {
        daemon.fatal(tls.message());
      } else {
        log.warn("{}; connecting again", tls.message());
      }
    } else if (cause instanceof WireException w) {
      log.error("bad frame from the master: {}", w.getMessage());
      ctx.writeAndFlush(Messages.error(w.code(), w.getMessage()));
    } else if (cause instanceof IOException) {
      log.debug("connection to the master failed: {}", cause.getMessage());
    } else {
      log.error("internal error on the master connection: {}", cause.toString(), cause);
    }
    ctx.close();
  }
}
