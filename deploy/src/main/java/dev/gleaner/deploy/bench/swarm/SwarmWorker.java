package dev.gleaner.deploy.bench.swarm;

import com.google.protobuf.ByteString;
import dev.gleaner.common.time.Backoff;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Credential;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.Speed;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One simulated worker of a {@link SwarmFleet}: it logs in as the real worker does (Hello with its
 * declared speed, the challenge answered with the shared secret), sends heartbeats at the interval
 * its Welcome gives, takes Assigns in order, counts the primes of each piece (checkpoint to
 * checkpoint) with the project's sieve, and reports them as Pieces no sooner than its declared
 * speed allows. A refused or closed connection is tried again after the real worker's backoff
 * (200 ms doubling to 30 s, jittered), from the same loopback address.
 *
 * <p>Everything of one worker runs on its event loop, except the sieve, which runs on the swarm's
 * compute threads and hands its counts back to the loop. A chunk cut short (Truncate) or cancelled
 * while it was counted is reconciled on the loop before anything is sent, so a Piece never claims a
 * unit past the chunk's current end.
 */
final class SwarmWorker {
  /** Where a connection of this worker is. */
  enum Phase {
    /** Hello sent: the challenge is awaited. */
    AWAIT_CHALLENGE,
    /** Answer sent: the Welcome is awaited. */
    AWAIT_WELCOME,
    /** Welcomed: heartbeats go, Assigns come. */
    READY
  }

  final int index;
  final String id;
  final InetAddress from;
  private final SwarmFleet swarm;
  private final long instance;
  private final Backoff backoff;
  /** The connection now (null between connections); touched on its event loop only. */
  private Channel channel;
  private EventLoop loop;
  private final ArrayDeque<Chunk> chunks = new ArrayDeque<>();
  private boolean busy;
  /** The end of the final piece sent of each chunk not yet acknowledged: its ack completes the chunk. */
  private final java.util.Map<Long, Long> finalEnds = new java.util.HashMap<>();

  SwarmWorker(SwarmFleet swarm, int index, InetAddress from, long seed) {
    this.swarm = swarm;
    this.index = index;
    this.id = "swarm-" + index;
    this.from = from;
    SplittableRandom random = new SplittableRandom(seed);
    this.instance = random.nextLong() | 1;
    this.backoff = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(30), random);
  }

  /** Connects now (the first time, or after a backoff). */
  void connect() {
    if (swarm.stopping()) {
      return;
    }
    swarm.attempts.increment();
    swarm.bootstrap(from).handler(SwarmFleet.pipeline(new Link())).connect(swarm.master()).addListener(f -> {
      if (!f.isSuccess()) {
        swarm.connectFailures.increment();
        retryLater(((io.netty.channel.ChannelFuture) f).channel().eventLoop());
      }
    });
  }

  private void retryLater(EventLoop on) {
    if (!swarm.stopping()) {
      on.schedule(this::connect, backoff.next().toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** A chunk held by this worker: its current end moves down on a Truncate. */
  private static final class Chunk {
    final Assign assign;
    long end;
    boolean cancelled;

    Chunk(Assign assign) {
      this.assign = assign;
      this.end = assign.getEnd();
    }
  }

  /** The counts of a chunk's pieces, boundaries {@code cuts[0] < cuts[1] < ... }. */
  private record Counted(long[] cuts, long[] primes) {}

  private void assigned(Assign a) {
    chunks.add(new Chunk(a));
    swarm.assigned.increment();
    next();
  }

  private void next() {
    if (busy || chunks.isEmpty() || channel == null) {
      return;
    }
    busy = true;
    Chunk c = chunks.peek();
    long t0 = System.nanoTime();
    count(c, t0);
  }

  /** Counts the chunk's pieces on a compute thread up to its current end, then delivers on the loop. */
  private void count(Chunk c, long t0) {
    long[] cuts = cuts(c.assign, c.end);
    EventLoop on = loop;
    swarm.compute(() -> {
      long[] primes = new long[cuts.length - 1];
      for (int i = 0; i + 1 < cuts.length; i++) {
        primes[i] = swarm.sieve().count(cuts[i], cuts[i + 1], () -> false);
      }
      Counted counted = new Counted(cuts, primes);
      // no sooner than the declared speed allows: the master measures the speed it was told
      long due = t0 + (long) ((c.end - c.assign.getStart()) / swarm.speed() * 1e9);
      long wait = Math.max(0, due - System.nanoTime());
      on.schedule(() -> deliver(c, counted, t0), wait, TimeUnit.NANOSECONDS);
    });
  }

  /** The piece boundaries: the chunk's start, its checkpoints below {@code end}, and {@code end}. */
  private static long[] cuts(Assign a, long end) {
    long[] cuts = new long[a.getCheckpointsCount() + 2];
    int n = 0;
    cuts[n++] = a.getStart();
    for (long cp : a.getCheckpointsList()) {
      if (cp > cuts[n - 1] && cp < end) {
        cuts[n++] = cp;
      }
    }
    cuts[n++] = end;
    return java.util.Arrays.copyOf(cuts, n);
  }

  private void deliver(Chunk c, Counted counted, long t0) {
    if (channel == null || chunks.peek() != c) {
      // the connection went away meanwhile: its chunks were dropped with it
      return;
    }
    if (!c.cancelled && counted.cuts()[counted.cuts().length - 1] != c.end) {
      // cut short while it was counted: count again up to where it ends now
      count(c, t0);
      return;
    }
    chunks.poll();
    busy = false;
    if (!c.cancelled) {
      long[] cuts = counted.cuts();
      for (int i = 0; i + 1 < cuts.length; i++) {
        long units = cuts[i + 1] - cuts[i];
        channel.write(Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId(c.assign.getJobId())
            .setChunkId(c.assign.getChunkId()).setStart(cuts[i]).setEnd(cuts[i + 1])
            .setResult(ByteString.copyFrom(dev.gleaner.common.workload.LongResult.encode(counted.primes()[i])))
            .setFinal(i + 2 == cuts.length).setComputeNanos((long) (units / swarm.speed() * 1e9))).build());
      }
      finalEnds.put(c.assign.getChunkId(), cuts[cuts.length - 1]);
      channel.flush();
      swarm.piecesSent.add(cuts.length - 1);
    }
    next();
  }

  private void cancel(String job, long chunkId) {
    for (Chunk c : chunks) {
      if (c.assign.getJobId().equals(job) && (chunkId == 0 || c.assign.getChunkId() == chunkId)) {
        c.cancelled = true;
      }
    }
    // the one being counted stays at the head until its count comes back; the rest go now
    chunks.removeIf(c -> c.cancelled && !(busy && c == chunks.peek()));
  }

  private void truncate(String job, long chunkId, long end) {
    for (Chunk c : chunks) {
      if (c.assign.getJobId().equals(job) && c.assign.getChunkId() == chunkId && end < c.end) {
        c.end = Math.max(c.assign.getStart(), end);
      }
    }
  }

  /** One connection's handler: the handshake, then the worker's messages. */
  private final class Link extends SimpleChannelInboundHandler<Envelope> {
    private Phase phase = Phase.AWAIT_CHALLENGE;
    private ScheduledFuture<?> heartbeats;
    private long seq;
    /** The code of the master's last Error on this connection, or null. */
    private Error.Code refusal;

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      Hello.Builder hello = Messages.hello(Role.WORKER, id, "swarm", 1, List.of("primes")).getHello().toBuilder()
          .setInstance(instance).setCredential(Credential.SHARED_SECRET)
          .addSpeeds(Speed.newBuilder().setWorkload("primes").setUnitsPerSecond(swarm.speed()));
      ctx.writeAndFlush(Envelope.newBuilder().setHello(hello).build());
      ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Envelope msg) {
      if (msg.hasError()) {
        refusal = msg.getError().getCode();
        swarm.refused(refusal, phase == Phase.READY);
        if (refusal == Error.Code.AUTH_FAILED || refusal == Error.Code.VERSION_MISMATCH) {
          swarm.fatal(id + ": " + msg.getError().getMessage());
        }
        ctx.close();
        return;
      }
      switch (phase) {
        case AWAIT_CHALLENGE -> {
          if (!msg.hasChallenge()) {
            protocolError(ctx, "expected a challenge, got " + msg.getBodyCase());
            return;
          }
          ctx.writeAndFlush(Messages.answer(msg.getChallenge(), PeerCredential.sharedSecret(swarm.secret()), Role.WORKER,
              id));
          phase = Phase.AWAIT_WELCOME;
        }
        case AWAIT_WELCOME -> {
          if (!msg.hasWelcome()) {
            protocolError(ctx, "expected a welcome, got " + msg.getBodyCase());
            return;
          }
          phase = Phase.READY;
          channel = ctx.channel();
          loop = ctx.channel().eventLoop();
          swarm.welcomed(SwarmWorker.this);
          long every = Math.max(10, msg.getWelcome().getHeartbeatIntervalMs());
          heartbeats = ctx.executor().scheduleAtFixedRate(
              () -> ctx.writeAndFlush(Messages.heartbeat(++seq, System.currentTimeMillis())), every, every,
              TimeUnit.MILLISECONDS);
        }
        case READY -> onMessage(msg);
      }
    }

    private void onMessage(Envelope msg) {
      switch (msg.getBodyCase()) {
        case ASSIGN -> assigned(msg.getAssign());
        case PIECE_ACK -> {
          Long last = finalEnds.get(msg.getPieceAck().getChunkId());
          boolean done = last != null && last == msg.getPieceAck().getEnd();
          if (done) {
            finalEnds.remove(msg.getPieceAck().getChunkId());
          }
          swarm.acked(done);
        }
        // the session works: the next loss reconnects quickly again, as the real worker does
        case HEARTBEAT -> backoff.reset();
        case CANCEL -> cancel(msg.getCancel().getJobId(), msg.getCancel().getChunkId());
        case TRUNCATE -> truncate(msg.getTruncate().getJobId(), msg.getTruncate().getChunkId(),
            msg.getTruncate().getEnd());
        case DRAIN -> swarm.unexpected(id + ": the master asked it to leave: " + msg.getDrain().getReason());
        default -> swarm.unexpected(id + ": the master sent an unexpected " + msg.getBodyCase());
      }
    }

    private void protocolError(ChannelHandlerContext ctx, String message) {
      swarm.unexpected(id + ": " + message);
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (heartbeats != null) {
        heartbeats.cancel(false);
      }
      if (phase == Phase.READY) {
        channel = null;
        chunks.clear();
        finalEnds.clear();
        busy = false;
        if (!swarm.stopping()) {
          swarm.closedAfterWelcome(SwarmWorker.this, refusal);
        }
      } else if (refusal == null && !swarm.stopping()) {
        // closed in the handshake without a word: the master's login gate made room
        swarm.closedBeforeWelcome.increment();
      }
      retryLater(ctx.channel().eventLoop());
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (!(cause instanceof java.io.IOException)) {
        swarm.unexpected(id + ": " + cause);
      }
      ctx.close();
    }
  }
}
