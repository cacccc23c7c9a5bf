package dev.gleaner.master.net;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /metrics} on the master's port: its meters in Prometheus' text format (Micrometer's
 * Prometheus registry names them {@code gleaner_units_committed_total} and so on). Read-only, one
 * request per connection, loopback peers only unless the master was told otherwise
 * ({@code gleaner master --metrics-from-anywhere}). The connection never reaches the framed
 * protocol's handlers, which see no bytes from it.
 */
final class MetricsHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger log = LoggerFactory.getLogger(MetricsHttpHandler.class);
  /** Prometheus' text exposition format. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private final Services services;

  MetricsHttpHandler(Services services) {
    this.services = services;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (!request.decoderResult().isSuccess()) {
      respond(ctx, HttpResponseStatus.BAD_REQUEST, "a malformed HTTP request\n", "text/plain; charset=utf-8", false);
      return;
    }
    String path = new QueryStringDecoder(request.uri()).path();
    boolean head = request.method().equals(HttpMethod.HEAD);
    if (!request.method().equals(HttpMethod.GET) && !head) {
      respond(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET /metrics\n", "text/plain; charset=utf-8", head);
    } else if (!path.equals("/metrics")) {
      respond(ctx, HttpResponseStatus.NOT_FOUND, "this master serves /metrics only\n", "text/plain; charset=utf-8",
          head);
    } else if (!allowed(ctx)) {
      log.info("refused /metrics to {} (loopback only; --metrics-from-anywhere opens it)", ctx.channel().remoteAddress());
      respond(ctx, HttpResponseStatus.FORBIDDEN, "/metrics answers loopback addresses only; start the master with"
          + " --metrics-from-anywhere to open it\n", "text/plain; charset=utf-8", head);
    } else if (!(services.registry() instanceof PrometheusMeterRegistry prometheus)) {
      respond(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "this master keeps no Prometheus registry\n",
          "text/plain; charset=utf-8", head);
    } else {
      respond(ctx, HttpResponseStatus.OK, prometheus.scrape(), CONTENT_TYPE, head);
    }
  }

  private boolean allowed(ChannelHandlerContext ctx) {
    if (services.config().metricsFromAnywhere()) {
      return true;
    }
    return ctx.channel().remoteAddress() instanceof InetSocketAddress a && a.getAddress().isLoopbackAddress();
  }

  private static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String body, String type,
      boolean head) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
        head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
    r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.warn("closing HTTP connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
