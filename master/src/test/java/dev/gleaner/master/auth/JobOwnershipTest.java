package dev.gleaner.master.auth;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.auth.MasterAuth;
import dev.gleaner.master.testing.HttpGet;
import dev.gleaner.master.testing.LogLines;
import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.master.testing.ScriptedWorker;
import dev.gleaner.master.testing.Tokens;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.CancelJob;
import dev.gleaner.protocol.DrainRequest;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.ForgetJob;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.ResultRequest;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.StatusRequest;
import dev.gleaner.protocol.Submit;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job belongs to the client that submitted it: on a master with tokens, client bob's cancel,
 * forget and result of alice's job, and his drain of a worker, are refused in one line naming the
 * owner and who could; an operator's succeed; reading the status stays shared.
 */
class JobOwnershipTest {
  private static final byte[] KEY = Tokens.CLUSTER_KEY;

  @TempDir
  Path dir;
  MasterFixture master;

  @BeforeEach
  void start() throws InterruptedException {
    master = MasterFixture.start(dir, c -> c.withAuth(MasterAuth.tokens(KEY)));
  }

  @AfterEach
  void stop() {
    master.close();
  }

  private RawPeer as(Role role, String id) throws IOException {
    RawPeer p = new RawPeer(master.port);
    p.handshake(PeerCredential.token(role, id, Auth.token(KEY, role, id)), role, id, List.of(), 0);
    return p;
  }

  /** The master's answer to one request (skipping its heartbeats). */
  private static Envelope ask(RawPeer p, Envelope request) throws IOException {
    p.send(request);
    Envelope reply = p.readSkippingHeartbeats(30_000);
    assertTrue(reply != null, "no answer to " + request.getBodyCase());
    return reply;
  }

  private static String notAllowed(Envelope reply) {
    assertTrue(reply.hasError(), "expected a refusal, got " + reply);
    assertEquals(Error.Code.NOT_ALLOWED, reply.getError().getCode(), reply.getError().getMessage());
    return reply.getError().getMessage();
  }

  private String submit(RawPeer p, long to) throws IOException {
    Envelope r = ask(p, Envelope.newBuilder().setSubmit(Submit.newBuilder()
        .setSpec(MasterFixture.primes(0, to, "equal", 0, 0).toBuilder().setOwner("client:bob"))).build());
    assertTrue(r.hasSubmitReply(), r.toString());
    return r.getSubmitReply().getJobId();
  }

  private static Envelope cancel(String job) {
    return Envelope.newBuilder().setCancelJob(CancelJob.newBuilder().setJobId(job)).build();
  }

  private static Envelope forget(String job) {
    return Envelope.newBuilder().setForgetJob(ForgetJob.newBuilder().setJobId(job)).build();
  }

  @Test
  void anotherClientsCancelForgetAndResultAreRefusedAndAnOperatorsSucceed() throws Exception {
    try (RawPeer alice = as(Role.CLIENT, "alice"); RawPeer bob = as(Role.CLIENT, "bob");
         RawPeer root = as(Role.OPERATOR, "root")) {
      // no worker: it runs until it is cancelled
      String job = submit(alice, 1_000_000_000_000L);
      assertEquals("client:alice", master.job(job).getOwner(), "the owner comes from the session, not the spec");

      String why = notAllowed(ask(bob, cancel(job)));
      assertEquals("job " + job + " belongs to client 'alice'; only client 'alice' or an operator may cancel it"
          + " (you are client 'bob')", why);
      assertTrue(master.job(job).getState().equals("RUNNING") || master.job(job).getState().equals("QUEUED"));

      // reading stays shared: bob sees alice's job in the status
      Envelope status = ask(bob, Envelope.newBuilder().setStatusRequest(StatusRequest.getDefaultInstance()).build());
      assertTrue(status.getStatusReply().getJobsList().stream().anyMatch(j -> j.getJobId().equals(job)
          && j.getOwner().equals("client:alice")));

      Envelope cancelled = ask(root, cancel(job));
      assertTrue(cancelled.hasJobReply(), cancelled.toString());
      master.awaitEnd(job);

      // a refused request is an answer, not the master's error: one line saying it, no stack trace
      List<ch.qos.logback.classic.spi.ILoggingEvent> logged;
      try (LogLines lines = LogLines.of("dev.gleaner.master.loop.ControlLoop",
          "dev.gleaner.master.net.ClientHandler")) {
        assertTrue(notAllowed(ask(bob, Envelope.newBuilder().setResultRequest(ResultRequest.newBuilder()
            .setJobId(job)).build())).contains(
                "belongs to client 'alice'; only client 'alice' or an operator may read the result of it"));
        logged = lines.events();
      }
      assertTrue(logged.stream().noneMatch(e -> e.getLevel() == ch.qos.logback.classic.Level.ERROR
          || e.getThrowableProxy() != null), logged.toString());
      assertTrue(logged.stream().anyMatch(e -> e.getLevel() == ch.qos.logback.classic.Level.INFO
          && e.getFormattedMessage().contains("asked for the result of " + job + ": job " + job + " belongs to")),
          logged.toString());
      assertTrue(notAllowed(ask(bob, forget(job))).contains("may forget it"));
      assertTrue(ask(alice, Envelope.newBuilder().setResultRequest(ResultRequest.newBuilder().setJobId(job)).build())
          .hasResultPart(), "the owner reads her result");
      Envelope forgotten = ask(root, forget(job));
      assertEquals("FORGOTTEN", forgotten.getJobReply().getState());
    }
  }

  @Test
  void theOwnerCancelsAndForgetsItsOwnJob() throws Exception {
    try (RawPeer alice = as(Role.CLIENT, "alice")) {
      String job = submit(alice, 1_000_000_000_000L);
      assertTrue(ask(alice, cancel(job)).hasJobReply());
      master.awaitEnd(job);
      assertEquals("FORGOTTEN", ask(alice, forget(job)).getJobReply().getState());
    }
  }

  @Test
  void onlyAnOperatorDrainsAWorker() throws Exception {
    try (RawPeer worker = new RawPeer(master.port); RawPeer bob = as(Role.CLIENT, "bob");
         RawPeer root = as(Role.OPERATOR, "root")) {
      worker.handshake(PeerCredential.token(Role.WORKER, "w1", Auth.token(KEY, Role.WORKER, "w1")), Role.WORKER, "w1",
          List.of("primes"), 1);
      await().atMost(Duration.ofSeconds(30)).until(() -> master.server.liveWorkers().contains("w1"));
      Envelope drain = Envelope.newBuilder().setDrainRequest(DrainRequest.newBuilder().setWorkerId("w1")).build();
      assertEquals("only an operator may ask worker 'w1' to leave (you are client 'bob'); an operator token is made"
          + " with `gleaner token operator NAME`", notAllowed(ask(bob, drain)));
      // bob's session stays open after a refusal: he may go on reading
      assertTrue(ask(bob, Envelope.newBuilder().setStatusRequest(StatusRequest.getDefaultInstance()).build())
          .hasStatusReply());
      assertTrue(ask(root, drain).hasDrainReply());
      Envelope asked = worker.readSkippingAcks(30_000);
      assertTrue(asked != null && asked.hasDrain(), "the worker is asked to leave: " + asked);
    }
  }

  @Test
  void aSubmitKeyOfAnotherClientsJobIsRefusedNamingItsOwner() throws Exception {
    try (RawPeer alice = as(Role.CLIENT, "alice"); RawPeer bob = as(Role.CLIENT, "bob")) {
      Envelope keyed = Envelope.newBuilder().setSubmit(Submit.newBuilder()
          .setSpec(MasterFixture.primes(0, 1000, "equal", 0, 0).toBuilder().setKey("nightly"))).build();
      String job = ask(alice, keyed).getSubmitReply().getJobId();
      Envelope again = ask(alice, keyed);
      assertEquals(job, again.getSubmitReply().getJobId(), "alice's own resubmission finds her job");
      Envelope theirs = ask(bob, keyed);
      assertTrue(theirs.hasError() && theirs.getError().getMessage().equals("the key 'nightly' already names job "
          + job + " of client 'alice'; choose another key"), theirs.toString());
    }
  }

  @Test
  void anotherClientsJobCannotBeResumedNorItsResultReadInTheStatus() throws Exception {
    try (RawPeer alice = as(Role.CLIENT, "alice"); RawPeer bob = as(Role.CLIENT, "bob");
         RawPeer root = as(Role.OPERATOR, "root");
         ScriptedWorker w = new ScriptedWorker(master.port, PeerCredential.token(Role.WORKER, "w",
             Auth.token(KEY, Role.WORKER, "w")), "w")) {
      String job = submit(alice, 100_000);
      assertEquals("DONE", master.awaitEnd(job).getState());
      // a resumed job takes the old one's pieces into a result its submitter reads
      Envelope resumed = ask(bob, Envelope.newBuilder().setSubmit(Submit.newBuilder()
          .setSpec(MasterFixture.primes(0, 1_000_000_000_000L, "equal", 0, 0).toBuilder().setResume(job))).build());
      assertEquals("--resume: job " + job + " belongs to client 'alice'; only client 'alice' or an operator may resume it"
          + " (you are client 'bob')", notAllowed(resumed));

      StatusRequest one = StatusRequest.newBuilder().setJobId(job).build();
      var theirs = ask(bob, Envelope.newBuilder().setStatusRequest(one).build()).getStatusReply().getJobs(0);
      assertEquals("DONE", theirs.getState(), "reading the status stays shared");
      assertEquals("", theirs.getResult());
      assertTrue(theirs.getMessage().endsWith("its result is for client 'alice' and operators to read"), theirs.getMessage());
      var hers = ask(alice, Envelope.newBuilder().setStatusRequest(one).build()).getStatusReply().getJobs(0);
      assertEquals("9592 primes", hers.getResult());
      assertEquals(hers.getResult(), ask(root, Envelope.newBuilder().setStatusRequest(one).build()).getStatusReply()
          .getJobs(0).getResult());
    }
  }

  /** alice's job, named, computed to its end by a worker. */
  private String aliceJobDone(RawPeer alice) throws Exception {
    try (ScriptedWorker w = new ScriptedWorker(master.port, PeerCredential.token(Role.WORKER, "w",
        Auth.token(KEY, Role.WORKER, "w")), "w")) {
      Envelope r = ask(alice, Envelope.newBuilder().setSubmit(Submit.newBuilder()
          .setSpec(MasterFixture.primes(0, 100_000, "equal", 0, 0).toBuilder().setName("alice-thesis-run-7"))).build());
      String job = r.getSubmitReply().getJobId();
      assertEquals("DONE", master.awaitEnd(job).getState());
      return job;
    }
  }

  private static String credential(Role role, String id) {
    return id + ":" + java.util.Base64.getEncoder().encodeToString(Auth.token(KEY, role, id));
  }

  /** The job as /api/status shows it on this machine, with this credential (none if null). */
  private com.fasterxml.jackson.databind.JsonNode webJob(String job, String credential) throws IOException {
    HttpGet.Reply r = credential == null ? HttpGet.get(master.port, "/api/status")
        : HttpGet.get(master.port, "/api/status", "Authorization: Bearer " + credential);
    assertEquals(200, r.status(), r.body());
    for (var j : new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body()).get("jobs")) {
      if (j.get("id").asText().equals(job)) {
        return j;
      }
    }
    throw new AssertionError("job " + job + " is not in " + r.body());
  }

  @Test
  void theWebPageShowsAJobsResultToItsOwnerAndOperatorsOnly() throws Exception {
    try (RawPeer alice = as(Role.CLIENT, "alice")) {
      String job = aliceJobDone(alice);
      // on the master's machine without a credential: the job, not its result
      var anonymous = webJob(job, null);
      assertEquals("alice-thesis-run-7", anonymous.get("name").asText(), "reading is shared");
      assertEquals("", anonymous.get("resultLine").asText());
      assertTrue(anonymous.get("message").asText().endsWith("its result is for client 'alice' and operators to read"),
          anonymous.toString());
      assertEquals("", webJob(job, credential(Role.CLIENT, "bob")).get("resultLine").asText());
      assertEquals("9592 primes", webJob(job, credential(Role.CLIENT, "alice")).get("resultLine").asText());
      assertEquals("9592 primes", webJob(job, credential(Role.OPERATOR, "root")).get("resultLine").asText());
      // a credential shown must be good, from this machine too
      HttpGet.Reply bad = HttpGet.get(master.port, "/api/status", "Authorization: Bearer alice:"
          + java.util.Base64.getEncoder().encodeToString(Auth.token(KEY, Role.CLIENT, "bob")));
      assertEquals(403, bad.status());
      assertEquals("/api/status: the credential is neither a client's or an operator's token of this cluster"
          + " (NAME:BASE64) nor its shared secret\n", bad.body());
    }
  }

  @Test
  void aMasterWithPrivateJobsShowsOtherClientsJobsAsNumbersOnly() throws Exception {
    master.close();
    master = MasterFixture.start(dir.resolve("private"), c -> c.withAuth(MasterAuth.tokens(KEY)).withPrivateJobs(true));
    try (RawPeer alice = as(Role.CLIENT, "alice"); RawPeer bob = as(Role.CLIENT, "bob");
         RawPeer root = as(Role.OPERATOR, "root")) {
      String job = aliceJobDone(alice);
      StatusRequest one = StatusRequest.newBuilder().setJobId(job).build();
      var theirs = ask(bob, Envelope.newBuilder().setStatusRequest(one).build()).getStatusReply().getJobs(0);
      assertEquals("client:alice", theirs.getOwner());
      assertEquals("DONE", theirs.getState());
      assertEquals(100_000, theirs.getUnitsDone(), "the numbers stay shared");
      assertEquals("", theirs.getName());
      assertEquals("", theirs.getResult());
      assertEquals("its name, messages and result are for client 'alice' and operators to read (this master keeps"
          + " jobs private)", theirs.getMessage());
      var all = ask(bob, Envelope.newBuilder().setStatusRequest(StatusRequest.getDefaultInstance()).build());
      assertTrue(all.getStatusReply().getJobsList().stream().noneMatch(j -> j.getName().equals("alice-thesis-run-7")));
      for (RawPeer reader : List.of(alice, root)) {
        var full = ask(reader, Envelope.newBuilder().setStatusRequest(one).build()).getStatusReply().getJobs(0);
        assertEquals("alice-thesis-run-7", full.getName());
        assertEquals("9592 primes", full.getResult());
      }
      assertEquals("", webJob(job, null).get("name").asText(), "the page without a credential reads as bob does");
      assertEquals("", webJob(job, credential(Role.CLIENT, "bob")).get("name").asText());
      assertEquals("alice-thesis-run-7", webJob(job, credential(Role.CLIENT, "alice")).get("name").asText());
    }
  }

  @Test
  void aJobWithNoOwnerIsAnOperatorsToChange() throws Exception {
    master.close();
    master = MasterFixture.start(dir.resolve("both"), c -> c.withAuth(new MasterAuth(MasterFixture.SECRET, KEY)));
    // submitted with the shared secret, which a master may take beside tokens while peers move over
    String job = master.submit(MasterFixture.primes(0, 1_000_000_000_000L, "equal", 0, 0));
    assertEquals("", master.job(job).getOwner());
    try (RawPeer bob = as(Role.CLIENT, "bob"); RawPeer root = as(Role.OPERATOR, "root")) {
      assertEquals("job " + job + " has no owner (submitted with the shared secret, or before jobs had owners); only an"
          + " operator may cancel it (you are client 'bob')", notAllowed(ask(bob, cancel(job))));
      assertTrue(ask(root, cancel(job)).hasJobReply());
    }
  }
}
