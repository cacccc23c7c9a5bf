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
 * record puts the {@link SslHandler} in its place; a clear-text HTTP request (a browser or a scraper
 * given {@code http://}) gets an HTTP answer naming the {@code https://} address; anything else is a
 * clear-text peer, which gets one {@link Error.Code#TLS_REQUIRED} frame in clear text (so it can say
 * why) and the close.
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
    String start = in.toString(in.readerIndex(), HEADER_BYTES, java.nio.charset.StandardCharsets.US_ASCII);
    if (start.startsWith("GET ") || start.equals("HEAD ") || start.equals("POST ")) {
      int port = ((java.net.InetSocketAddress) ctx.channel().localAddress()).getPort();
      String body = "This Gleaner master speaks TLS only: open https://" + hostOf(in, port) + "/ instead of http://"
          + " (its certificate is signed by the cluster's ca.crt).\n";
      log.warn("closing connection from {}: an http:// request to a TLS-only master (told to use https://)",
          ctx.channel().remoteAddress());
      in.skipBytes(in.readableBytes());
      byte[] b = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      String head = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: "
          + b.length + "\r\nConnection: close\r\n\r\n";
      ctx.writeAndFlush(Unpooled.wrappedBuffer(head.getBytes(java.nio.charset.StandardCharsets.US_ASCII), b))
          .addListener(ChannelFutureListener.CLOSE);
      ctx.channel().config().setAutoRead(false);
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

  /**
   * The Host header of the HTTP request in {@code in} as far as it has arrived (a browser sends the
   * whole request at once), else this master's port on localhost.
   */
  private static String hostOf(ByteBuf in, int port) {
    String head = in.toString(in.readerIndex(), Math.min(in.readableBytes(), 8192), java.nio.charset.StandardCharsets.ISO_8859_1);
    for (String line : head.split("\r\n")) {
      if (line.regionMatches(true, 0, "Host:", 0, 5)) {
        String host = line.substring(5).strip();
        // a name and a port, nothing that could break out of the line
        if (host.matches("[A-Za-z0-9.:\\[\\]-]{1,255}")) {
          return host;
        }
      }
    }
    return "localhost:" + port;
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
