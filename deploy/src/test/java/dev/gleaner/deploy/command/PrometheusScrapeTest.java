package dev.gleaner.deploy.command;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus server (Debian's {@code prometheus}) scrapes a master on its one port and a
 * worker's {@code --metrics-port}, and its query API then gives the job's committed units.
 */
class PrometheusScrapeTest {
  private static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");

  @TempDir
  Path dir;

  private Process prometheus;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();

  @AfterEach
  void stopPrometheus() throws InterruptedException {
    if (prometheus != null) {
      prometheus.destroy();
      if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
        prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void prometheusScrapesTheMasterAndAWorkerAndSeesTheJobCommitted() throws Exception {
    assumeTrue(Files.isExecutable(PROMETHEUS), "Prometheus is not installed (Debian's package prometheus): "
        + "the scrape by a real Prometheus is not tested here");
    try (LocalCluster c = new LocalCluster(dir);
        WorkerMetrics w1 = WorkerMetrics.serve(c.worker("w1", 1, Set.of()), "w1", 0, false)) {
      c.worker("w2", 1, Set.of());
      String id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("from", "0")
          .putParams("to", "200000000").setCheckpoints(2).setMinWorkers(2).build());
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(60));
      assertEquals("11078937 primes", s.getResult());

      int port;
      try (ServerSocket free = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        port = free.getLocalPort();
      }
      Path config = dir.resolve("prometheus.yml");
      Files.writeString(config, """
          global: {scrape_interval: 1s, scrape_timeout: 1s}
          scrape_configs:
            - job_name: gleaner
              static_configs: [{targets: ['127.0.0.1:%d']}]
            - job_name: gleaner-workers
              static_configs: [{targets: ['127.0.0.1:%d']}]
          """.formatted(c.master.port(), w1.port()));
      prometheus = new ProcessBuilder(PROMETHEUS.toString(), "--config.file=" + config,
          "--storage.tsdb.path=" + dir.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + port)
          .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
      URI api = URI.create("http://127.0.0.1:" + port + "/api/v1/query?query=");

      await().atMost(Duration.ofSeconds(60)).until(() -> value(api, "gleaner_units_committed_total") == s.getUnitsTotal());
      await().atMost(Duration.ofSeconds(30)).until(() -> value(api, "up{job=\"gleaner-workers\"}") == 1);
      // the worker's own count, as Prometheus stored it, is what the master acknowledged to it (the
      // last acknowledgement may land after the job shows DONE: wait for the next scrape)
      await().atMost(Duration.ofSeconds(30)).until(() -> w1Acknowledged(w1) > 0
          && value(api, "gleaner_worker_units_acknowledged_total{worker=\"w1\"}") == w1Acknowledged(w1));
      assertEquals(1.0, value(api, "up{job=\"gleaner\"}"));
    }
  }

  private long w1Acknowledged(WorkerMetrics w1) throws Exception {
    String body = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + w1.port() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString()).body();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(
        "(?m)^gleaner_worker_units_acknowledged_total\\{worker=\"w1\"} ([0-9.E+-]+)$").matcher(body);
    if (!m.find()) {
      throw new AssertionError("the worker's scrape has no gleaner_worker_units_acknowledged_total:\n" + body);
    }
    return (long) Double.parseDouble(m.group(1));
  }

  /** The query's single value; NaN while Prometheus has none (not up yet, not scraped yet). */
  private double value(URI api, String query) {
    try {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api + URLEncoder.encode(query,
          StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        return Double.NaN;
      }
      JsonNode result = json.readTree(r.body()).path("data").path("result");
      return result.size() == 1 ? Double.parseDouble(result.get(0).path("value").get(1).asText()) : Double.NaN;
    } catch (java.io.IOException e) {
      return Double.NaN; // not listening yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Double.NaN;
    }
  }
}
