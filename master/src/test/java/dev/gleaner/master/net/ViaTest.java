package dev.gleaner.master.net;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.RelayStatus;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.Via;
import dev.gleaner.protocol.WorkerStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A connection a relay passes up carries a Via: the master takes it only from a relay logged in with
 * the session it names, reached the same way, and shows each worker's relay and the relays in its
 * status; anything else is refused in one line and closes that connection only (why, the master's log
 * says: {@code RelaysTest} checks each reason).
 */
class ViaTest {
  @TempDir
  Path dir;
  MasterFixture master;

  @BeforeEach
  void start() throws Exception {
    master = MasterFixture.start(dir);
  }

  @AfterEach
  void stop() {
    master.close();
  }

  private static Envelope via(String relay, String session) {
    return Envelope.newBuilder().setVia(Via.newBuilder().setRelayId(relay).setRelaySession(session)
        .setPeerAddress("127.0.0.1:1")).build();
  }

  /** Logs in as relay {@code id} on {@code peer}; returns its session id. */
  private static String relay(RawPeer peer, String id) throws Exception {
    Envelope welcome = peer.login(PeerCredential.sharedSecret(SECRET), Role.RELAY, id, List.of(), 0);
    assertTrue(welcome.hasWelcome(), "a relay is welcomed: " + welcome);
    return welcome.getWelcome().getSessionId();
  }

  private static Error refusal(RawPeer peer) throws Exception {
    Envelope e = peer.read();
    assertTrue(e.hasError(), "expected an error, got " + e);
    assertTrue(peer.closedByMaster(), "the master closes the connection after the error");
    return e.getError();
  }

  @Test
  void aWorkerThroughTwoRelaysIsShownBehindTheNearestAndTheRelaysWithTheirParents() throws Exception {
    try (RawPeer r1 = new RawPeer(master.port); RawPeer r2 = new RawPeer(master.port);
        RawPeer w = new RawPeer(master.port)) {
      String s1 = relay(r1, "r1");
      r2.send(via("r1", s1));
      String s2 = relay(r2, "r2");
      w.send(via("r1", s1));
      w.send(via("r2", s2));
      w.handshake(SECRET, Role.WORKER, "w1", List.of("primes"));
      await().atMost(Duration.ofSeconds(10)).until(() -> master.server.status("").getWorkersCount() == 1);
      StatusReply s = master.server.status("");
      WorkerStatus ws = s.getWorkers(0);
      assertEquals("r2", ws.getVia(), "the relay nearest the worker");
      assertEquals(List.of("r1", "r2"), s.getRelaysList().stream().map(RelayStatus::getRelayId).toList());
      assertEquals(List.of("", "r1"), s.getRelaysList().stream().map(RelayStatus::getVia).toList());
    }
  }

  @Test
  void aViaOfNoRelayLoggedInIsRefused() throws Exception {
    try (RawPeer w = new RawPeer(master.port)) {
      w.send(via("ghost", "00000000-0000-0000-0000-000000000000"));
      Error e = refusal(w);
      assertEquals(Error.Code.NOT_AUTHENTICATED, e.getCode());
      assertEquals("a Via that cannot be taken (not a relay's session now)", e.getMessage(),
          "the peer learns no relay's name");
    }
  }

  @Test
  void aViaWithAnotherSessionOrTheWrongWayOrAfterTheRelayLeftIsRefused() throws Exception {
    try (RawPeer r1 = new RawPeer(master.port)) {
      String s1 = relay(r1, "r1");
      try (RawPeer w = new RawPeer(master.port)) {
        w.send(via("r1", "guessed-session"));
        assertEquals("a Via that cannot be taken (not a relay's session now)", refusal(w).getMessage());
      }
      try (RawPeer r2 = new RawPeer(master.port); RawPeer w = new RawPeer(master.port)) {
        String s2 = relay(r2, "r2");
        // r2 logged in directly: a connection that claims to have come through r1 and then r2 lies about one
        w.send(via("r1", s1));
        w.send(via("r2", s2));
        assertEquals("a Via that cannot be taken (not a relay's session now)", refusal(w).getMessage());
      }
    }
    // r1's session closed: its Vias are no longer taken
    await().atMost(Duration.ofSeconds(10)).until(() -> master.server.status("").getRelaysCount() == 0);
    try (RawPeer w = new RawPeer(master.port)) {
      w.send(via("r1", "any"));
      assertEquals("a Via that cannot be taken (not a relay's session now)", refusal(w).getMessage());
    }
  }

  @Test
  void aRelayMayNotSendAnythingButHeartbeatsOnItsOwnSession() throws Exception {
    try (RawPeer r = new RawPeer(master.port)) {
      relay(r, "r1");
      r.send(Envelope.newBuilder().setStatusRequest(dev.gleaner.protocol.StatusRequest.getDefaultInstance()).build());
      Error e = refusal(r);
      assertEquals(Error.Code.UNEXPECTED_MESSAGE, e.getCode());
      assertEquals("a relay may not send STATUS_REQUEST on its own session", e.getMessage());
    }
  }

  @Test
  void manyWorkersBehindOneRelayLogInAtOnceCountedByTheirOwnAddresses() throws Exception {
    int n = LoginGate.PER_ADDRESS + 8;
    List<RawPeer> peers = new java.util.ArrayList<>();
    try (RawPeer r = new RawPeer(master.port)) {
      String session = relay(r, "r1");
      try {
        // all of them connected and waiting in the gate at once (from this host's one address, as the relay's)
        for (int i = 0; i < n; i++) {
          RawPeer p = new RawPeer(master.port);
          peers.add(p);
          p.send(Envelope.newBuilder().setVia(Via.newBuilder().setRelayId("r1").setRelaySession(session)
              .setPeerAddress("10.0.0." + (i + 1) + ":5000")
              .setPeerIp(com.google.protobuf.ByteString.copyFrom(new byte[] {10, 0, 0, (byte) (i + 1)}))).build());
        }
        for (int i = 0; i < n; i++) {
          peers.get(i).handshake(SECRET, Role.WORKER, "w" + i, List.of("primes"));
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> master.server.status("").getWorkersCount() == n);
        assertEquals(n, master.server.status("").getRelays(0).getWorkers());
      } finally {
        for (RawPeer p : peers) {
          p.close();
        }
      }
    }
  }
}
