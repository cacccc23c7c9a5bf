package dev.gleaner.master.web;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.awaitility.Awaitility.await;
import static dev.gleaner.master.testing.HttpGet.assertMetricsAnswerLoopbackNamesOnly;
import static dev.gleaner.master.testing.HttpGet.exchange;
import static dev.gleaner.master.testing.HttpGet.foreignNames;
import static dev.gleaner.master.testing.HttpGet.get;
import static dev.gleaner.master.testing.HttpGet.getAs;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.master.MasterServer;
import dev.gleaner.master.auth.MasterAuth;
import dev.gleaner.master.testing.HttpGet;
import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.master.testing.ScriptedWorker;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.WorkerStatus;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read-only web page on the master's port: the page and its files, {@code /api/status} with a
 * running job and its plan, refusals (unknown paths, traversal, other addresses without a
 * credential), and {@code /metrics} beside them. Requests go over raw sockets, so that a path
 * reaches the master exactly as written (no client normalises {@code ..} away).
 */
class WebPageTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final byte[] CLUSTER_KEY = "web-test-cluster-key-0123456789ab".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;

  private static WorkerStatus worker(MasterFixture m, String id) {
    return m.server.status("").getWorkersList().stream().filter(w -> w.getWorkerId().equals(id)).findFirst()
        .orElse(null);
  }

  @Test
  void statusShowsARunningJobWithItsPlanAndTheWorkers() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir, c -> c.withHeartbeat(Duration.ofSeconds(2), Duration.ofMinutes(10)))) {
      // a first job measures w1's speed, so that the second gets a real plan (not probe chunks)
      String first = m.submit(MasterFixture.primes(0, 300_000, "self", 100_000, 0));
      try (ScriptedWorker w = new ScriptedWorker(m.port, SECRET, "w1")) {
        assertEquals("DONE", m.awaitEnd(first).getState());
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> worker(m, "w1") != null
          && worker(m, "w1").getState().equals("GONE"));
      // w1 again, taking its chunk and never answering: the job runs as long as the test needs
      try (RawPeer w1 = RawPeer.worker(m.port, SECRET, "w1")) {
        String running = m.submit(MasterFixture.primes(0, 50_000_000, "proportional", 0, 4));
        await().atMost(Duration.ofSeconds(30)).until(() -> !worker(m, "w1").getCurrentChunk().isEmpty());
        HttpGet.Reply r = get(m.port, "/api/status");
        assertEquals(200, r.status(), r.body());
        assertEquals("application/json", r.header("content-type"));
        assertEquals("no-store", r.header("cache-control"));
        JsonNode s = JSON.readTree(r.body());
        assertTrue(s.get("atMillis").asLong() > 0, r.body());
        JsonNode done = job(s, first);
        assertEquals("DONE", done.get("state").asText());
        assertEquals(300_000, done.get("unitsDone").asLong());
        assertTrue(done.get("plan").isNull(), "an ended job has no plan to draw: " + done);
        assertFalse(done.get("resultLine").asText().isEmpty(), done.toString());

        JsonNode job = job(s, running);
        assertEquals("RUNNING", job.get("state").asText());
        assertEquals("proportional", job.get("strategy").asText());
        assertEquals(50_000_000, job.get("unitsTotal").asLong());
        assertTrue(job.get("expectedWork").isNumber(), job.toString());
        assertFalse(job.get("planReason").asText().isEmpty(), job.toString());
        assertTrue(job.get("replans").isInt(), job.toString());
        assertTrue(job.get("deadlineMillis").isNull(), job.toString());
        assertTrue(job.get("recoveryLists").isObject(), job.toString());
        assertTrue(job.get("reroutes").isArray(), job.toString());
        JsonNode plan = job.get("plan");
        assertTrue(plan.isObject(), "a running job's planned timeline: " + job);
        long plannedAt = plan.get("plannedAtMillis").asLong();
        assertTrue(plannedAt >= job.get("submittedAtMillis").asLong() - 1000, plan.toString());
        JsonNode lane = plan.get("lanes").get(0);
        assertEquals("w1", lane.get("worker").asText());
        assertTrue(lane.get("units").asLong() > 0, lane.toString());
        JsonNode pieces = lane.get("pieces");
        assertTrue(pieces.size() >= 1, lane.toString());
        long units = 0;
        long previous = plannedAt;
        for (JsonNode p : pieces) {
          long start = p.get("startMillis").asLong();
          long saved = p.get("savedMillis").asLong();
          assertTrue(start >= plannedAt && saved >= start && saved >= previous, "pieces in order: " + lane);
          previous = saved;
          units += p.get("units").asLong();
        }
        assertEquals(lane.get("units").asLong(), units, lane.toString());
        assertTrue(plan.get("endMillis").asLong() >= previous, plan.toString());

        JsonNode w = null;
        for (JsonNode x : s.get("workers")) {
          if (x.get("id").asText().equals("w1")) {
            w = x;
          }
        }
        assertTrue(w != null, "worker w1 in " + s.get("workers"));
        assertEquals("READY", w.get("state").asText(), w.toString());
        assertTrue(w.get("unitsPerSecond").asDouble() > 0, "w1's speed is known: " + w);
        assertTrue(w.get("speeds").get("primes").has("observations"), w.toString());
        assertTrue(w.get("bandwidth").has("value"), w.toString());
        assertTrue(w.get("risk").has("rate"), w.toString());
        assertTrue(w.get("currentChunk").asText().contains(running), w.toString());
        assertEquals(300_000, w.get("unitsDone").asLong(), w.toString());
        assertTrue(s.get("eps").has("observations"), r.body());

        // its forecast: the simulator run forward from where the job stands, on a thread of its own
        JsonNode f = await().atMost(Duration.ofSeconds(60)).until(
            () -> job(JSON.readTree(get(m.port, "/api/status").body()), running).get("forecast"), x -> x.isObject());
        assertTrue(f.get("runs").asInt() >= 1, f.toString());
        double saved = f.get("units").asDouble();
        assertTrue(saved > 0 && saved <= 50_000_000, "units saved in the end, of the whole job: " + f);
        assertTrue(f.get("unitsLow").asDouble() <= saved && saved <= f.get("unitsHigh").asDouble(), f.toString());
        assertTrue(f.get("endMillis").isNull() || f.get("endMillis").asLong() >= f.get("atMillis").asLong(), f.toString());
      }
    }
  }

  private static JsonNode job(JsonNode status, String id) {
    for (JsonNode j : status.get("jobs")) {
      if (j.get("id").asText().equals(id)) {
        return j;
      }
    }
    throw new AssertionError("no job " + id + " in " + status);
  }

  /**
   * The page comes with its first status in it, which it draws before its first poll: its first paint
   * shows the jobs (a job's name that looks like markup stays text: it cannot end the element).
   */
  @Test
  void thePageComesWithItsFirstStatusInIt() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      String name = "</script><script>alert(1)</script> & <!-- x";
      String id = m.submit(MasterFixture.primes(0, 1000, "self", 100, 0).toBuilder().setName(name).build());
      HttpGet.Reply page = get(m.port, "/");
      assertEquals(200, page.status(), page.body());
      String open = "<script id=\"initial-status\" type=\"application/json\">";
      int from = page.body().indexOf(open);
      assertTrue(from > 0, page.body());
      int to = page.body().indexOf("</script>", from);
      JsonNode status = JSON.readTree(page.body().substring(from + open.length(), to));
      JsonNode job = status.get("jobs").get(0);
      assertEquals(id, job.get("id").asText());
      assertEquals(name, job.get("name").asText(), "the same text once read");
      assertFalse(page.body().contains("<script>alert(1)"), "no markup of the name reaches the page: " + page.body());
    }
  }

  /** What a worker computed between its checkpoints reaches the page with its heartbeats (the chart's source). */
  @Test
  void aWorkersHeartbeatsSayWhatItComputedSoFar() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir); RawPeer w = RawPeer.worker(m.port, MasterFixture.SECRET, "w")) {
      w.send(dev.gleaner.protocol.Envelope.newBuilder().setHeartbeat(dev.gleaner.protocol.Heartbeat.newBuilder()
          .setSeq(1).setUnitsComputed(123_456_789)).build());
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> worker(m, "w") != null
          && worker(m, "w").getUnitsComputed() == 123_456_789);
      JsonNode status = JSON.readTree(get(m.port, "/api/status").body());
      JsonNode shown = null;
      for (JsonNode x : status.get("workers")) {
        if (x.get("id").asText().equals("w")) {
          shown = x;
        }
      }
      assertTrue(shown != null, status.toString());
      assertEquals(123_456_789, shown.get("unitsComputed").asLong());
      assertEquals(0, shown.get("unitsDone").asLong(), "nothing saved: the page still sees the work");
    }
  }

  @Test
  void thePageAndItsFilesComeFromTheMastersJar() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      HttpGet.Reply page = get(m.port, "/");
      assertEquals(200, page.status(), page.body());
      assertEquals("text/html; charset=utf-8", page.header("content-type"));
      assertTrue(page.body().contains("<title>Gleaner master</title>"), page.body());
      assertTrue(page.header("content-security-policy").startsWith("default-src 'self'"), page.headers());
      // no CDN: every script and stylesheet the page names is served here
      java.util.regex.Matcher refs = java.util.regex.Pattern.compile("(?:src|href)=\"([^\"]+)\"").matcher(page.body());
      int files = 0;
      while (refs.find()) {
        String ref = refs.group(1);
        if (ref.equals("data:,")) {
          continue; // the empty icon: no request at all
        }
        assertTrue(ref.startsWith("/"), "the page loads " + ref + " from elsewhere");
        HttpGet.Reply f = get(m.port, ref);
        assertEquals(200, f.status(), ref + ": " + f.body());
        assertFalse(f.body().isEmpty(), ref);
        files++;
      }
      assertTrue(files >= 5, "the page names its scripts, styles and links: " + page.body());
      assertEquals("text/javascript; charset=utf-8", get(m.port, "/webjars/uplot/uPlot.iife.min.js").header("content-type"));
      assertEquals("text/css; charset=utf-8", get(m.port, "/app.css").header("content-type"));
    }
  }

  @Test
  void unknownPathsAndTraversalAreNotFound() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      for (String path : new String[] {"/nothing", "/api/status/../../etc/passwd", "/webjars/uplot/../../../../etc/passwd",
          "/webjars/uplot/%2e%2e/%2e%2e/%2e%2e/META-INF/MANIFEST.MF", "/..%2f..%2f..%2fetc%2fpasswd", "/app.js/..",
          "/webjars/uplot/1.6.30/dist/uPlot.iife.min.js", "/META-INF/resources/webjars/uplot/1.6.30/dist/uPlot.min.css",
          "/dev/gleaner/master/web/app.js", "/dev/gleaner/master/MasterServer.class", "//etc/passwd",
          "/webjars/uplot/..\\..\\..\\etc\\passwd", "/index.html"}) {
        HttpGet.Reply r = get(m.port, path);
        assertEquals(404, r.status(), path + ": " + r.body());
        assertEquals("no such page: this master serves /, /api/status, /api/jobs and /metrics\n", r.body(), path);
      }
      HttpGet.Reply post = postApiStatus(m.port);
      assertEquals(405, post.status(), "read-only: " + post);
      // the port still speaks frames after HTTP visitors
      assertEquals("job-1", m.submit(MasterFixture.primes(0, 1000, "self", 1000, 0)));
      HttpGet.Reply metrics = get(m.port, "/metrics");
      assertEquals(200, metrics.status(), metrics.body());
      assertEquals("text/plain; version=0.0.4; charset=utf-8", metrics.header("content-type"));
    }
  }

  @Test
  void fromThisMachineOnlyLocalhostIsAskedForWithoutACredential() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      InetAddress lo = InetAddress.getLoopbackAddress();
      for (String local : new String[] {"localhost:" + m.port, "127.0.0.1:" + m.port, "[::1]:" + m.port, "LOCALHOST"}) {
        assertEquals(200, getAs(lo, m.port, local, "/api/status").status(), local);
      }
      // a web site whose name was rebound to 127.0.0.1, read through its visitor's browser
      for (String path : new String[] {"/", "/api/status"}) {
        HttpGet.Reply r = getAs(lo, m.port, "attacker.example:" + m.port, path);
        assertEquals(403, r.status(), r.body());
        assertTrue(r.body().startsWith(path + " asked for as 'attacker.example:" + m.port + "' from this machine needs a"
            + " credential"), r.body());
        assertTrue(r.body().contains("open it as http://localhost:" + m.port + "/ instead"), r.body());
      }
      assertEquals(200, getAs(lo, m.port, "attacker.example", "/app.js").status(), "the page's own files hold nothing");
    }
  }

  @Test
  void metricsFromThisMachineAnswerLoopbackNamesOnly() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir)) {
      assertMetricsAnswerLoopbackNamesOnly(h -> {
        try {
          return getAs(InetAddress.getLoopbackAddress(), m.port, h[0], "/metrics",
              java.util.Arrays.copyOfRange(h, 1, h.length));
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }, m.port);
    }
  }

  @Test
  void metricsFromAnywhereAnswerAnyName() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir, c -> c.withMetricsFromAnywhere(true))) {
      for (String name : foreignNames(m.port)) {
        assertEquals(200, getAs(InetAddress.getLoopbackAddress(), m.port, name, "/metrics").status(), name);
      }
    }
  }

  /** A POST to the page's status: HTTP (the jobs' API takes POST), refused with 405, the page being read-only. */
  private static HttpGet.Reply postApiStatus(int port) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(10_000);
      s.getOutputStream().write("POST /api/status HTTP/1.1\r\nHost: g\r\nContent-Length: 0\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      String text = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return new HttpGet.Reply(text.startsWith("HTTP/1.1 405") ? 405 : 400, "", text);
    }
  }

  /** This machine's first non-loopback IPv4 address, or null. */
  private static InetAddress outside() throws SocketException {
    for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (!n.isUp() || n.isLoopback()) {
        continue;
      }
      for (InetAddress a : Collections.list(n.getInetAddresses())) {
        if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
          return a;
        }
      }
    }
    return null;
  }

  @Test
  void otherAddressesAreRefusedUnlessOpenedAndThenNeedACredential() throws Exception {
    InetAddress outside = outside();
    assumeTrue(outside != null, "this machine has no non-loopback IPv4 address to come from");
    try (MasterFixture m = MasterFixture.start(new InetSocketAddress(outside, 0), dir, c -> c)) {
      for (String path : new String[] {"/", "/api/status", "/app.js"}) {
        HttpGet.Reply r = get(outside, m.port, path);
        assertEquals(403, r.status(), path + ": " + r.body());
        assertEquals("the web page answers loopback addresses only; start the master with --web-from-anywhere to open"
            + " it (to holders of a client's or an operator's token or the shared secret)\n", r.body());
      }
      assertEquals(403, get(outside, m.port, "/metrics").status());
    }
    byte[] secret = SECRET;
    try (MasterFixture m = MasterFixture.start(new InetSocketAddress(outside, 0), dir.resolve("open"),
        c -> c.withAuth(new MasterAuth(secret, CLUSTER_KEY)).withWebFromAnywhere(true))) {
      HttpGet.Reply none = get(outside, m.port, "/api/status");
      assertEquals(403, none.status(), none.body());
      assertTrue(none.body().startsWith("/api/status from " + outside.getHostAddress() + ": no credential"), none.body());
      assertEquals(1, none.body().lines().count(), none.body());
      assertEquals(403, get(outside, m.port, "/").status());
      // the page's own files hold nothing of the cluster
      assertEquals(200, get(outside, m.port, "/app.js").status());
      String alice = "alice:" + Base64.getEncoder().encodeToString(Auth.token(CLUSTER_KEY, Role.CLIENT, "alice"));
      String worker = "w1:" + Base64.getEncoder().encodeToString(Auth.token(CLUSTER_KEY, Role.WORKER, "w1"));
      assertEquals(200, get(outside, m.port, "/api/status", "Authorization: Bearer " + alice).status());
      assertEquals(200, get(outside, m.port, "/?token=" + java.net.URLEncoder.encode(alice, StandardCharsets.UTF_8))
          .status());
      assertEquals(200, get(outside, m.port, "/api/status", "Authorization: Bearer "
          + new String(secret, StandardCharsets.UTF_8)).status());
      HttpGet.Reply w = get(outside, m.port, "/api/status", "Authorization: Bearer " + worker);
      assertEquals(403, w.status());
      assertTrue(w.body().contains("a worker token cannot read status"), w.body());
      HttpGet.Reply forged = get(outside, m.port, "/api/status", "Authorization: Bearer alice:"
          + Base64.getEncoder().encodeToString(Auth.token(CLUSTER_KEY, Role.CLIENT, "bob")));
      assertEquals(403, forged.status());
      assertTrue(forged.body().contains("neither a client's or an operator's token of this cluster"), forged.body());
      HttpGet.Reply basic = get(outside, m.port, "/api/status", "Authorization: Basic YTpi");
      assertEquals(403, basic.status());
      assertTrue(basic.body().contains("must be 'Bearer CREDENTIAL'"), basic.body());
      // /metrics keeps its own switch
      assertEquals(403, get(outside, m.port, "/metrics").status());
      // loopback needs nothing; the master listens on the outside address only here, so nothing to show
    }
  }
}
