package dev.gleaner.master.web;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.ScriptedWorker;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Prometheus scrapes the master on its one port; workers and clients go on talking frames there. */
class MetricsHttpTest {
  @TempDir
  Path dir;

  private static HttpResponse<String> get(int port, String path) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void metricsAreServedInPrometheusFormatBesideTheFramedProtocol() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String id = m.submit(MasterFixture.primes(0, 300_000, "self", 100_000, 0));
      try (ScriptedWorker w = new ScriptedWorker(m.port, SECRET, "w1")) {
        assertEquals("DONE", m.awaitEnd(id).getState());
      }
      HttpResponse<String> r = get(m.port, "/metrics");
      assertEquals(200, r.statusCode(), r.body());
      assertEquals("text/plain; version=0.0.4; charset=utf-8", r.headers().firstValue("content-type").orElse(""));
      // Prometheus' names: dots to underscores, counters ending in _total
      assertTrue(r.body().lines().anyMatch(l -> l.matches("gleaner_units_committed_total(\\{.*\\})? 300000(\\.0)?")),
          r.body());
      assertTrue(r.body().contains("# TYPE gleaner_units_committed_total counter"), r.body());
      assertTrue(r.body().contains("jvm_memory_used_bytes{"), "the JVM's meters too");
      // "/" is the web page now (WebPageTest); other paths are still not found
      assertEquals(404, get(m.port, "/nothing-here").statusCode());
      // the port still speaks frames after HTTP visitors
      assertEquals("job-2", m.submit(MasterFixture.primes(0, 1000, "self", 1000, 0)));
    }
  }

  @Test
  void eachWorkerHasItsLabelledSeries() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String id = m.submit(MasterFixture.primes(0, 300_000, "self", 100_000, 0));
      try (ScriptedWorker w = new ScriptedWorker(m.port, SECRET, "w1")) {
        assertEquals("DONE", m.awaitEnd(id).getState());
        // the series are refreshed once a second
        await().atMost(Duration.ofSeconds(10)).until(() -> {
          String b = get(m.port, "/metrics").body();
          return b.contains("gleaner_worker_units_committed{worker=\"w1\"} 300000.0")
              && b.contains("gleaner_worker_connected{worker=\"w1\"} 1.0");
        });
      }
      await().atMost(Duration.ofSeconds(10)).until(() ->
          get(m.port, "/metrics").body().contains("gleaner_worker_connected{worker=\"w1\"} 0.0"));
      String b = get(m.port, "/metrics").body();
      assertTrue(b.contains("# TYPE gleaner_worker_speed_units_per_second gauge"), b);
      assertTrue(b.contains("gleaner_worker_interruptions{worker=\"w1\"}"), b);
    }
  }
}
