package dev.gleaner.master.net;

import dev.gleaner.master.net.port.InputArrival;
import dev.gleaner.master.net.port.LinkCut;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.InputArrived;
import dev.gleaner.protocol.InputPace;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.Piece;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A welcomed worker's connection: turns its frames (heartbeats, speeds, results, failures, drain,
 * availability, goodbye) into control-loop events for its {@link WorkerSession}, and reports the
 * session's end to the loop at the close.
 *
 * <p>A result over one frame is joined only with a place in the {@link ResultBudget}. Without one
 * the connection is parked: no longer read (TCP holds the worker back), what was read meanwhile
 * kept in order, and the master's own heartbeats sent to it, until a place is handed over and what
 * waited goes on.
 */
final class WorkerHandler extends ConnectionHandler {
  private static final Logger log = LoggerFactory.getLogger(WorkerHandler.class);

  private final Login login;
  private final WorkerSession session;
  private PieceAssembly assembly;
  /** It holds a place in the master's {@link ResultBudget}: it is joining a result over one frame. */
  private boolean holdsPlace;
  /** While it waits for a place: the messages read meanwhile, in order; null while it does not wait. */
  private ArrayDeque<Envelope> parked;
  /** Its turn in the budget's queue while it waits; null otherwise. */
  private Runnable admission;
  /** While it waits: the master's heartbeats to it (it reads nothing of the worker's, by its own choice). */
  private ScheduledFuture<?> keepAlive;
  private boolean saidGoodbye;
  private long lastHeartbeatNanos;

  /** The handler of a worker welcomed on {@code channel}; it joins the loop with {@link #joined}. */
  WorkerHandler(Services services, Login login, Channel channel) {
    super(services);
    this.login = login;
    Hello hello = login.hello();
    lastHeartbeatNanos = services.ticker().nanos();
    session = new WorkerSession(hello.getPeerId(), hello.getHost(), Math.max(1, hello.getCores()), hello.getInstance(),
        login.parent(), login.site(), channel, services.sendPort(), services.ticker(), services.loop().relays());
  }

  /** The worker is in the pipeline: the heartbeat monitor watches it and the loop may give it work. */
  void joined() {
    services.monitor().watch(session);
    services.loop().joined(session, login.hello());
  }

  @Override
  WorkerSession worker() {
    return session;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Envelope msg) {
    session.lastHeardNanos = services.ticker().nanos();
    if (parked != null) {
      // frames decoded from bytes read before the wait began: they keep their order behind it
      parked.add(msg);
      return;
    }
    dispatch(ctx, msg);
  }

  private void dispatch(ChannelHandlerContext ctx, Envelope msg) {
    if (closing()) {
      return;
    }
    switch (msg.getBodyCase()) {
      case HEARTBEAT -> {
        long now = services.ticker().nanos();
        // how late it came: its gap to the one before, less the interval the Welcome asked for (a
        // healthy worker shows about 0, not the interval)
        long late = now - lastHeartbeatNanos - services.config().heartbeatInterval().toNanos();
        services.metrics().heartbeatLag.record(Math.max(0, late), TimeUnit.NANOSECONDS);
        lastHeartbeatNanos = now;
        session.unitsComputed = msg.getHeartbeat().getUnitsComputed();
        // answered, so the worker can tell a master that went away from a quiet one
        ctx.writeAndFlush(Messages.heartbeat(msg.getHeartbeat().getSeq(), services.ticker().epochMillis()));
      }
      case SPEED_REPORT -> services.loop().calibrated(session, msg.getSpeedReport().getSpeedsList());
      case PIECE_PART -> {
        if (!holdsPlace) {
          admission = () -> ctx.executor().execute(() -> admitted(ctx));
          if (!services.budget().takeOrAwait(admission)) {
            park(ctx, msg);
            return;
          }
          admission = null;
          holdsPlace = true;
        }
        services.loop().reporting(session, msg.getPiecePart().getJobId(), msg.getPiecePart().getChunkId());
        try {
          assembly().part(msg.getPiecePart());
        } catch (PieceAssembly.Broken e) {
          services.loop().badResult(session, msg.getPiecePart().getJobId(), msg.getPiecePart().getChunkId(),
              e.getMessage());
          refuse(ctx, Error.Code.BAD_RESULT, e.getMessage());
        }
      }
      case PIECE -> {
        Piece whole;
        try {
          whole = assembly().complete(msg.getPiece());
        } catch (PieceAssembly.Broken e) {
          services.loop().badResult(session, msg.getPiece().getJobId(), msg.getPiece().getChunkId(), e.getMessage());
          refuse(ctx, Error.Code.BAD_RESULT, e.getMessage());
          return;
        }
        if (holdsPlace) {
          holdsPlace = false;
          services.budget().give();
        }
        if (whole.getFinal()) {
          // the worker has all it needed of the chunk's input, whether or not it said so
          services.sendPort().cancel(whole.getJobId(), whole.getChunkId());
        }
        services.loop().piece(session, whole);
      }
      case INPUT_ARRIVED -> {
        InputArrived a = msg.getInputArrived();
        // input its relay sent from its own copy says nothing of the worker's link from here
        if (!session.filledByRelay(a.getJobId(), a.getChunkId())) {
          InputArrival arrival = services.sendPort().arrived(ctx.channel(), a.getJobId(), a.getChunkId(),
              a.getBytes(), a.getNanos() / 1e9, a.getPacedNanos() / 1e9);
          services.loop().inputArrived(session, a.getJobId(), a.getChunkId(), a.getBytes(), arrival.seconds(),
              arrival.clean(), arrival.own(), services.sendPort().planRule());
        }
      }
      case INPUT_PACE -> {
        InputPace p = msg.getInputPace();
        // input its relay sends from its own copy has no stream at the port: its pace is no measure here (and
        // the word that the chunk's input arrived still finds the relay's mark, which it takes)
        LinkCut cut = services.sendPort().paced(ctx.channel(), p.getJobId(), p.getChunkId(), p.getBytes(),
            p.getNanos() / 1e9);
        if (cut != null) {
          services.loop().linkCut(session, cut.bytesPerSecond(), cut.seconds());
        }
      }
      case CHUNK_FAILED -> {
        // the worker dropped the chunk: the rest of its input would go nowhere
        services.sendPort().cancel(msg.getChunkFailed().getJobId(), msg.getChunkFailed().getChunkId());
        services.loop().chunkFailed(session, msg.getChunkFailed());
      }
      case DRAIN -> services.loop().draining(session);
      case AVAILABILITY -> services.loop().availability(session, msg.getAvailability());
      case GOODBYE -> {
        saidGoodbye = true;
        ctx.close();
      }
      default -> refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a worker may not send " + msg.getBodyCase());
    }
  }

  /**
   * Every place for joining results over one frame is taken: this worker's parts wait. Its
   * connection is no longer read (TCP holds the worker back), what was already read waits in
   * order, and the master sends it heartbeats so that neither side takes the wait for a silence.
   */
  private void park(ChannelHandlerContext ctx, Envelope first) {
    parked = new ArrayDeque<>();
    parked.add(first);
    ctx.channel().config().setAutoRead(false);
    long every = Math.max(10, services.config().heartbeatInterval().toMillis());
    // its lease and its heartbeat timeout do not run while the master keeps it waiting: the wait is
    // bounded by the results ahead of it, each by its own worker's lease and heartbeats; a worker that
    // died meanwhile is found when its turn comes (its connection is read again, then silent)
    String job = first.getPiecePart().getJobId();
    long chunk = first.getPiecePart().getChunkId();
    keepAlive = ctx.executor().scheduleAtFixedRate(() -> {
      session.lastHeardNanos = services.ticker().nanos();
      services.loop().reporting(session, job, chunk);
      ctx.writeAndFlush(Messages.heartbeat(0, services.ticker().epochMillis()));
    }, every, every, TimeUnit.MILLISECONDS);
    log.info("worker {}: its result over one frame waits until another is joined (at most {} at once, for memory);"
        + " its connection is not read meanwhile", session.workerId, services.budget().places());
  }

  /** A place was handed to this connection: what waited goes on, in order. */
  private void admitted(ChannelHandlerContext ctx) {
    admission = null;
    if (keepAlive != null) {
      keepAlive.cancel(false);
      keepAlive = null;
    }
    if (!ctx.channel().isActive() || closing()) {
      services.budget().give();
      return;
    }
    holdsPlace = true;
    // from here its silence counts again
    session.lastHeardNanos = services.ticker().nanos();
    ArrayDeque<Envelope> waited = parked;
    parked = null;
    ctx.channel().config().setAutoRead(true);
    log.info("worker {}: its result over one frame is joined now", session.workerId);
    for (Envelope m; parked == null && !closing() && (m = waited.poll()) != null; ) {
      dispatch(ctx, m);
    }
    if (parked != null) {
      // it waits again (a second result over one frame): the rest stays behind the first
      parked.addAll(waited);
    }
  }

  private PieceAssembly assembly() {
    if (assembly == null) {
      assembly = new PieceAssembly(services.config().maxResultBytes());
    }
    return assembly;
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      services.sendPort().writable(ctx.channel());
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    login.leave(services.tokenSessions());
    if (keepAlive != null) {
      keepAlive.cancel(false);
    }
    // a place handed over but not yet taken up is given back by admitted(), which sees the close
    if (admission != null && services.budget().cancel(admission)) {
      admission = null;
    }
    if (holdsPlace) {
      holdsPlace = false;
      services.budget().give();
    }
    services.monitor().forget(session);
    if (saidGoodbye) {
      services.loop().lost(session, "said goodbye", false);
    } else if (session.refusal != null) {
      services.loop().refused(session, session.refusal);
    } else {
      services.loop().lost(session, "connection closed", true);
    }
    ctx.fireChannelInactive();
  }
}
