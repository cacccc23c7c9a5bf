package dev.gleaner.master.net;

import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.WireException;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the handlers of one connection share, whichever holds it ({@link HandshakeHandler}, then
 * {@link WorkerHandler} or {@link ClientHandler}): anything out of place gets an {@link Error} the
 * peer can read, one log line, and the close of this connection only; a broken frame, a failed TLS
 * session, a dropped socket and a fault of the master's own each end it their way.
 */
abstract class ConnectionHandler extends SimpleChannelInboundHandler<Envelope> {
  private static final Logger log = LoggerFactory.getLogger(ConnectionHandler.class);

  /**
   * The connection's token was revoked: it ends with {@code why}. Sent down the pipeline on the
   * connection's own event loop, so it reaches whichever handler holds the connection by then.
   */
  record Revoked(String why) {}

  final Services services;
  /** An error was sent (or the close is on its way): nothing more is read or refused. */
  private boolean closing;

  ConnectionHandler(Services services) {
    this.services = services;
  }

  /** The worker this connection serves, or null (a handshake, a client). */
  WorkerSession worker() {
    return null;
  }

  /** True once the connection is closing: what it still sends is dropped. */
  final boolean closing() {
    return closing;
  }

  /** The close is on its way without an error of ours (another connection's thread closes it): read nothing more. */
  final void markClosing() {
    closing = true;
  }

  /** Sends the peer an error saying {@code message}, logs it in one line and closes; once per connection. */
  final void refuse(ChannelHandlerContext ctx, Error.Code code, String message) {
    if (closing) {
      return;
    }
    closing = true;
    if (!ctx.channel().isActive()) {
      return;
    }
    services.metrics().protocolErrors.increment();
    WorkerSession session = worker();
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
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof Revoked r) {
      refuse(ctx, Error.Code.AUTH_FAILED, r.why());
    } else {
      ctx.fireUserEventTriggered(evt);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof WireException w) {
      refuse(ctx, w.code(), w.getMessage());
    } else if (TlsOnlyHandler.isTls(cause)) {
      // a peer that does not trust this master, or a certificate the master does not trust: no frame can reach it
      closing = true;
      services.metrics().protocolErrors.increment();
      log.warn("closing connection from {}: TLS failed: {}", ctx.channel().remoteAddress(),
          TlsOnlyHandler.reason(cause));
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
