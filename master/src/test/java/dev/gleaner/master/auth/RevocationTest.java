package dev.gleaner.master.auth;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.auth.MasterAuth;
import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.master.testing.Tokens;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Revocation;
import dev.gleaner.protocol.RevocationsRequest;
import dev.gleaner.protocol.Revoke;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.StatusRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Revocation without a restart: an operator's Revoke closes the id's live sessions at once and its
 * logins are refused from then on, other peers untouched; the next generation of the id's token
 * logs in; the revocation outlives a restart of the master; only an operator may revoke.
 */
class RevocationTest {
  private static final byte[] KEY = Tokens.CLUSTER_KEY;

  @TempDir
  Path dir;
  MasterFixture master;

  @AfterEach
  void stop() {
    if (master != null) {
      master.close();
    }
  }

  private void start() throws InterruptedException {
    master = MasterFixture.start(dir, c -> c.withAuth(MasterAuth.tokens(KEY)));
  }

  private static PeerCredential token(Role role, String id, int generation) {
    return PeerCredential.token(role, id, Auth.token(KEY, role, id, generation), generation);
  }

  private Envelope login(Role role, String id, int generation) throws IOException {
    try (RawPeer p = new RawPeer(master.port)) {
      return p.login(token(role, id, generation), role, id, role == Role.WORKER ? List.of("primes") : List.of(), 1);
    }
  }

  private RawPeer as(Role role, String id) throws IOException {
    RawPeer p = new RawPeer(master.port);
    p.handshake(token(role, id, 0), role, id, role == Role.WORKER ? List.of("primes") : List.of(), 1);
    return p;
  }

  private static Envelope revoke(RawPeer p, Role role, String id) throws IOException {
    p.send(Envelope.newBuilder().setRevoke(Revoke.newBuilder().setRole(role).setId(id).setReason("left the lab")).build());
    return p.readSkippingHeartbeats(30_000);
  }

  /** Reads until the master's error and the close; returns the error. */
  private static Envelope refusalAndClose(RawPeer p) throws IOException {
    Envelope e = p.readSkipping(30_000, m -> !m.hasError());
    assertTrue(e != null, "no refusal within 30 s");
    assertTrue(p.closedByMaster(), "the master closes the session after the refusal");
    return e;
  }

  @Test
  void aRevokedWorkerIsDisconnectedAndRefusedWhileOthersGoOn() throws Exception {
    start();
    try (RawPeer w1 = as(Role.WORKER, "w1"); RawPeer w2 = as(Role.WORKER, "w2");
         RawPeer alice = as(Role.CLIENT, "alice"); RawPeer root = as(Role.OPERATOR, "root")) {
      await().atMost(Duration.ofSeconds(30)).until(() -> master.server.liveWorkers().containsAll(List.of("w1", "w2")));
      Envelope reply = revoke(root, Role.WORKER, "w1");
      assertTrue(reply.hasRevokeReply(), reply.toString());
      assertEquals(1, reply.getRevokeReply().getSessionsClosed());
      assertEquals(1, reply.getRevokeReply().getRevocation().getNextGeneration());
      assertEquals("operator 'root'", reply.getRevokeReply().getRevocation().getBy());

      Envelope closed = refusalAndClose(w1);
      assertEquals(Error.Code.AUTH_FAILED, closed.getError().getCode());
      assertTrue(closed.getError().getMessage().startsWith("the worker token of 'w1' was revoked at ")
          && closed.getError().getMessage().contains("by operator 'root' (left the lab)"), closed.getError().getMessage());
      await().atMost(Duration.ofSeconds(5)).until(() -> !master.server.liveWorkers().contains("w1"));

      Envelope again = login(Role.WORKER, "w1", 0);
      assertEquals(Error.Code.AUTH_FAILED, again.getError().getCode());
      assertTrue(again.getError().getMessage().endsWith("ask the cluster's admin for a new one (gleaner token worker w1"
          + " --generation 1)"), again.getError().getMessage());
      assertTrue(login(Role.WORKER, "w1", 1).hasWelcome(), "the next generation logs in");

      // the others: untouched
      assertTrue(master.server.liveWorkers().contains("w2"));
      alice.send(Envelope.newBuilder().setStatusRequest(StatusRequest.getDefaultInstance()).build());
      assertTrue(alice.readSkippingHeartbeats(30_000).hasStatusReply());
    }
  }

  @Test
  void aRevokedClientIsRefusedAndTheRevocationOutlivesARestart() throws Exception {
    start();
    try (RawPeer bob = as(Role.CLIENT, "bob"); RawPeer root = as(Role.OPERATOR, "root")) {
      assertTrue(revoke(root, Role.CLIENT, "bob").hasRevokeReply());
      assertEquals(Error.Code.AUTH_FAILED, refusalAndClose(bob).getError().getCode());
      root.send(Envelope.newBuilder().setRevocationsRequest(RevocationsRequest.getDefaultInstance()).build());
      List<Revocation> listed = root.readSkippingHeartbeats(30_000).getRevocationsReply().getRevocationsList();
      assertEquals(1, listed.size());
      assertEquals("bob", listed.get(0).getId());
      assertEquals(Role.CLIENT, listed.get(0).getRole());
      assertEquals("left the lab", listed.get(0).getReason());
    }
    assertEquals(Error.Code.AUTH_FAILED, login(Role.CLIENT, "bob", 0).getError().getCode());
    assertTrue(login(Role.CLIENT, "alice", 0).hasWelcome());

    master.close();
    master = null;
    start();
    assertEquals(Error.Code.AUTH_FAILED, login(Role.CLIENT, "bob", 0).getError().getCode(),
        "a restarted master still refuses a revoked token");
    assertTrue(login(Role.CLIENT, "bob", 1).hasWelcome());
    // a second revocation kills generation 1 too
    try (RawPeer root = as(Role.OPERATOR, "root")) {
      assertEquals(2, revoke(root, Role.CLIENT, "bob").getRevokeReply().getRevocation().getNextGeneration());
    }
    assertEquals(Error.Code.AUTH_FAILED, login(Role.CLIENT, "bob", 1).getError().getCode());
    assertTrue(login(Role.CLIENT, "bob", 2).hasWelcome());
  }

  @Test
  void onlyAnOperatorRevokesOrListsAndAClientsSessionStaysOpen() throws Exception {
    start();
    try (RawPeer bob = as(Role.CLIENT, "bob"); RawPeer w1 = as(Role.WORKER, "w1")) {
      Envelope refused = revoke(bob, Role.WORKER, "w1");
      assertEquals(Error.Code.NOT_ALLOWED, refused.getError().getCode());
      assertEquals("only an operator may revoke tokens (you are client 'bob'); an operator token is made with"
          + " `gleaner token operator NAME`", refused.getError().getMessage());
      bob.send(Envelope.newBuilder().setRevocationsRequest(RevocationsRequest.getDefaultInstance()).build());
      assertEquals(Error.Code.NOT_ALLOWED, bob.readSkippingHeartbeats(30_000).getError().getCode());
      assertTrue(master.server.liveWorkers().contains("w1"), "nothing was revoked");
      assertTrue(login(Role.WORKER, "w3", 0).hasWelcome());
    }
  }

  @Test
  void anOperatorTokenCannotLogInAsAClientNorTheOtherWayRound() throws Exception {
    start();
    Envelope asClient;
    try (RawPeer p = new RawPeer(master.port)) {
      asClient = p.login(token(Role.OPERATOR, "root", 0), Role.CLIENT, "root", List.of(), 0);
    }
    assertTrue(asClient.getError().getMessage().endsWith("that is an operator token, and an operator token cannot log in"
        + " as a client"), asClient.toString());
    Envelope asOperator;
    try (RawPeer p = new RawPeer(master.port)) {
      asOperator = p.login(token(Role.CLIENT, "bob", 0), Role.OPERATOR, "bob", List.of(), 0);
    }
    assertTrue(asOperator.getError().getMessage().contains("a client token cannot log in as an operator"),
        asOperator.toString());
  }

  @Test
  void onlyTheGenerationTheMasterTakesLogsIn() throws Exception {
    start();
    // made ahead of time, a later generation would outlive the revocation of the ones before it
    Envelope ahead = login(Role.WORKER, "w1", 1);
    assertEquals(Error.Code.AUTH_FAILED, ahead.getError().getCode());
    assertEquals("the worker token of 'w1' is of generation 1, and the master takes generation 0 of it (gleaner token list"
        + " shows the revoked ids)", ahead.getError().getMessage());
    try (RawPeer p = new RawPeer(master.port)) {
      // a uint32 of 2^31 or more: no token has such a generation
      p.send(Envelope.newBuilder().setHello(dev.gleaner.protocol.Messages.hello(Role.WORKER, "w1", "h", 1, List.of("primes"))
          .getHello().toBuilder().setCredential(dev.gleaner.protocol.Credential.TOKEN).setTokenGeneration(-1)).build());
      Envelope refused = p.read();
      assertEquals(Error.Code.UNEXPECTED_MESSAGE, refused.getError().getCode());
      assertEquals("a token's generation is below 2^31, not 4294967295", refused.getError().getMessage());
    }
  }

  @Test
  void anOperatorRevokingItselfGetsTheReplyThenItsSessionEnds() throws Exception {
    start();
    try (RawPeer root = as(Role.OPERATOR, "root")) {
      Envelope reply = revoke(root, Role.OPERATOR, "root");
      assertTrue(reply.hasRevokeReply(), reply.toString());
      assertEquals(1, reply.getRevokeReply().getSessionsClosed());
      assertEquals(Error.Code.AUTH_FAILED, refusalAndClose(root).getError().getCode());
    }
    assertEquals(Error.Code.AUTH_FAILED, login(Role.OPERATOR, "root", 0).getError().getCode());
  }
}
