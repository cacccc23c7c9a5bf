package dev.gleaner.master.net;

import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.tls.ServerTls;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.SslHandler;
import java.util.List;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first handler of a TLS master's pipeline: looks at the first bytes a peer sends. A TLS
 * record puts the {@link SslHandler} in its place; anything else is a clear-text peer, which gets
 * one {@link Error.Code#TLS_REQUIRED} frame in clear text (so it can say why) and the close.
 */
final class TlsOnlyHandler extends ByteToMessageDecoder {
  private static final Logger log = LoggerFactory.getLogger(TlsOnlyHandler.class);
  /** A TLS record header: enough to tell TLS from a frame. */
  private static final int HEADER_BYTES = 5;

  private final ServerTls tls;

  TlsOnlyHandler(ServerTls tls) {
    this.tls = tls;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (in.readableBytes() < HEADER_BYTES) {
      return;
    }
    if (SslHandler.isEncrypted(in)) {
      ctx.pipeline().replace(this, "ssl", tls.newHandler(ctx.alloc()));
      return;
    }
    String message = "this master speaks TLS only; start the peer with --ca FILE (the cluster's ca.crt)";
    log.warn("closing connection from {}: clear text to a TLS-only master", ctx.channel().remoteAddress());
    in.skipBytes(in.readableBytes());
    byte[] frame = Messages.error(Error.Code.TLS_REQUIRED, message).toByteArray();
    ctx.writeAndFlush(Unpooled.buffer(4 + frame.length).writeInt(frame.length).writeBytes(frame))
        .addListener(ChannelFutureListener.CLOSE);
    ctx.channel().config().setAutoRead(false);
  }

  /** True if {@code cause} is a failed TLS handshake or record. */
  static boolean isTls(Throwable cause) {
    return reasonOrNull(cause) != null;
  }

  static String reason(Throwable cause) {
    String r = reasonOrNull(cause);
    return r == null ? String.valueOf(cause) : r;
  }

  private static String reasonOrNull(Throwable cause) {
    Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
    if (!(c instanceof SSLException)) {
      return null;
    }
    String m = c.getMessage();
    for (Throwable t = c.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t.getMessage() != null) {
        m = t.getMessage();
      }
    }
    if (m != null && m.contains("Empty client certificate chain")) {
      return "the peer presented no certificate, and this master requires one of the cluster CA (--client-auth require)";
    }
    if (m != null && m.contains("Received fatal alert")) {
      return "the peer refused this master's certificate (" + m + "; does its --ca hold this cluster's ca.crt,"
          + " and does the certificate name the host it dialled?)";
    }
    return m;
  }
}
