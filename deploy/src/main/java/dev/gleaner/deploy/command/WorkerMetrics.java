package dev.gleaner.deploy.command;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.gleaner.master.net.LoopbackNames;
import dev.gleaner.master.net.RateLimitedLog;
import dev.gleaner.worker.WorkerCounters;
import dev.gleaner.worker.WorkerDaemon;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code gleaner worker --metrics-port}: the worker's own meters in Prometheus' text format at
 * {@code GET /metrics} (chunks, units reported and acknowledged, input bytes, logins, vacates, what
 * it holds now, its state, and the JVM's memory, threads and CPU), each labelled with the worker's
 * id. The master's {@code /metrics} says what the cluster committed; this says what one computer did
 * and holds, also while it cannot reach the master. Bound to loopback unless
 * {@code --metrics-from-anywhere}; on loopback it answers only requests whose Host names this
 * machine's loopback or that carry none (not a browser), as the master's web port does, so a web
 * page whose name was rebound to 127.0.0.1 cannot read it through a browser. Served by the JDK's own HTTP server: one small endpoint, no
 * second network stack in the worker.
 */
final class WorkerMetrics implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(WorkerMetrics.class);
  /** Prometheus' text exposition format. */
  static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  /** Threads answering requests. */
  static final int THREADS = 4;

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final HttpServer server;
  private final JvmGcMetrics gc = new JvmGcMetrics();
  private final boolean fromAnywhere;
  /** Requests refused for their Host, logged at most 20 per 10 s: a page that keeps asking must not flood the log. */
  private final RateLimitedLog refusals = new RateLimitedLog(log, 20, 10_000,
      "/metrics request(s) were refused for their Host");

  private WorkerMetrics(HttpServer server, boolean fromAnywhere) {
    this.server = server;
    this.fromAnywhere = fromAnywhere;
  }

  /**
   * Takes {@code port} (0: any free one) of the loopback address, or of every address when
   * {@code fromAnywhere}, before the worker starts: a port in use stops it at once, with one line.
   */
  static WorkerMetrics bind(int port, boolean fromAnywhere) throws IOException {
    InetSocketAddress at = fromAnywhere ? new InetSocketAddress(port)
        : new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    // a request that never ends (its headers trickling in) is closed after 10 s instead of holding a thread
    if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
      System.setProperty("sun.net.httpserver.maxReqTime", "10");
    }
    try {
      return new WorkerMetrics(HttpServer.create(at, 16), fromAnywhere);
    } catch (BindException e) {
      throw new IllegalArgumentException("--metrics-port " + port + ": cannot listen on "
          + (fromAnywhere ? "*" : at.getAddress().getHostAddress()) + ":" + port + " (" + e.getMessage() + ")", e);
    }
  }

  /** Binds, then serves {@code daemon}'s meters (tests). */
  static WorkerMetrics serve(WorkerDaemon daemon, String workerId, int port, boolean fromAnywhere) throws IOException {
    WorkerMetrics m = bind(port, fromAnywhere);
    m.serve(daemon, workerId);
    return m;
  }

  /** Serves {@code daemon}'s meters, each labelled with {@code workerId}. */
  void serve(WorkerDaemon daemon, String workerId) {
    registry.config().commonTags("worker", workerId);
    WorkerCounters c = daemon.counters();
    counter("gleaner.worker.chunks.assigned", "chunks the master handed to this worker", c, WorkerCounters::chunksAssigned);
    counter("gleaner.worker.chunks.failed", "chunks that failed here (their units went to others)", c,
        WorkerCounters::chunksFailed);
    counter("gleaner.worker.pieces.reported", "pieces computed and sent to the master", c, WorkerCounters::piecesReported);
    counter("gleaner.worker.units.computed", "units computed here, step by step, reported or not yet", c,
        WorkerCounters::unitsComputed);
    counter("gleaner.worker.units.reported", "units in the pieces computed and sent to the master", c,
        WorkerCounters::unitsReported);
    counter("gleaner.worker.units.acknowledged", "units the master acknowledged as durable (saved from this"
        + " worker's pieces, or already saved from another copy)", c, WorkerCounters::unitsAcknowledged);
    counter("gleaner.worker.units.discarded", "units the master acknowledged without keeping them (another copy"
        + " saved them first, or the chunk was cancelled)", c, WorkerCounters::unitsDiscarded);
    FunctionCounter.builder("gleaner.worker.input", c, x -> x.inputBytes()).baseUnit("bytes")
        .description("input bytes received from the master").register(registry);
    counter("gleaner.worker.connects", "logins to the master (the first and every reconnection)", c,
        WorkerCounters::connects);
    counter("gleaner.worker.disconnects", "connections to the master lost", c, WorkerCounters::disconnects);
    counter("gleaner.worker.vacates", "times the owner took the computer back and the worker vacated", c,
        WorkerCounters::vacates);
    gauge("gleaner.worker.chunks.running", "chunks running or waiting for input", daemon, d -> d.chunksRunning());
    gauge("gleaner.worker.pieces.unacknowledged", "pieces computed and not yet acknowledged by the master", daemon,
        d -> d.unacknowledgedPieces());
    for (WorkerDaemon.State s : WorkerDaemon.State.values()) {
      Gauge.builder("gleaner.worker.state", daemon, d -> d.state() == s ? 1 : 0).tag("state", s.name())
          .description("1 for the state the worker is in").strongReference(true).register(registry);
    }
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    gc.bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    server.createContext("/", this::handle);
    // a few threads: a scrape is small, and a worker's cores are for its chunks; more than one, so a
    // request that stalls (a slow or hostile peer) does not stop the others
    server.setExecutor(Executors.newFixedThreadPool(THREADS, r -> {
      Thread t = new Thread(r, "gleaner-worker-metrics");
      t.setDaemon(true);
      return t;
    }));
    server.start();
    log.info("worker metrics at http://{}:{}/metrics{}", fromAnywhere ? "0.0.0.0"
        : server.getAddress().getAddress().getHostAddress(), port(),
        fromAnywhere ? "" : " (loopback only; --metrics-from-anywhere opens it)");
  }

  int port() {
    return server.getAddress().getPort();
  }

  private void counter(String name, String description, WorkerCounters c, ToDoubleFunction<WorkerCounters> f) {
    FunctionCounter.builder(name, c, f).description(description).register(registry);
  }

  private void gauge(String name, String description, WorkerDaemon d, ToDoubleFunction<WorkerDaemon> f) {
    Gauge.builder(name, d, f).description(description).strongReference(true).register(registry);
  }

  private void handle(HttpExchange x) throws IOException {
    try (x) {
      String method = x.getRequestMethod();
      boolean head = method.equals("HEAD");
      java.util.List<String> hosts = x.getRequestHeaders().getOrDefault("Host", java.util.List.of());
      if (!fromAnywhere && (hosts.size() > 1 || !LoopbackNames.named(hosts.isEmpty() ? null : hosts.get(0)))) {
        // a web site whose name was rebound to this machine, read through its visitor's browser
        if (refusals.allow()) {
          log.info("refused a /metrics request from {} for Host {}: this port answers loopback names only",
              x.getRemoteAddress(), hosts);
        }
        reply(x, 403, "this worker's metrics answer requests for a loopback name only (localhost, 127.x.x.x, [::1];"
            + " Host: " + hosts + "); give --metrics-from-anywhere to serve other names\n", "text/plain; charset=utf-8",
            head);
      } else if (!method.equals("GET") && !head) {
        reply(x, 405, "only GET /metrics\n", "text/plain; charset=utf-8", false);
      } else if (!x.getRequestURI().getPath().equals("/metrics")) {
        reply(x, 404, "this worker serves /metrics only\n", "text/plain; charset=utf-8", head);
      } else {
        reply(x, 200, registry.scrape(), CONTENT_TYPE, head);
      }
    } catch (IOException | RuntimeException e) {
      log.warn("a /metrics request from {} failed: {}", x.getRemoteAddress(), e.toString());
      throw e;
    }
  }

  private static void reply(HttpExchange x, int status, String body, String type, boolean head) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().set("Content-Type", type);
    x.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = x.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    gc.close();
    if (server.getExecutor() instanceof java.util.concurrent.ExecutorService e) {
      e.shutdownNow();
    }
    registry.close();
  }
}
