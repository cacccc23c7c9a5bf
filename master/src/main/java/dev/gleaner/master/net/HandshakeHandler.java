package dev.gleaner.master.net;

import com.google.protobuf.ByteString;
import dev.gleaner.master.auth.Caller;
import dev.gleaner.master.auth.TokenSessions;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Challenge;
import dev.gleaner.protocol.Credential;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Framing;
import dev.gleaner.protocol.Hello;
import dev.gleaner.protocol.ProtocolVersion;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.Via;
import dev.gleaner.protocol.Welcome;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A connection's first handler: the handshake (Hello, Challenge, its answer, Welcome) under the
 * {@link LoginGate}'s bounds and its time limit. At the Welcome it puts a {@link WorkerHandler} or a
 * {@link ClientHandler} in its place in the pipeline, handing over who logged in.
 *
 * <p>The frame decoder hands on every frame it decoded from one read, one after the other: those
 * that came right behind the answer reach the next handler, in order, since it is in the pipeline
 * before the next one is passed on. The frame limit follows the handshake: {@link
 * LoginGate#FRAME_BYTES} until the Hello, {@link LoginGate#ANSWER_FRAME_BYTES} until the Welcome
 * (frames decoded in the answer's read are held to it), then the configured maximum.
 */
final class HandshakeHandler extends ConnectionHandler {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(HandshakeHandler.class);
  /** The most relays a connection may come through. */
  static final int MAX_VIAS = 8;

  private enum Phase {
    /** Nothing received yet but Vias: only a Hello (or the Via of one more relay) is acceptable. */
    AWAIT_HELLO,
    /** Challenge sent: only its answer is acceptable. */
    AWAIT_ANSWER,
    /** Welcomed: the next handler holds the connection. */
    WELCOMED
  }

  private Phase phase = Phase.AWAIT_HELLO;
  private Hello hello;
  private byte[] nonce;
  /** Its place in the login gate while it is in the handshake, else null. */
  private LoginGate.Ticket ticket;
  /** Ends a handshake that takes too long; cancelled when it ends. */
  private ScheduledFuture<?> handshakeTimer;
  /** Its place among the token sessions from its proof to its close or its Welcome; null under the shared secret. */
  private TokenSessions.Session tokenSession;
  /** A relay's connection not yet in the login gate: its address, until its first frame says whose it carries. */
  private InetAddress gateAt;
  /** The relays the connection came through, nearest the master first (their Vias, checked). */
  private final List<String> via = new ArrayList<>();

  HandshakeHandler(Services services) {
    super(services);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    java.net.SocketAddress remote = ctx.channel().remoteAddress();
    InetAddress address = remote instanceof InetSocketAddress a ? a.getAddress() : null;
    if (address != null && services.loop().relays().isRelayAddress(address)) {
      // a relay's: it counts in the login limits by the address of the peer it carries, known from its
      // first frame (the Via), so that many workers behind one relay do not shut each other out
      gateAt = address;
    } else {
      ticket = address == null ? null : services.gate().enter(address, ctx.channel());
    }
    if (address != null && gateAt == null && ticket == null) {
      refuse(ctx, Error.Code.TOO_MANY_CONNECTIONS, "too many connections waiting to log in (at most "
          + LoginGate.PER_ADDRESS + " per address)");
      ctx.fireChannelActive();
      return;
    }
    // cancelled when the handshake ends: a closed connection must not be held for the timeout
    handshakeTimer = ctx.executor().schedule(() -> {
      if (phase != Phase.WELCOMED) {
        refuse(ctx, Error.Code.NOT_AUTHENTICATED, "no complete handshake within " + LoginGate.HANDSHAKE_SECONDS + " s");
      }
    }, LoginGate.HANDSHAKE_SECONDS, TimeUnit.SECONDS);
    ctx.fireChannelActive();
  }

  /**
   * The connection turned out to be an HTTP request whose credential is good (the jobs' API): it no
   * longer counts against the login limits, and no handshake timer ends it (a long poll waits up to a
   * minute; the request is read whole already, and the connection closes with its answer).
   */
  void authenticatedOverHttp() {
    loggedInOrOut();
  }

  /** The handshake is over, one way or another: the connection no longer counts against the login limits. */
  private void loggedInOrOut() {
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
    if (closing()) {
      return;
    }
    switch (phase) {
      case AWAIT_HELLO -> onHello(ctx, msg);
      case AWAIT_ANSWER -> onAnswer(ctx, msg);
      // out of the pipeline since the Welcome: nothing reaches it
      case WELCOMED -> throw new IllegalStateException("a message reached the handshake after the Welcome");
    }
  }

  private void onHello(ChannelHandlerContext ctx, Envelope msg) {
    if (gateAt != null && !enterGate(ctx, msg.hasVia() ? peerIp(msg.getVia()) : null)) {
      return;
    }
    if (msg.hasVia()) {
      onVia(ctx, msg.getVia());
      return;
    }
    if (!msg.hasHello()) {
      refuse(ctx, Error.Code.NOT_AUTHENTICATED, "expected Hello as the first message, got " + msg.getBodyCase());
      return;
    }
    Hello h = msg.getHello();
    if (h.getProtocolVersion() != ProtocolVersion.CURRENT) {
      refuse(ctx, Error.Code.VERSION_MISMATCH, ProtocolVersion.mismatch(h.getProtocolVersion()));
      return;
    }
    if (h.getRole() != Role.WORKER && h.getRole() != Role.CLIENT && h.getRole() != Role.OPERATOR
        && h.getRole() != Role.RELAY) {
      refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "Hello must say WORKER, CLIENT, OPERATOR or RELAY, got "
          + h.getRole());
      return;
    }
    if ((h.getRole() == Role.WORKER || h.getRole() == Role.RELAY)
        && (h.getPeerId().isBlank() || h.getPeerId().length() > 200)) {
      refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a " + Auth.roleName(h.getRole())
          + "'s Hello needs an id of 1 to 200 characters");
      return;
    }
    if (h.getPeerId().length() > 200) {
      refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a client's Hello needs a name of at most 200 characters");
      return;
    }
    if (h.getTokenGeneration() < 0) {
      refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a token's generation is below 2^31, not "
          + Integer.toUnsignedString(h.getTokenGeneration()));
      return;
    }
    if (h.getWorkloadsCount() > 1000 || h.getSpeedsCount() > 1000 || h.getHeldCount() > 1000) {
      refuse(ctx, Error.Code.UNEXPECTED_MESSAGE,
          "a worker's Hello may name at most 1000 workloads and 1000 held chunks");
      return;
    }
    if (ticket != null && !services.gate().challenged(ticket)) {
      // closed by the gate to make room meanwhile: the close is on its way
      markClosing();
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

  /** A relay's connection enters the login gate under the address of the peer it carries (or its own). */
  private boolean enterGate(ChannelHandlerContext ctx, InetAddress peer) {
    InetAddress at = peer != null ? peer : gateAt;
    gateAt = null;
    ticket = services.gate().enter(at, ctx.channel());
    if (ticket == null) {
      refuse(ctx, Error.Code.TOO_MANY_CONNECTIONS, "too many connections waiting to log in (at most "
          + LoginGate.PER_ADDRESS + " per address)");
      return false;
    }
    return true;
  }

  private static InetAddress peerIp(Via v) {
    byte[] ip = v.getPeerIp().toByteArray();
    try {
      return ip.length == 4 || ip.length == 16 ? InetAddress.getByAddress(ip) : null;
    } catch (java.net.UnknownHostException e) {
      // only a wrong length fails, and the length is checked above
      throw new IllegalStateException(e);
    }
  }

  /**
   * A relay passed the connection up: taken only from a relay logged in with the session it names,
   * reached through the relays of the Vias before it.
   */
  private void onVia(ChannelHandlerContext ctx, Via v) {
    if (via.size() == MAX_VIAS) {
      refuse(ctx, Error.Code.UNEXPECTED_MESSAGE, "a connection may come through at most " + MAX_VIAS + " relays");
      return;
    }
    String refusal = services.loop().relays().viaRefusal(v.getRelayId(), v.getRelaySession(), via);
    if (refusal != null) {
      // the peer learns no relay's name or way; the log says which rule it broke
      if (services.gate().logRefusal()) {
        log.warn("connection from {}: a Via that cannot be taken: {}", ctx.channel().remoteAddress(),
            HttpHandler.printable(refusal));
      }
      refuse(ctx, Error.Code.NOT_AUTHENTICATED, "a Via that cannot be taken (not a relay's session now)");
      return;
    }
    via.add(v.getRelayId());
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
      markClosing();
      return;
    }
    ticket = null;
    Caller caller = Caller.TRUSTED;
    if (hello.getCredential() == Credential.TOKEN) {
      Role role = hello.getRole();
      String id = hello.getPeerId();
      tokenSession = revocationOf(ctx.channel());
      services.tokenSessions().add(role, id, tokenSession);
      // a relay's session makes no calls: the caller is a client's only in name
      caller = role == Role.OPERATOR ? Caller.operator(id) : Caller.client(id);
      // a revocation stored between the check and here: its closing pass may have missed this session
      String revoked = services.authenticator().revokedRefusal(role, id, hello.getTokenGeneration());
      if (revoked != null) {
        refuse(ctx, Error.Code.AUTH_FAILED, revoked);
        return;
      }
    }
    welcome(ctx, new Login(hello, caller, tokenSession, via));
  }

  /**
   * Ends {@code channel} for a revocation: on its own event loop, after the task that revokes (an
   * operator revoking itself gets the reply first), by whichever handler holds it then.
   */
  private static TokenSessions.Session revocationOf(Channel channel) {
    return why -> channel.eventLoop().execute(() -> channel.pipeline().fireUserEventTriggered(new Revoked(why)));
  }

  /** Sends the Welcome and hands the connection to the handler of its role. */
  private void welcome(ChannelHandlerContext ctx, Login login) {
    // fresh random bytes the handshake already drew: no second draw from the shared SecureRandom
    ByteBuffer n = ByteBuffer.wrap(nonce);
    String sessionId = new UUID(n.getLong(), n.getLong()).toString();
    loggedInOrOut();
    Framing.decoder(ctx.pipeline()).limit(services.config().maxFrameBytes());
    ctx.writeAndFlush(Envelope.newBuilder().setWelcome(Welcome.newBuilder().setSessionId(sessionId)
        .setHeartbeatIntervalMs((int) services.config().heartbeatInterval().toMillis())
        .setHeartbeatTimeoutMs((int) Math.min(Integer.MAX_VALUE, services.config().heartbeatTimeout().toMillis()))
        .setMaxFrameBytes(services.config().maxFrameBytes())
        .setMaxResultBytes(services.config().maxResultBytes())).build());
    phase = Phase.WELCOMED;
    // the token session goes with the connection: the next handler leaves it at the close
    tokenSession = null;
    if (login.hello().getRole() == Role.WORKER) {
      WorkerHandler worker = new WorkerHandler(services, login, ctx.channel());
      ctx.pipeline().replace(this, "worker", worker);
      worker.joined();
    } else if (login.hello().getRole() == Role.RELAY) {
      RelayHandler relay = new RelayHandler(services, login, sessionId, ctx.channel());
      ctx.pipeline().replace(this, "relay", relay);
      relay.joined(ctx);
    } else {
      ctx.pipeline().replace(this, "client", new ClientHandler(services, login));
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    loggedInOrOut();
    if (tokenSession != null) {
      services.tokenSessions().remove(hello.getRole(), hello.getPeerId(), tokenSession);
    }
    ctx.fireChannelInactive();
  }
}
