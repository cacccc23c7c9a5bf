package dev.gleaner.master.net;

import dev.gleaner.master.auth.Caller;
import dev.gleaner.master.auth.PeerAuthenticator;
import dev.gleaner.master.status.ReadableStatus;
import dev.gleaner.master.status.WebStatus;
import dev.gleaner.master.web.StatusJson;
import dev.gleaner.master.web.WebAssets;
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
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP on the master's port, one request per connection; the connection never reaches the framed
 * protocol's handlers, which see no bytes from it.
 *
 * <ul>
 *   <li>{@code GET /metrics}: the meters in Prometheus' text format (Micrometer's Prometheus
 *       registry names them {@code gleaner_units_committed_total} and so on); loopback peers only
 *       unless the master was told otherwise ({@code gleaner master --metrics-from-anywhere}).
 *   <li>{@code GET /} and its files ({@link WebAssets}): the web page; {@code GET /api/status}: what
 *       it shows, one JSON document ({@link StatusJson}), built on the control loop's thread as
 *       {@code gleaner status}'s reply is. Loopback peers only, unless the master was started with
 *       {@code --web-from-anywhere}; other addresses must then show a client's or an operator's token or the shared
 *       secret ({@code Authorization: Bearer}, or {@code ?token=}). The status is what the reader may
 *       read ({@link ReadableStatus}): without a credential, what a client reads of another's job.
 *   <li>{@code /api/jobs...}: the jobs' API ({@link JobsApi}), a credential in the Authorization
 *       header always; its description {@code GET /api/openapi.json}.
 * </ul>
 *
 * Refusals are one line of plain text (of JSON in the API), and logged.
 */
final class HttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger log = LoggerFactory.getLogger(HttpHandler.class);
  /** Prometheus' text exposition format. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  private static final String TEXT = "text/plain; charset=utf-8";
  private static final String JSON = "application/json";
  /** The page loads nothing but the master's own files. */
  private static final String CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:;"
      + " frame-ancestors 'none'";

  private final Services services;

  HttpHandler(Services services) {
    this.services = services;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (!request.decoderResult().isSuccess()) {
      log.info("refused a malformed HTTP request from {}: {}", ctx.channel().remoteAddress(),
          request.decoderResult().cause() == null ? "?" : request.decoderResult().cause().toString());
      respond(ctx, HttpResponseStatus.BAD_REQUEST, "a malformed HTTP request\n", TEXT, false);
      return;
    }
    int hosts = request.headers().getAll(HttpHeaderNames.HOST).size();
    if (hosts > 1) {
      // which one a check reads and which one a proxy on the way reads may differ: neither is trusted
      log.info("refused an HTTP request with {} Host headers from {}", hosts, ctx.channel().remoteAddress());
      respond(ctx, HttpResponseStatus.BAD_REQUEST, "more than one Host header\n", TEXT, false);
      return;
    }
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    String path = uri.path();
    boolean head = request.method().equals(HttpMethod.HEAD);
    if (JobsApi.handles(path)) {
      api(ctx, request, uri, head);
    } else if (!request.method().equals(HttpMethod.GET) && !head) {
      respond(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, "only GET and HEAD here: the jobs' API is under /api/jobs\n",
          TEXT, head);
    } else if (path.equals("/metrics")) {
      metrics(ctx, request, head);
    } else if (path.equals("/api/status") || WebAssets.has(path)) {
      PeerAuthenticator.WebLogin login = webLogin(ctx, request, uri, path);
      if (login.refusal() != null) {
        log.info("refused {} to {}: {}", printable(path), ctx.channel().remoteAddress(), login.refusal());
        respond(ctx, HttpResponseStatus.FORBIDDEN, login.refusal() + "\n", TEXT, head);
      } else if (path.equals("/api/status")) {
        status(ctx, head, login.caller());
      } else if (path.equals("/")) {
        page(ctx, head, login.caller());
      } else {
        WebAssets.Asset a = WebAssets.get(path);
        respond(ctx, HttpResponseStatus.OK, a.bytes(), a.contentType(), head);
      }
    } else {
      log.debug("no page {} for {}", printable(path), ctx.channel().remoteAddress());
      respond(ctx, HttpResponseStatus.NOT_FOUND, "no such page: this master serves /, /api/status, /api/jobs and /metrics\n",
          TEXT, head);
    }
  }

  /**
   * The jobs' API ({@link JobsApi}): its description to anyone the web answers; the rest to a
   * credential in an Authorization header only (never ?token=, never anonymous, on this machine too).
   */
  private void api(ChannelHandlerContext ctx, FullHttpRequest request, QueryStringDecoder uri, boolean head) {
    String path = uri.path();
    if (!loopback(ctx) && !services.config().webFromAnywhere()) {
      String why = "the HTTP API answers loopback addresses only; start the master with --web-from-anywhere to open"
          + " it (to holders of a client's or an operator's token or the shared secret)";
      log.info("refused {} {} to {}: {}", request.method(), printable(path), ctx.channel().remoteAddress(), why);
      respond(ctx, JobsApi.Answer.error(HttpResponseStatus.FORBIDDEN, why), head, path);
      return;
    }
    Caller caller = Caller.ANONYMOUS;
    if (!path.equals("/api/openapi.json")) {
      String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
      String why;
      if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
        why = (header == null ? "no credential" : "the Authorization header must be 'Bearer CREDENTIAL'")
            + ": the API takes a client's or an operator's token as NAME:BASE64 (the id= and token= of its file) or"
            + " the shared secret, in an Authorization: Bearer header";
      } else {
        PeerAuthenticator.WebLogin login = services.authenticator().webLogin(header.substring(7).strip());
        why = login.refusal();
        caller = login.caller();
      }
      if (why != null) {
        log.info("refused {} {} to {}: {}", request.method(), printable(path), ctx.channel().remoteAddress(), why);
        respond(ctx, JobsApi.Answer.error(HttpResponseStatus.UNAUTHORIZED, why), head, path);
        return;
      }
      // logged in: out of the login gate, and no handshake timer cuts a long poll short
      HandshakeHandler handshake = ctx.pipeline().get(HandshakeHandler.class);
      if (handshake != null) {
        handshake.authenticatedOverHttp();
      }
    }
    new JobsApi(services).answer(ctx, request, uri, caller).whenCompleteAsync((a, err) -> {
      if (err != null) {
        log.error("the HTTP API failed on {} {} from {}: {}", request.method(), printable(path),
            ctx.channel().remoteAddress(), err.toString(), err);
        respond(ctx, JobsApi.Answer.error(HttpResponseStatus.INTERNAL_SERVER_ERROR, "the master failed: "
            + err.getMessage()), head, path);
      } else {
        respond(ctx, a, head, path);
      }
    }, ctx.executor());
  }

  /** An answer of the API: a 401 says how to log in (WWW-Authenticate), a 405 what the path takes (Allow). */
  private static void respond(ChannelHandlerContext ctx, JobsApi.Answer a, boolean head, String path) {
    FullHttpResponse r = response(a.status(), a.body(), a.type(), head);
    if (a.status().equals(HttpResponseStatus.UNAUTHORIZED)) {
      r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"gleaner\"");
    } else if (a.status().equals(HttpResponseStatus.METHOD_NOT_ALLOWED)) {
      r.headers().set(HttpHeaderNames.ALLOW, JobsApi.allowed(path));
    }
    ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
  }

  private void metrics(ChannelHandlerContext ctx, FullHttpRequest request, boolean head) {
    String refusal = metricsRefusal(ctx, request.headers().get(HttpHeaderNames.HOST));
    if (refusal != null) {
      log.info("refused /metrics to {}: {}", ctx.channel().remoteAddress(), refusal);
      respond(ctx, HttpResponseStatus.FORBIDDEN, refusal + "\n", TEXT, head);
    } else if (!(services.registry() instanceof PrometheusMeterRegistry prometheus)) {
      respond(ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "this master keeps no Prometheus registry\n", TEXT, head);
    } else {
      respond(ctx, HttpResponseStatus.OK, prometheus.scrape(), CONTENT_TYPE, head);
    }
  }

  /** Where the page's first status goes: in the page itself, so that its first paint shows the jobs and workers. */
  static final String STATUS_MARK = "<!--initial-status-->";

  /**
   * The page with the current status in it ({@code <script id="initial-status" type="application/json">}),
   * which the page draws before its first poll: a page opened shows its jobs and workers at once,
   * not "loading...". A status that cannot be built leaves the page to its polls.
   */
  private void page(ChannelHandlerContext ctx, boolean head, Caller caller) {
    WebAssets.Asset page = WebAssets.get("/");
    webStatus(caller).whenCompleteAsync((status, err) -> {
      String html = new String(page.bytes(), java.nio.charset.StandardCharsets.UTF_8);
      String inline = "";
      Throwable failed = err;
      if (failed == null) {
        try {
          inline = "<script id=\"initial-status\" type=\"application/json\">" + scriptSafe(StatusJson.write(status))
              + "</script>";
        } catch (RuntimeException e) {
          failed = e;
        }
      }
      if (failed != null) {
        log.warn("the page for {} goes without its first status (its polls fetch it): {}",
            ctx.channel().remoteAddress(), failed.toString(), failed);
      }
      respond(ctx, HttpResponseStatus.OK, html.replace(STATUS_MARK, inline).getBytes(java.nio.charset.StandardCharsets.UTF_8),
          page.contentType(), head);
    }, ctx.executor());
  }

  /**
   * JSON made safe inside an HTML script element: '<', '>' and '&' (and the two line separators
   * JavaScript reads as line ends) as JSON escapes, so that no text in it (a job's name) can end the
   * element or open a tag; the JSON means the same.
   */
  static String scriptSafe(byte[] json) {
    String s = new String(json, java.nio.charset.StandardCharsets.UTF_8);
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> b.append("\\u003c");
        case '>' -> b.append("\\u003e");
        case '&' -> b.append("\\u0026");
        case '\u2028' -> b.append("\\u2028");
        case '\u2029' -> b.append("\\u2029");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  /** The page's status as {@code caller} may read it (see {@link ReadableStatus}). */
  private java.util.concurrent.CompletableFuture<WebStatus> webStatus(Caller caller) {
    return services.status().webStatus(services.registry()).thenApply(s -> new WebStatus(
        ReadableStatus.of(s.reply(), caller, services.config().privateJobs()), s.plans(), s.atMillis(), s.computed()));
  }

  private void status(ChannelHandlerContext ctx, boolean head, Caller caller) {
    // written on this connection's thread, not the control loop's
    webStatus(caller).whenCompleteAsync((status, err) -> {
      if (err != null) {
        log.error("cannot build the web status for {}: {}", ctx.channel().remoteAddress(), err.toString(), err);
        respond(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, "the master could not build its status: "
            + err.getMessage() + "\n", TEXT, head);
        return;
      }
      byte[] body;
      try {
        body = StatusJson.write(status);
      } catch (RuntimeException e) {
        log.error("cannot write the web status for {}: {}", ctx.channel().remoteAddress(), e.toString(), e);
        respond(ctx, HttpResponseStatus.INTERNAL_SERVER_ERROR, "the master could not write its status: "
            + e.getMessage() + "\n", TEXT, head);
        return;
      }
      respond(ctx, HttpResponseStatus.OK, body, JSON, head);
    }, ctx.executor());
  }

  /**
   * Null if this peer may read the meters, else why not: loopback peers asking for a loopback name
   * (the page's rule: a web site whose name was rebound to 127.0.0.1 would otherwise read the workers'
   * ids and activity through a browser on this machine), or anyone with {@code --metrics-from-anywhere}.
   */
  private String metricsRefusal(ChannelHandlerContext ctx, String host) {
    if (services.config().metricsFromAnywhere()) {
      return null;
    }
    if (!loopback(ctx)) {
      return "/metrics answers loopback addresses only; start the master with --metrics-from-anywhere to open it";
    }
    if (!LoopbackNames.named(host)) {
      return "/metrics asked for as '" + host + "' from this machine: scrape it as localhost:" + port(ctx)
          + " or 127.0.0.1:" + port(ctx) + " (--metrics-from-anywhere opens it to any name)";
    }
    return null;
  }

  /**
   * Who this peer is to the page and its status, or why it may not see them. On this machine, under
   * a loopback name, no credential is needed: the reader is anonymous (it reads what a client reads
   * of another's job) unless it shows one. Elsewhere it must show a client's or an operator's token
   * or the shared secret. A credential shown must be good, wherever from.
   */
  private PeerAuthenticator.WebLogin webLogin(ChannelHandlerContext ctx, FullHttpRequest request, QueryStringDecoder uri,
      String path) {
    boolean local = loopback(ctx);
    boolean localName = local && LoopbackNames.named(request.headers().get(HttpHeaderNames.HOST));
    if (!local && !services.config().webFromAnywhere()) {
      return PeerAuthenticator.WebLogin.refused("the web page answers loopback addresses only; start the master with"
          + " --web-from-anywhere to open it (to holders of a client's or an operator's token or the shared secret)");
    }
    if (!path.equals("/") && !path.equals("/api/status")) {
      // the page's scripts, styles and libraries: the same in every Gleaner jar, nothing of this cluster
      return new PeerAuthenticator.WebLogin(Caller.ANONYMOUS, null);
    }
    String credential = null;
    String header = request.headers().get(HttpHeaderNames.AUTHORIZATION);
    if (header != null) {
      if (!header.regionMatches(true, 0, "Bearer ", 0, 7)) {
        return PeerAuthenticator.WebLogin.refused("the Authorization header must be 'Bearer CREDENTIAL'");
      }
      credential = header.substring(7).strip();
    } else {
      List<String> token = uri.parameters().get("token");
      credential = token == null || token.isEmpty() ? null : token.get(0);
    }
    if (localName && (credential == null || credential.isEmpty())) {
      return new PeerAuthenticator.WebLogin(Caller.ANONYMOUS, null);
    }
    PeerAuthenticator.WebLogin login = services.authenticator().webLogin(credential);
    String why = login.refusal();
    if (why == null) {
      return login;
    }
    if (localName) {
      return PeerAuthenticator.WebLogin.refused(path + ": " + why);
    }
    if (local) {
      // a page from this machine under another name may be a web site that rebinds its name to 127.0.0.1
      return PeerAuthenticator.WebLogin.refused(path + " asked for as '" + request.headers().get(HttpHeaderNames.HOST)
          + "' from this machine needs a credential (" + why + "); open it as http"
          + (services.config().tls() == null ? "" : "s") + "://localhost:" + port(ctx) + "/ instead");
    }
    return PeerAuthenticator.WebLogin.refused(path + " from " + address(ctx) + ": " + why);
  }

  /** A request's path for the log: control characters (a decoded %0A) shown as '?', cut at 200 characters. */
  static String printable(String path) {
    String p = path.replaceAll("\\p{Cntrl}", "?");
    return p.length() > 200 ? p.substring(0, 200) + "..." : p;
  }

  private static int port(ChannelHandlerContext ctx) {
    return ctx.channel().localAddress() instanceof InetSocketAddress a ? a.getPort() : 0;
  }

  private static String address(ChannelHandlerContext ctx) {
    return ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress().getHostAddress()
        : String.valueOf(ctx.channel().remoteAddress());
  }

  private static boolean loopback(ChannelHandlerContext ctx) {
    return ctx.channel().remoteAddress() instanceof InetSocketAddress a && a.getAddress().isLoopbackAddress();
  }

  private static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String body, String type,
      boolean head) {
    respond(ctx, status, body.getBytes(StandardCharsets.UTF_8), type, head);
  }

  private static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, byte[] bytes, String type,
      boolean head) {
    ctx.writeAndFlush(response(status, bytes, type, head)).addListener(ChannelFutureListener.CLOSE);
  }

  private static FullHttpResponse response(HttpResponseStatus status, byte[] bytes, String type, boolean head) {
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
        head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
    r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    if (!type.equals(CONTENT_TYPE)) {
      // the page and its status: never cached (live figures), never framed, types as declared
      r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
      r.headers().set("X-Content-Type-Options", "nosniff");
      r.headers().set("Content-Security-Policy", CSP);
      r.headers().set("Referrer-Policy", "no-referrer");
    }
    return r;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.warn("closing HTTP connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
