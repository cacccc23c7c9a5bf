package dev.gleaner.master.auth;

import static dev.gleaner.master.testing.Tokens.CLUSTER_KEY;
import static dev.gleaner.master.testing.Tokens.token;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.auth.MasterAuth;
import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.protocol.Auth;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.StatusRequest;
import dev.gleaner.protocol.Submit;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens through the real master: each logs in under its own role and id only, and a master with a
 * cluster key refuses the shared secret unless told to take it too.
 */
class TokenLoginTest {
  static final List<String> WORKLOADS = List.of("primes");

  @TempDir
  Path dir;
  MasterFixture master;

  @AfterEach
  void stop() {
    if (master != null) {
      master.close();
    }
  }

  private void start(MasterAuth auth) throws InterruptedException {
    master = MasterFixture.start(dir, c -> c.withAuth(auth));
  }

  /** The master's answer to a login, asserting that a refusal is followed by the close. */
  private Envelope login(PeerCredential credential, Role role, String id) throws Exception {
    try (RawPeer p = new RawPeer(master.port)) {
      Envelope reply = p.login(credential, role, id, role == Role.WORKER ? WORKLOADS : List.of(), 1);
      if (reply.hasError()) {
        assertTrue(p.closedByMaster(), "the master should close after refusing");
      }
      return reply;
    }
  }

  private static String refusal(Envelope reply) {
    assertTrue(reply.hasError(), "expected a refusal, got " + reply);
    assertEquals(Error.Code.AUTH_FAILED, reply.getError().getCode());
    return reply.getError().getMessage();
  }

  @Test
  void aWorkerTokenLogsInAsItsOwnId() throws Exception {
    start(MasterAuth.tokens(CLUSTER_KEY));
    assertTrue(login(token(Role.WORKER, "a"), Role.WORKER, "a").hasWelcome());
  }

  @Test
  void aWorkerTokenReplayedUnderAnotherIdIsRefused() throws Exception {
    start(MasterAuth.tokens(CLUSTER_KEY));
    String why = refusal(login(token(Role.WORKER, "a"), Role.WORKER, "b"));
    assertTrue(why.contains("worker 'b'") && why.contains("not"), why);
    assertTrue(master.server.liveWorkers().isEmpty());
  }

  @Test
  void aWorkerTokenCannotLogInAsAClient() throws Exception {
    start(MasterAuth.tokens(CLUSTER_KEY));
    String why = refusal(login(token(Role.WORKER, "a"), Role.CLIENT, "a"));
    assertTrue(why.contains("a worker token cannot log in as a client"), why);
  }

  @Test
  void aClientTokenCannotRegisterAsAWorker() throws Exception {
    start(MasterAuth.tokens(CLUSTER_KEY));
    String why = refusal(login(token(Role.CLIENT, "admin"), Role.WORKER, "admin"));
    assertTrue(why.contains("a client token cannot log in as a worker"), why);
    assertTrue(master.server.liveWorkers().isEmpty());
  }

  @Test
  void aLoggedInWorkerCannotSubmitOrReadStatus() throws Exception {
    start(MasterAuth.tokens(CLUSTER_KEY));
    for (Envelope request : List.of(
        Envelope.newBuilder().setSubmit(Submit.newBuilder().setSpec(MasterFixture.primes(0, 100, "equal", 0, 0))).build(),
        Envelope.newBuilder().setStatusRequest(StatusRequest.getDefaultInstance()).build())) {
      try (RawPeer p = new RawPeer(master.port)) {
        p.handshake(token(Role.WORKER, "a"), Role.WORKER, "a", WORKLOADS, 1);
        p.send(request);
        Envelope reply = p.readSkippingAcks(10_000);
        assertTrue(reply != null && reply.hasError(), "expected a refusal, got " + reply);
        assertEquals(Error.Code.UNEXPECTED_MESSAGE, reply.getError().getCode());
        assertTrue(reply.getError().getMessage().contains("a worker may not send"), reply.getError().getMessage());
      }
    }
  }

  @Test
  void aClientTokenSubmitsAndReadsStatus() throws Exception {
    start(MasterAuth.tokens(CLUSTER_KEY));
    try (RawPeer p = new RawPeer(master.port)) {
      p.handshake(token(Role.CLIENT, "admin"), Role.CLIENT, "admin", List.of(), 0);
      p.send(Envelope.newBuilder().setSubmit(Submit.newBuilder().setSpec(MasterFixture.primes(0, 100, "equal", 0, 0))).build());
      Envelope reply = p.read();
      assertTrue(reply.hasSubmitReply(), reply.toString());
      p.send(Envelope.newBuilder().setStatusRequest(StatusRequest.getDefaultInstance()).build());
      assertTrue(p.read().hasStatusReply());
    }
  }

  @Test
  void aTokenFromAnotherClusterKeyIsRefused() throws Exception {
    start(MasterAuth.tokens(CLUSTER_KEY));
    byte[] otherKey = "another-cluster-key-0123456789ab".getBytes(StandardCharsets.UTF_8);
    PeerCredential foreign = PeerCredential.token(Role.WORKER, "a", Auth.token(otherKey, Role.WORKER, "a"));
    assertTrue(refusal(login(foreign, Role.WORKER, "a")).contains("not worker 'a''s"));
  }

  @Test
  void aMasterWithAClusterKeyRefusesTheSharedSecret() throws Exception {
    start(MasterAuth.tokens(CLUSTER_KEY));
    String why = refusal(login(PeerCredential.sharedSecret(MasterFixture.SECRET), Role.WORKER, "a"));
    assertTrue(why.contains("refuses shared-secret logins") && why.contains("--token"), why);
  }

  @Test
  void aMasterToldToTakeBothTakesBoth() throws Exception {
    start(new MasterAuth(MasterFixture.SECRET, CLUSTER_KEY));
    assertTrue(login(PeerCredential.sharedSecret(MasterFixture.SECRET), Role.WORKER, "s").hasWelcome());
    assertTrue(login(token(Role.WORKER, "t"), Role.WORKER, "t").hasWelcome());
  }

  @Test
  void aSharedSecretMasterRefusesTokens() throws Exception {
    start(MasterAuth.sharedSecret(MasterFixture.SECRET));
    String why = refusal(login(token(Role.WORKER, "a"), Role.WORKER, "a"));
    assertTrue(why.contains("takes no tokens"), why);
  }
}
