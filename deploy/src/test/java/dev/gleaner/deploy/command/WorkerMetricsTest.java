package dev.gleaner.deploy.command;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.worker.WorkerDaemon;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gleaner worker --metrics-port}: what each worker did, scraped as Prometheus would. */
class WorkerMetricsTest {
  @TempDir
  Path dir;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @Test
  void eachWorkerCountsWhatItDidAndTheCountsAddUpToTheJob() throws Exception {
    Path file = dir.resolve("lines.txt");
    StringBuilder text = new StringBuilder();
    for (int i = 0; text.length() < 3_000_000; i++) {
      text.append(i % 7 == 0 ? "needle " : "hay ").append(i).append('\n');
    }
    Files.writeString(file, text);
    try (LocalCluster c = new LocalCluster(dir);
        WorkerMetrics m1 = WorkerMetrics.serve(c.worker("w1", 1, Set.of()), "w1", 0, false);
        WorkerMetrics m2 = WorkerMetrics.serve(c.worker("w2", 1, Set.of()), "w2", 0, false)) {
      String id = c.submit(JobSpec.newBuilder().setWorkload("wc").putParams("file", file.toString())
          .setChunkUnits(400_000).setCheckpoints(2).setMinWorkers(2).build());
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(60));
      assertEquals("DONE", s.getState());
      // the last acknowledgements may still be on their way when the job shows DONE
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        String x = scrape(m1);
        String y = scrape(m2);
        assertEquals(0, value(x, "gleaner_worker_pieces_unacknowledged", "w1") + value(y,
            "gleaner_worker_pieces_unacknowledged", "w2"), "pieces unacknowledged");
      });
      String a = scrape(m1);
      String b = scrape(m2);
      long reported = value(a, "gleaner_worker_units_reported_total", "w1")
          + value(b, "gleaner_worker_units_reported_total", "w2");
      long acknowledged = value(a, "gleaner_worker_units_acknowledged_total", "w1")
          + value(b, "gleaner_worker_units_acknowledged_total", "w2");
      long discarded = value(a, "gleaner_worker_units_discarded_total", "w1")
          + value(b, "gleaner_worker_units_discarded_total", "w2");
      // every unit of the job kept at least once, more than once when an idle worker took the tail of a
      // running chunk whose holder had already computed some of it (a busy machine makes the master
      // split tails; the holder's late pieces are then acknowledged as duplicates, discarded, or dropped
      // unacknowledged at a cancel): with no tail taken over (reported = the job), exactly once
      assertTrue(acknowledged + discarded <= reported, "acknowledged + discarded <= reported");
      assertTrue(acknowledged >= s.getUnitsTotal(), "every unit acknowledged: " + acknowledged);
      assertTrue(value(a, "gleaner_worker_input_bytes_total", "w1") + value(b, "gleaner_worker_input_bytes_total", "w2")
          >= Files.size(file), "the whole file arrived");
      assertTrue(value(a, "gleaner_worker_chunks_assigned_total", "w1") >= 1, a);
      assertEquals(1, value(a, "gleaner_worker_connects_total", "w1"));
      assertTrue(a.contains("gleaner_worker_state{state=\"CONNECTED\",worker=\"w1\"} 1.0"), a);
      assertTrue(a.contains("jvm_memory_used_bytes{"), "the JVM's meters too");
    }
  }

  @Test
  void onlyMetricsIsServedAndOnlyToGetAndHead() throws Exception {
    try (LocalCluster c = new LocalCluster(dir);
        WorkerMetrics m = WorkerMetrics.serve(c.worker("w1", 1, Set.of()), "w1", 0, false)) {
      URI base = URI.create("http://127.0.0.1:" + m.port());
      HttpResponse<String> other = http.send(HttpRequest.newBuilder(base.resolve("/status")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(404, other.statusCode());
      assertEquals("this worker serves /metrics only\n", other.body());
      HttpResponse<String> post = http.send(HttpRequest.newBuilder(base.resolve("/metrics"))
          .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(405, post.statusCode());
      HttpResponse<String> get = http.send(HttpRequest.newBuilder(base.resolve("/metrics")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, get.statusCode());
      assertEquals(WorkerMetrics.CONTENT_TYPE, get.headers().firstValue("Content-Type").orElse(""));
    }
  }

  /** On loopback, a request for another name (a web site rebound to 127.0.0.1) is refused. */
  @Test
  void onLoopbackOnlyRequestsForThisMachinesNamesAreAnswered() throws Exception {
    try (LocalCluster c = new LocalCluster(dir);
        WorkerMetrics m = WorkerMetrics.serve(c.worker("w1", 1, Set.of()), "w1", 0, false)) {
      assertEquals("HTTP/1.1 403", statusWithHost(m.port(), "rebound.example:" + m.port()));
      assertEquals("HTTP/1.1 200", statusWithHost(m.port(), "localhost:" + m.port()));
      assertEquals("HTTP/1.1 200", statusWithHost(m.port(), "127.0.0.1:" + m.port()));
      assertEquals("HTTP/1.1 200", statusWithHost(m.port(), "[::1]:" + m.port()));
    }
  }

  /** The status line's protocol and code for GET /metrics with this Host, over a raw socket. */
  private static String statusWithHost(int port, String host) throws Exception {
    try (java.net.Socket s = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write(("GET /metrics HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      String line = new java.io.BufferedReader(new java.io.InputStreamReader(s.getInputStream(),
          java.nio.charset.StandardCharsets.US_ASCII)).readLine();
      return line == null ? "" : line.substring(0, Math.min(12, line.length()));
    }
  }

  @Test
  void aRequestThatNeverEndsDoesNotStopTheScrapes() throws Exception {
    try (LocalCluster c = new LocalCluster(dir);
        WorkerMetrics m = WorkerMetrics.serve(c.worker("w1", 1, Set.of()), "w1", 0, false);
        java.net.Socket stalled = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), m.port())) {
      // headers that never end
      stalled.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      stalled.getOutputStream().flush();
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.port() + "/metrics"))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode());
    }
  }

  @Test
  void aPortInUseIsOneClearError() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      WorkerDaemon w = c.worker("w1", 1, Set.of());
      try (WorkerMetrics first = WorkerMetrics.serve(w, "w1", 0, false)) {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
            () -> WorkerMetrics.serve(w, "w1", first.port(), false));
        assertTrue(e.getMessage().startsWith("--metrics-port " + first.port() + ": cannot listen on "), e.getMessage());
      }
    }
  }

  private String scrape(WorkerMetrics m) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.port() + "/metrics"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return r.body();
  }

  /** The value of the series {@code name{worker="id"}}; fails when the series is missing. */
  private static long value(String scrape, String name, String worker) {
    Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{worker=\"" + Pattern.quote(worker)
        + "\"} ([0-9.E+-]+)$").matcher(scrape);
    assertTrue(m.find(), name + " for " + worker + " is missing in:\n" + scrape);
    return (long) Double.parseDouble(m.group(1));
  }
}
