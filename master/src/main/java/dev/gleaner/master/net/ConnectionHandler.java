package dev.gleaner.master.net;

import dev.gleaner.common.time.Ticker;
import dev.gleaner.master.control.ReadableStatus;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Challenge;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Framing;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.ProtocolVersion;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.SubmitReply;
import dev.gleaner.protocol.Welcome;
import dev.gleaner.protocol.WireException;
import com.google.protobuf.ByteString;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection: runs the handshake (hello, challenge, answer, welcome), then routes a worker's or
 * a client's messages. Anything out of place gets an {@link Error} the peer can read, one log line,
 * and the close of this connection only.
 */
final class ConnectionHandler extends SimpleChannelInboundHandler<Envelope> {
  private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

  private enum Phase {
    /** Nothing received yet: only a Hello is acceptable. */
    AWAIT_HELLO,
    /** Challenge sent: only its answer is acceptable. */
    AWAIT_ANSWER,
    /** An authenticated worker. */
    WORKER,
    /** An authenticated client or operator. */
    CLIENT,
    /** An error was sent; the connection is closing. */
    CLOSING
  }

  /** Log lines for connections refused before a login: 20 per 10 s, then a count of those left out. */

  private final Services services;
  private Phase phase = Phase.AWAIT_HELLO;
  private Hello hello;
  private byte[] nonce;
  private WorkerSession session;
  private PieceAssembly assembly;
  /** It holds a place in the master's {@link ResultBudget}: it is joining a result over one frame. */
  private boolean holdsPlace;
  /** While it waits for a place: the messages read meanwhile, in order; null while it does not wait. */
  private java.util.ArrayDeque<Envelope> parked;
  /** Its turn in the budget's queue while it waits; null otherwise. */
  private Runnable admission;
  /** While it waits: the master's heartbeats to it (it reads nothing of the worker's, by its own choice). */
  private io.netty.util.concurrent.ScheduledFuture<?> keepAlive;
  private boolean saidGoodbye;
  private long lastHeartbeatNanos;
  /** Its place in the login gate while it is in the handshake, else null. */
  private LoginGate.Ticket ticket;
  /** Ends a handshake that takes too long; cancelled when it ends. */
  private io.netty.util.concurrent.ScheduledFuture<?> handshakeTimer;
  /** Who a client session acts as (set at its Welcome). */
  private dev.gleaner.master.control.Caller caller = dev.gleaner.master.control.Caller.TRUSTED;
  /** Its place among the token sessions a revocation closes; null under the shared secret or before the Welcome. */
  private TokenSessions.Session tokenSession;

  ConnectionHandler(Services services) {
    this.services = services;
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    java.net.SocketAddress remote = ctx.channel().remoteAddress();
    java.net.InetAddress address = remote instanceof java.net.InetSocketAddress a ? a.getAddress() : null;
    ticket = address == null ? null : services.gate().enter(address, ctx.channel());
    if (address != null && ticket == null) {
      refuse(ctx, Error.Code.TOO_MANY_CONNECTIONS, "too many connections waiting to log in (at most "
          + LoginGate.PER_ADDRESS + " per address)");
      ctx.fireChannelActive();
      return;
    }
    // cancelled when the handshake ends: a closed connection must not be held for the timeout
    handshakeTimer = ctx.executor().schedule(() -> {
      if (phase == Phase.AWAIT_HELLO || phase == Phase.AWAIT_ANSWER) {
        refuse(ctx, Error.Code.NOT_AUTHENTICATED, "no complete handshake within " + LoginGate.HANDSHAKE_SECONDS + " s");
      }
    }, LoginGate.HANDSHAKE_SECONDS, TimeUnit.SECONDS);
    ctx.fireChannelActive();
  }

  /** The handshake is over, one way or another: the connection no longer counts against the login limits. */
  private void loggedInOrOut(ChannelHandlerContext ctx) {
    if (handshakeTimer != null) {
      handshakeTimer.cancel(false);
      handshakeTimer = null;
    }
    if (ticket != null) {
      services.gate().leave(ticket);
      ticket = null;
    }
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Envelope msg) {
    Ticker ticker = services.ticker();
    if (session != null) {
      session.lastHeardNanos = ticker.nanos();
    }
    if (parked != null) {
      // frames decoded from bytes read before the wait began: they keep their order behind it
      parked.add(msg);
      return;
    }
    dispatch(ctx, msg);
  }

  private void dispatch(ChannelHandlerContext ctx, Envelope msg) {
    switch (phase) {
      case AWAIT_HELLO -> onHello(ctx, msg);
      case AWAIT_ANSWER -> onAnswer(ctx, msg);
      case WORKER -> onWorkerMessage(ctx, msg);
      case CLIENT -> onClientMessage(ctx, msg);
      case CLOSING -> { }
    }
  }

  private void onHello(ChannelHandlerContext ctx, Envelope msg) {
    if (!msg.hasHello()) {
      refuse(ctx, Error.Code.NOT_AUTHENTICATED, "expected Hello as the first message, got " + msg.getBodyCase());
      return;
    }
    Hello h = msg.getHello();
    if (h.getProtocolVersion() != ProtocolVersion.CURRENT) {
      refuse(ctx, Error.Code.VERSION_MISMATCH, ProtocolVersion.mismatch(h.getProtocolVersion()));
      return;
    }
    if (h.getRole() != Role.WORKER && h.getRole() != Role.CLIENT && h.getRole() != Role.OPERATOR) {
      refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "Hello must say WORKER, CLIENT or OPERATOR, got " + h.getRole());
      return;
    }
    if (h.getRole() == Role.WORKER && (h.getPeerId().isBlank() || h.getPeerId().length() > 200)) {
      refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a worker's Hello needs an id of 1 to 200 characters");
      return;
    }
    if (h.getPeerId().length() > 200) {
      refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a client's Hello needs a name of at most 200 characters");
      return;
    }
    if (h.getTokenGeneration() < 0) {
      refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a token's generation is below 2^31, not " + Integer.toUnsignedString(h.getTokenGeneration()));
      return;
    }
    if (h.getWorkloadsCount() > 1000 || h.getSpeedsCount() > 1000 || h.getHeldCount() > 1000) {
      refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a worker's Hello may name at most 1000 workloads and 1000 held chunks");
      return;
    }
    if (ticket != null && !services.gate().challenged(ticket)) {
      // closed by the gate to make room meanwhile: the close is on its way
      phase = Phase.CLOSING;
      return;
    }
    // the answer is a MAC: nothing larger may come until the Welcome
    Framing.decoder(ctx.pipeline()).limit(LoginGate.ANSWER_FRAME_BYTES);
    hello = h;
    nonce = Auth.newNonce();
    phase = Phase.AWAIT_ANSWER;
    ctx.writeAndFlush(Envelope.newBuilder().setChallenge(Challenge.newBuilder()
        .setProtocolVersion(ProtocolVersion.CURRENT).setNonce(ByteString.copyFrom(nonce))).build());
  }

  private void onAnswer(ChannelHandlerContext ctx, Envelope msg) {
    if (!msg.hasAuthResponse()) {
      refuse(ctx, Error.Code.NOT_AUTHENTICATED, "expected the answer to the challenge, got " + msg.getBodyCase());
      return;
    }
    String refusal = services.authenticator().refusal(hello, nonce, msg.getAuthResponse().getMac().toByteArray());
    if (refusal != null) {
      refuse(ctx, Error.Code.AUTH_FAILED, refusal);
      return;
    }
    if (ticket != null && !services.gate().login(ticket)) {
      // closed by the gate to make room meanwhile: it is not welcomed, the close is on its way
      phase = Phase.CLOSING;
      return;
    }
    ticket = null;
    if (hello.getCredential() == dev.gleaner.protocol.Credential.TOKEN) {
      Role role = hello.getRole();
      String id = hello.getPeerId();
      tokenSession = why -> ctx.executor().execute(() -> refuse(ctx, Error.Code.AUTH_FAILED, why));
      services.tokenSessions().add(role, id, tokenSession);
      caller = role == Role.OPERATOR ? dev.gleaner.master.control.Caller.operator(id)
          : dev.gleaner.master.control.Caller.client(id);
      // a revocation stored between the check and here: its closing pass may have missed this session
      String revoked = services.authenticator().revokedRefusal(role, id, hello.getTokenGeneration());
      if (revoked != null) {
        refuse(ctx, Error.Code.AUTH_FAILED, revoked);
        return;
      }
    }
    // fresh random bytes the handshake already drew: no second draw from the shared SecureRandom
    java.nio.ByteBuffer n = java.nio.ByteBuffer.wrap(nonce);
    String sessionId = new UUID(n.getLong(), n.getLong()).toString();
    loggedInOrOut(ctx);
    Framing.decoder(ctx.pipeline()).limit(services.config().maxFrameBytes());
    ctx.writeAndFlush(Envelope.newBuilder().setWelcome(Welcome.newBuilder().setSessionId(sessionId)
        .setHeartbeatIntervalMs((int) services.config().heartbeatInterval().toMillis())
        .setHeartbeatTimeoutMs((int) Math.min(Integer.MAX_VALUE, services.config().heartbeatTimeout().toMillis()))
        .setMaxFrameBytes(services.config().maxFrameBytes())
        .setMaxResultBytes(services.config().maxResultBytes())).build());
    if (hello.getRole() == Role.WORKER) {
      phase = Phase.WORKER;
      lastHeartbeatNanos = services.ticker().nanos();
      session = new WorkerSession(hello.getPeerId(), hello.getHost(), Math.max(1, hello.getCores()), hello.getInstance(), ctx.channel(),
          services.sendPort(), services.loop(), services.ticker());
      services.monitor().watch(session);
      services.loop().joined(session, hello);
    } else {
      phase = Phase.CLIENT;
    }
  }

  private void onWorkerMessage(ChannelHandlerContext ctx, Envelope msg) {
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
          services.loop().badResult(session, msg.getPiecePart().getJobId(), msg.getPiecePart().getChunkId(), e.getMessage());
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
        services.loop().piece(session, whole);
      }
      case CHUNK_FAILED -> services.loop().chunkFailed(session, msg.getChunkFailed());
      case DRAIN -> services.loop().draining(session);
      case AVAILABILITY -> services.loop().availability(session, msg.getAvailability());
      case GOODBYE -> {
        saidGoodbye = true;
        ctx.close();
      }
      default -> refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a worker may not send " + msg.getBodyCase());
    }
  }

  /** Answers a cancel or a forget: a JobReply, or an Error that says why not. */
  private static void reply(ChannelHandlerContext ctx, String jobId,
      java.util.concurrent.CompletableFuture<dev.gleaner.master.control.ControlLoop.JobOutcome> outcome) {
    outcome.whenComplete((o, err) -> {
      if (err != null) {
        ctx.writeAndFlush(Messages.error(Error.Code.INTERNAL, "the master could not do it: " + err.getMessage()));
      } else if (o.state() == null) {
        ctx.writeAndFlush(Messages.error(o.notAllowed() ? Error.Code.NOT_ALLOWED : Error.Code.BAD_JOB, o.message()));
      } else {
        ctx.writeAndFlush(Envelope.newBuilder().setJobReply(dev.gleaner.protocol.JobReply.newBuilder().setJobId(jobId)
            .setState(o.state()).setMessage(o.message())).build());
      }
    });
  }

  /**
   * Every place for joining results over one frame is taken: this worker's parts wait. Its
   * connection is no longer read (TCP holds the worker back), what was already read waits in
   * order, and the master sends it heartbeats so that neither side takes the wait for a silence.
   */
  private void park(ChannelHandlerContext ctx, Envelope first) {
    parked = new java.util.ArrayDeque<>();
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
    if (!ctx.channel().isActive() || phase == Phase.CLOSING) {
      services.budget().give();
      return;
    }
    holdsPlace = true;
    // from here its silence counts again
    session.lastHeardNanos = services.ticker().nanos();
    java.util.ArrayDeque<Envelope> waited = parked;
    parked = null;
    ctx.channel().config().setAutoRead(true);
    log.info("worker {}: its result over one frame is joined now", session.workerId);
    for (Envelope m; parked == null && phase != Phase.CLOSING && (m = waited.poll()) != null; ) {
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

  private void onClientMessage(ChannelHandlerContext ctx, Envelope msg) {
    switch (msg.getBodyCase()) {
      case SUBMIT -> {
        try {
          services.jobs().submit(msg.getSubmit().getSpec(), caller).whenComplete((submitted, err) -> {
            Throwable cause = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
                ? err.getCause() : err;
            if (cause instanceof IllegalArgumentException bad) {
              log.info("job from {} refused: {}", ctx.channel().remoteAddress(), bad.getMessage());
              ctx.writeAndFlush(Messages.error(refusalCode(bad), bad.getMessage()));
            } else if (cause != null) {
              log.error("cannot store a job from {}: {}", ctx.channel().remoteAddress(), cause.getMessage(), cause);
              ctx.writeAndFlush(Messages.error(Error.Code.INTERNAL, "the master could not store the job: " + cause.getMessage()));
            } else {
              ctx.writeAndFlush(Envelope.newBuilder().setSubmitReply(SubmitReply.newBuilder().setJobId(submitted.id())
                  .setExisting(submitted.existing())).build());
            }
          });
        } catch (IllegalArgumentException e) {
          log.info("job from {} refused: {}", ctx.channel().remoteAddress(), e.getMessage());
          ctx.writeAndFlush(Messages.error(Error.Code.BAD_JOB, e.getMessage()));
        }
      }
      case STATUS_REQUEST -> {
        long arrived = System.nanoTime();
        boolean timed = msg.getStatusRequest().getWaitMs() == 0;
        services.loop().status(msg.getStatusRequest().getJobId(), services.registry(),
              msg.getStatusRequest().getWaitMs(), msg.getStatusRequest().getJobOnly(),
              msg.getStatusRequest().getAllWorkers())
          .whenComplete((reply, err) -> {
            if (timed) {
              services.metrics().statusReply.record(System.nanoTime() - arrived, TimeUnit.NANOSECONDS);
            }
            if (err != null) {
              log.error("cannot build a status reply: {}", err.toString(), err);
              ctx.writeAndFlush(Messages.error(Error.Code.INTERNAL, "the master could not build the status: " + err));
              return;
            }
            Envelope frame = Envelope.newBuilder()
                .setStatusReply(ReadableStatus.of(reply, caller, services.config().privateJobs())).build();
            int limit = services.config().maxFrameBytes();
            if (frame.getSerializedSize() + 4 > limit) {
              // a summary should always fit; if it does not, say so instead of failing silently
              String why = "the status reply is " + frame.getSerializedSize() + " bytes, over the frame limit of "
                  + limit + " bytes (--max-frame-mib); ask for one job";
              log.error("cannot send a status reply to {}: {}", ctx.channel().remoteAddress(), why);
              ctx.writeAndFlush(Messages.error(Error.Code.FRAME_TOO_LARGE, why));
            } else {
              ctx.writeAndFlush(frame);
            }
          });
      }
      case RESULT_REQUEST -> {
        String job = msg.getResultRequest().getJobId();
        services.loop().result(job, caller).whenComplete((bytes, err) -> ctx.executor().execute(() -> {
          if (err != null) {
            Throwable cause = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
                ? err.getCause() : err;
            ctx.writeAndFlush(Messages.error(refusalCode(cause), cause.getMessage()));
          } else {
            result = new ResultStream(job, bytes);
            pumpResult(ctx);
          }
        }));
      }
      case CANCEL_JOB -> {
        String reason = msg.getCancelJob().getReason().isBlank() ? "asked by " + ctx.channel().remoteAddress()
            : msg.getCancelJob().getReason();
        reply(ctx, msg.getCancelJob().getJobId(), services.loop().cancel(msg.getCancelJob().getJobId(), reason,
            Integer.toUnsignedLong(msg.getCancelJob().getGraceMs()), caller));
      }
      case FORGET_JOB -> reply(ctx, msg.getForgetJob().getJobId(),
          services.loop().forget(msg.getForgetJob().getJobId(), caller));
      case REVOKE -> revoke(ctx, msg.getRevoke());
      case REVOCATIONS_REQUEST -> {
        if (operatorOnly(ctx, "list the revoked tokens")) {
          dev.gleaner.protocol.RevocationsReply.Builder b = dev.gleaner.protocol.RevocationsReply.newBuilder();
          services.revocations().list().forEach(r -> b.addRevocations(dev.gleaner.master.control.Revocations.proto(r)));
          ctx.writeAndFlush(Envelope.newBuilder().setRevocationsReply(b).build());
        }
      }
      case DRAIN_REQUEST -> {
        if (!operatorOnly(ctx, "ask worker '" + msg.getDrainRequest().getWorkerId() + "' to leave")) {
          return;
        }
        String reason = msg.getDrainRequest().getReason().isBlank() ? "asked by " + ctx.channel().remoteAddress()
            : msg.getDrainRequest().getReason();
        String worker = msg.getDrainRequest().getWorkerId();
        services.loop().askToLeave(worker, reason).whenComplete((asked, err) -> {
          if (err != null) {
            ctx.writeAndFlush(Messages.error(Error.Code.INTERNAL, "the master could not ask worker " + worker
                + " to leave: " + err.getMessage()));
          } else if (!asked) {
            ctx.writeAndFlush(Messages.error(Error.Code.UNKNOWN_WORKER, "no worker '" + worker + "' is connected"
                + " (gleaner status lists them)"));
          } else {
            ctx.writeAndFlush(Envelope.newBuilder().setDrainReply(dev.gleaner.protocol.DrainReply.newBuilder()
                .setWorkerId(worker)).build());
          }
        });
      }
      case HEARTBEAT -> { }
      case GOODBYE -> ctx.close();
      default -> refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a client may not send " + msg.getBodyCase());
    }
  }

  /** NOT_ALLOWED for a request refused as another client's job, else BAD_JOB. */
  private static Error.Code refusalCode(Throwable refused) {
    return refused instanceof dev.gleaner.master.control.Caller.NotAllowed ? Error.Code.NOT_ALLOWED : Error.Code.BAD_JOB;
  }

  /**
   * True if this session may act as an operator; else answers NOT_ALLOWED with a sentence (the
   * session stays open: the client may go on reading) and returns false.
   */
  private boolean operatorOnly(ChannelHandlerContext ctx, String what) {
    if (caller.isOperator()) {
      return true;
    }
    log.info("{} from {} may not {}: refused", caller, ctx.channel().remoteAddress(), what);
    ctx.writeAndFlush(Messages.error(Error.Code.NOT_ALLOWED, "only an operator may " + what + " (you are " + caller
        + "); an operator token is made with `gleaner token operator NAME`"));
    return false;
  }

  /** An operator's `gleaner token revoke`: stored, then the id's sessions closed, then answered. */
  private void revoke(ChannelHandlerContext ctx, dev.gleaner.protocol.Revoke r) {
    if (!operatorOnly(ctx, "revoke tokens")) {
      return;
    }
    if (services.config().auth().clusterKey() == null) {
      ctx.writeAndFlush(Messages.error(Error.Code.BAD_JOB, "this master takes no tokens (it has no cluster key): there"
          + " is nothing to revoke; under the shared secret every peer is trusted alike"));
      return;
    }
    Role role = r.getRole();
    String id = r.getId();
    if (role != Role.WORKER && role != Role.CLIENT && role != Role.OPERATOR) {
      ctx.writeAndFlush(Messages.error(Error.Code.UNEXPECTED_MESSAGE, "a revocation names a worker, client or operator,"
          + " not " + role));
      return;
    }
    if (id.isBlank() || id.length() > 200) {
      ctx.writeAndFlush(Messages.error(Error.Code.UNEXPECTED_MESSAGE, "a revocation names an id of 1 to 200 characters"));
      return;
    }
    String reason = r.getReason().length() > 500 ? r.getReason().substring(0, 500) : r.getReason();
    services.revocations().revoke(role, id, caller, reason, services.ticker().epochMillis()).whenComplete((rec, err) ->
        ctx.executor().execute(() -> {
          if (err != null) {
            log.error("cannot store the revocation of {} '{}': {}", Auth.roleName(role), id, err.toString(), err);
            ctx.writeAndFlush(Messages.error(Error.Code.INTERNAL, "the master could not store the revocation: "
                + err.getMessage()));
            return;
          }
          String why = "the " + Auth.roleName(role) + " token of '" + id + "' was "
              + dev.gleaner.master.control.Revocations.describe(rec);
          // each session ends on its own thread, after this task: an operator revoking itself gets the reply first
          int closed = services.tokenSessions().endAll(role, id, why);
          log.warn("{}; {} live session(s) closed; its logins are refused from now on; a new token for it needs"
              + " generation {}", why, closed, rec.nextGeneration());
          ctx.writeAndFlush(Envelope.newBuilder().setRevokeReply(dev.gleaner.protocol.RevokeReply.newBuilder()
              .setRevocation(dev.gleaner.master.control.Revocations.proto(rec)).setSessionsClosed(closed)).build());
        }));
  }

  private void refuse(ChannelHandlerContext ctx, Error.Code code, String message) {
    if (phase == Phase.CLOSING) {
      return;
    }
    phase = Phase.CLOSING;
    if (!ctx.channel().isActive()) {
      return;
    }
    services.metrics().protocolErrors.increment();
    if (session != null) {
      session.refusal = message;
    }
    if (session != null || services.gate().logRefusal()) {
      // refusals before a login are logged at a bounded rate: a flood must not fill the disk
      log.warn("closing connection from {}{}: {}", ctx.channel().remoteAddress(),
          session == null ? "" : " (worker " + session.workerId + ")", message);
    }
    ctx.writeAndFlush(Messages.error(code, message)).addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    loggedInOrOut(ctx);
    if (tokenSession != null) {
      services.tokenSessions().remove(hello.getRole(), hello.getPeerId(), tokenSession);
    }
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
    if (session != null) {
      services.monitor().forget(session);
      if (saidGoodbye) {
        services.loop().lost(session, "said goodbye", false);
      } else if (session.refusal != null) {
        services.loop().refused(session, session.refusal);
      } else {
        services.loop().lost(session, "connection closed", true);
      }
    }
    ctx.fireChannelInactive();
  }

  /** A result being streamed to a client, part by part as the connection drains. */
  private static final class ResultStream {
    static final int PART_BYTES = 256 * 1024;
    final String job;
    final byte[] bytes;
    int at;

    ResultStream(String job, byte[] bytes) {
      this.job = job;
      this.bytes = bytes;
    }
  }

  private ResultStream result;

  /** Writes result parts while the connection takes them; the rest follows when it drains. */
  private void pumpResult(ChannelHandlerContext ctx) {
    ResultStream r = result;
    while (r != null && ctx.channel().isActive()) {
      int n = Math.min(ResultStream.PART_BYTES, r.bytes.length - r.at);
      boolean last = r.at + n >= r.bytes.length;
      ctx.write(Envelope.newBuilder().setResultPart(dev.gleaner.protocol.ResultPart.newBuilder().setJobId(r.job)
          .setData(ByteString.copyFrom(r.bytes, r.at, n)).setLast(last)).build());
      r.at += n;
      if (last) {
        result = null;
        r = null;
      } else if (!ctx.channel().isWritable()) {
        break;
      }
    }
    ctx.flush();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable()) {
      services.sendPort().writable(ctx.channel());
      if (result != null) {
        pumpResult(ctx);
      }
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof WireException w) {
      refuse(ctx, w.code(), w.getMessage());
    } else if (TlsOnlyHandler.isTls(cause)) {
      // a peer that does not trust this master, or a certificate the master does not trust: no frame can reach it
      phase = Phase.CLOSING;
      services.metrics().protocolErrors.increment();
      log.warn("closing connection from {}: TLS failed: {}", ctx.channel().remoteAddress(), TlsOnlyHandler.reason(cause));
      ctx.close();
    } else if (cause instanceof IOException) {
      log.debug("connection from {} failed: {}", ctx.channel().remoteAddress(), cause.getMessage());
      ctx.close();
    } else {
      log.error("internal error on connection from {}: {}", ctx.channel().remoteAddress(), cause.toString(), cause);
      refuse(ctx, Error.Code.INTERNAL, "internal error on the master: " + cause);
    }
  }
}
