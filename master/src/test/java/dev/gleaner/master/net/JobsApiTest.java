package dev.gleaner.master.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.master.auth.MasterAuth;
import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.ScriptedWorker;
import dev.gleaner.master.testing.Tokens;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Role;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jobs over HTTP on the master's one port, as the docs show them with curl: a client submits,
 * follows (a long poll), reads the whole result, lists and forgets its job; every refusal is one
 * line of JSON with its status (401 without a good credential in the header, 403 another client's
 * job, 404, 405, 409), and with --private-jobs another client's job is numbers only.
 */
class JobsApiTest {
  private static final byte[] KEY = Tokens.CLUSTER_KEY;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;
  MasterFixture master;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @BeforeEach
  void start() throws InterruptedException {
    master = MasterFixture.start(dir, c -> c.withAuth(MasterAuth.tokens(KEY)).withPrivateJobs(true));
  }

  @AfterEach
  void stop() {
    master.close();
  }

  private static String bearer(Role role, String name) {
    return "Bearer " + name + ":" + Base64.getEncoder().encodeToString(Auth.token(KEY, role, name));
  }

  private record Reply(int status, String body, java.net.http.HttpHeaders headers) {
    JsonNode json() throws Exception {
      return JSON.readTree(body);
    }

    String error() throws Exception {
      return json().get("error").asText();
    }
  }

  private Reply call(String method, String path, String auth, String body, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + master.port + path))
        .timeout(Duration.ofSeconds(60))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (auth != null) {
      b.header("Authorization", auth);
    }
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.body(), r.headers());
  }

  @Test
  void aClientSubmitsFollowsReadsAndForgetsItsJob() throws Exception {
    String alice = bearer(Role.CLIENT, "alice");
    String job = "{\"workload\": \"primes\", \"params\": {\"from\": 0, \"to\": 200000}, \"priority\": 3}";
    Reply submitted = call("POST", "/api/jobs", alice, job, "Idempotency-Key", "k-1");
    assertEquals(201, submitted.status(), submitted.body());
    String id = submitted.json().get("id").asText();
    Reply again = call("POST", "/api/jobs", alice, job, "Idempotency-Key", "k-1");
    assertEquals(200, again.status(), again.body());
    assertEquals(id, again.json().get("id").asText());
    assertTrue(again.json().get("existing").asBoolean());

    try (ScriptedWorker w = new ScriptedWorker(master.port, Tokens.token(Role.WORKER, "w1"), "w1")) {
      // the long poll answers once the job has ended
      JsonNode done = null;
      for (int i = 0; i < 5 && (done == null || !done.get("state").asText().equals("DONE")); i++) {
        Reply followed = call("GET", "/api/jobs/" + id + "?wait=30000", alice, null);
        assertEquals(200, followed.status(), followed.body());
        done = followed.json();
      }
      assertEquals("DONE", done.get("state").asText());
      assertEquals("client:alice", done.get("owner").asText());
      assertEquals(3, done.get("priority").asInt());
    }
    Reply result = call("GET", "/api/jobs/" + id + "/result", alice, null);
    assertEquals(200, result.status());
    assertEquals("17984 primes", result.body().strip());
    Reply list = call("GET", "/api/jobs", alice, null);
    assertEquals(id, list.json().get("jobs").get(0).get("id").asText());

    Reply forgotten = call("DELETE", "/api/jobs/" + id, alice, null);
    assertEquals(200, forgotten.status(), forgotten.body());
    assertEquals("FORGOTTEN", forgotten.json().get("state").asText());
    Reply gone = call("GET", "/api/jobs/" + id, alice, null);
    assertEquals(404, gone.status());
    assertEquals("no job '" + id + "' (GET /api/jobs lists them)", gone.error());
  }

  @Test
  void refusalsAreOneLineOfJsonWithTheirStatus() throws Exception {
    String alice = bearer(Role.CLIENT, "alice");
    String bob = bearer(Role.CLIENT, "bob");
    Reply none = call("GET", "/api/jobs", null, null);
    assertEquals(401, none.status());
    assertEquals("Bearer realm=\"gleaner\"", none.headers().firstValue("WWW-Authenticate").orElse(""));
    assertTrue(none.error().startsWith("no credential: the API takes a client's or an operator's token"), none.body());
    String token = alice.substring(7);
    assertEquals(401, call("GET", "/api/jobs?token=" + token, null, null).status(), "never a token in the URL");
    Reply worker = call("GET", "/api/jobs", bearer(Role.WORKER, "w1"), null);
    assertEquals(401, worker.status());
    assertTrue(worker.error().contains("a worker token cannot read status"), worker.body());

    Reply typo = call("POST", "/api/jobs", alice, "{\"workload\": \"primes\", \"parms\": {}}");
    assertEquals(400, typo.status());
    assertTrue(typo.error().startsWith("the job: unknown key 'parms'; known keys: name, workload"), typo.body());
    Reply notJson = call("POST", "/api/jobs", alice, "{workload");
    assertEquals(400, notJson.status());
    assertTrue(notJson.error().startsWith("the body is not JSON"), notJson.body());

    // no worker: alice's job runs until it is cancelled
    String id = call("POST", "/api/jobs", alice,
        "{\"name\": \"secret-name\", \"workload\": \"primes\", \"params\": {\"to\": 1e12}}").json().get("id").asText();
    Reply unknown = call("GET", "/api/jobs/job-77/result", alice, null);
    assertEquals(404, unknown.status(), unknown.body());
    assertEquals("the master knows no job 'job-77'", unknown.error());
    Reply early = call("GET", "/api/jobs/" + id + "/result", alice, null);
    assertEquals(409, early.status(), early.body());
    Reply bobs = call("POST", "/api/jobs/" + id + "/cancel", bob, "{}");
    assertEquals(403, bobs.status());
    assertEquals("job " + id + " belongs to client 'alice'; only client 'alice' or an operator may cancel it"
        + " (you are client 'bob')", bobs.error());
    // --private-jobs: bob reads alice's job as numbers only
    JsonNode seen = call("GET", "/api/jobs/" + id, bob, null).json();
    assertEquals("", seen.get("name").asText());
    assertEquals("secret-name", call("GET", "/api/jobs/" + id, alice, null).json().get("name").asText());
    Reply put = call("PUT", "/api/jobs/" + id, alice, "{}");
    assertEquals(405, put.status());
    assertEquals("GET, HEAD, DELETE", put.headers().firstValue("Allow").orElse(""));
    assertEquals("/api/jobs/" + id + " takes GET, HEAD, DELETE, not PUT", put.error());
    assertEquals("POST", call("GET", "/api/jobs/" + id + "/cancel", alice, null).headers().firstValue("Allow")
        .orElse(""));
    Reply badKey = call("POST", "/api/jobs/" + id + "/cancel", alice, "{\"why\": \"x\"}");
    assertEquals(400, badKey.status());
    assertEquals("unknown key 'why' in a cancel; known keys: reason, grace", badKey.error());

    Reply cancelled = call("POST", "/api/jobs/" + id + "/cancel", alice, "{\"reason\": \"enough\"}");
    assertEquals(200, cancelled.status(), cancelled.body());
    assertEquals("CANCELLED", cancelled.json().get("state").asText());
    Reply twice = call("POST", "/api/jobs/" + id + "/cancel", alice, null);
    assertEquals(409, twice.status(), twice.body());

    // the description needs no credential, and names every path
    Reply api = call("GET", "/api/openapi.json", null, null);
    assertEquals(200, api.status());
    JsonNode paths = api.json().get("paths");
    for (String p : new String[] {"/api/jobs", "/api/jobs/{id}", "/api/jobs/{id}/cancel", "/api/jobs/{id}/result"}) {
      assertTrue(paths.has(p), p);
    }
  }

  /**
   * Long polls of a logged-in caller leave the login gate: more of them at once than the gate lets
   * one address log in (16) all wait their time and answer, none closed to make room for the next.
   * They are opened 8 at a time (the gate counts a connection from its first byte, before it shows
   * a credential), each batch once the master has none logging in, which it has while they wait.
   */
  @Test
  void longPollsDoNotCountAgainstTheLoginLimits() throws Exception {
    String alice = bearer(Role.CLIENT, "alice");
    // no worker: the job runs for the whole test
    String id = call("POST", "/api/jobs", alice, "{\"workload\": \"primes\", \"params\": {\"to\": 1e12}}").json()
        .get("id").asText();
    List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> polls = new java.util.ArrayList<>();
    for (int batch = 0; batch < 3; batch++) {
      for (int i = 0; i < LoginGate.PER_ADDRESS / 2; i++) {
        polls.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + master.port + "/api/jobs/"
            + id + "?wait=15000")).header("Authorization", alice).timeout(Duration.ofSeconds(60)).GET().build(),
            HttpResponse.BodyHandlers.ofString()));
      }
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
          master.server.status("").getMetricsOrDefault("gleaner.connections.logging.in", -1) == 0);
      // they left the gate while still waiting, not by ending
      assertTrue(polls.stream().noneMatch(java.util.concurrent.CompletableFuture::isDone),
          "a long poll ended before the others were opened");
    }
    for (java.util.concurrent.CompletableFuture<HttpResponse<String>> p : polls) {
      HttpResponse<String> r = p.get(60, java.util.concurrent.TimeUnit.SECONDS);
      assertEquals(200, r.statusCode(), r.body());
      String state = JSON.readTree(r.body()).get("state").asText();
      assertTrue(state.equals("QUEUED") || state.equals("RUNNING"), state);
    }
  }
}
