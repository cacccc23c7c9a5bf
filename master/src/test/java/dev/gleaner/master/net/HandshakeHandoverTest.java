package dev.gleaner.master.net;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.AuthResponse;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.Messages;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.PiecePart;
import dev.gleaner.protocol.RevocationsRequest;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.Submit;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The handshake hands a connection to the handler of its role at the Welcome: frames a peer sends
 * right behind its answer (decoded in the same read) are that handler's, in the order sent, and the
 * frame limit rises from the answer's to the configured maximum at the Welcome, not before.
 */
class HandshakeHandoverTest {
  private static final byte[] SECRET = "handover-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;
  MasterServer master;

  @BeforeEach
  void start() throws InterruptedException {
    master = new MasterServer(MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir, SECRET, Workloads.of()))
        .start();
  }

  @AfterEach
  void stop() {
    master.close();
  }

  /** A peer on a blocking loopback socket that writes what the test gives it in one write. */
  private static final class Peer implements AutoCloseable {
    final Socket socket;
    final DataInputStream in;
    final DataOutputStream out;
    final Role role;
    final String id;

    Peer(int port, Role role, String id) throws IOException {
      socket = new Socket("127.0.0.1", port);
      socket.setSoTimeout(10_000);
      socket.setTcpNoDelay(true);
      in = new DataInputStream(socket.getInputStream());
      out = new DataOutputStream(socket.getOutputStream());
      this.role = role;
      this.id = id;
    }

    /** Says hello; returns the answer to the master's challenge, not yet sent. */
    Envelope hello() throws IOException {
      write(frames(Messages.hello(role, id, "test-host", 1, role == Role.WORKER ? List.of("primes") : List.of())));
      Envelope challenge = read();
      assertTrue(challenge.hasChallenge(), "expected a challenge, got " + challenge);
      byte[] nonce = challenge.getChallenge().getNonce().toByteArray();
      byte[] mac = PeerCredential.sharedSecret(SECRET).answer(nonce, role, id);
      return Envelope.newBuilder().setAuthResponse(AuthResponse.newBuilder().setMac(ByteString.copyFrom(mac))).build();
    }

    void write(byte[] bytes) throws IOException {
      out.write(bytes);
      out.flush();
    }

    Envelope read() throws IOException {
      byte[] b = new byte[in.readInt()];
      in.readFully(b);
      return Envelope.parseFrom(b);
    }

    /** True once the master has closed the connection (reads EOF within the socket timeout). */
    boolean closedByMaster() throws IOException {
      try {
        while (true) {
          read();
        }
      } catch (EOFException | SocketException e) {
        return true;
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }

  /** The frames of {@code messages}, back to back. */
  private static byte[] frames(Envelope... messages) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (Envelope m : messages) {
      byte[] b = m.toByteArray();
      bytes.writeBytes(ByteBuffer.allocate(4).putInt(b.length).array());
      bytes.writeBytes(b);
    }
    return bytes.toByteArray();
  }

  /** A frame of {@code length} bytes, as its length only: the rest never comes. */
  private static byte[] header(int length) {
    return ByteBuffer.allocate(4).putInt(length).array();
  }

  @Test
  void aWorkersFramesRightBehindItsAnswerAreHandledAfterTheWelcomeInOrder() throws Exception {
    try (Peer w = new Peer(master.port(), Role.WORKER, "eager")) {
      w.write(frames(w.hello(), Messages.heartbeat(1, 0), Messages.heartbeat(2, 0), Messages.heartbeat(3, 0)));
      assertTrue(w.read().hasWelcome());
      for (long seq = 1; seq <= 3; seq++) {
        Envelope e = w.read();
        assertTrue(e.hasHeartbeat(), "expected the answer to heartbeat " + seq + ", got " + e);
        assertEquals(seq, e.getHeartbeat().getSeq());
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> master.liveWorkers().contains("eager"));
      w.write(frames(Messages.goodbye("done")));
      assertTrue(w.closedByMaster());
      await().atMost(Duration.ofSeconds(10)).until(() -> !master.liveWorkers().contains("eager"));
    }
  }

  @Test
  void aClientsFramesRightBehindItsAnswerAreHandledAfterTheWelcomeInOrder() throws Exception {
    try (Peer c = new Peer(master.port(), Role.CLIENT, "eager-client")) {
      Envelope notForAClient = Envelope.newBuilder().setPiecePart(PiecePart.newBuilder().setJobId("job-1")).build();
      c.write(frames(c.hello(), Envelope.newBuilder().setRevocationsRequest(RevocationsRequest.getDefaultInstance())
          .build(), notForAClient));
      assertTrue(c.read().hasWelcome());
      Envelope listed = c.read();
      assertTrue(listed.hasRevocationsReply(), "expected the list of revocations, got " + listed);
      Envelope refused = c.read();
      assertEquals(Error.Code.UNEXPECTED_MESSAGE, refused.getError().getCode(), refused.toString());
      assertEquals("a client may not send PIECE_PART", refused.getError().getMessage());
      assertTrue(c.closedByMaster());
    }
  }

  @Test
  void betweenTheChallengeAndTheWelcomeAFrameMayHoldOnlyAnAnswer() throws Exception {
    try (Peer w = new Peer(master.port(), Role.WORKER, "w")) {
      w.hello();
      w.write(header(LoginGate.ANSWER_FRAME_BYTES + 1));
      Envelope e = w.read();
      assertEquals(Error.Code.FRAME_TOO_LARGE, e.getError().getCode(), e.toString());
      assertTrue(e.getError().getMessage().contains("over the limit of " + LoginGate.ANSWER_FRAME_BYTES + " bytes"),
          e.getError().getMessage());
      assertTrue(w.closedByMaster());
    }
  }

  @Test
  void aFrameRightBehindTheAnswerIsHeldToTheAnswersLimitEvenAfterTheWelcome() throws Exception {
    try (Peer w = new Peer(master.port(), Role.WORKER, "w")) {
      // read with the answer, so decoded under the answer's limit, though handed on after the Welcome
      byte[] answer = frames(w.hello());
      w.write(ByteBuffer.allocate(answer.length + 4).put(answer).put(header(LoginGate.ANSWER_FRAME_BYTES + 1)).array());
      assertTrue(w.read().hasWelcome());
      Envelope e = w.read();
      assertEquals(Error.Code.FRAME_TOO_LARGE, e.getError().getCode(), e.toString());
      assertTrue(e.getError().getMessage().contains("over the limit of " + LoginGate.ANSWER_FRAME_BYTES + " bytes"),
          e.getError().getMessage());
      assertTrue(w.closedByMaster());
    }
  }

  @Test
  void afterTheWelcomeAFrameMayBeAsLargeAsTheMastersMaximum() throws Exception {
    try (Peer c = new Peer(master.port(), Role.CLIENT, "c")) {
      c.write(frames(c.hello()));
      assertTrue(c.read().hasWelcome());
      // over the limit before a Hello (64 KiB): a job the master reads, and refuses for what it says
      JobSpec big = JobSpec.newBuilder().setWorkload("no-such-workload").putParams("note", "x".repeat(100_000)).build();
      c.write(frames(Envelope.newBuilder().setSubmit(Submit.newBuilder().setSpec(big)).build()));
      Envelope e = c.read();
      assertEquals(Error.Code.BAD_JOB, e.getError().getCode(), e.getError().getMessage());
      c.write(frames(Envelope.newBuilder().setRevocationsRequest(RevocationsRequest.getDefaultInstance()).build()));
      assertTrue(c.read().hasRevocationsReply(), "the session stays open after a refused job");
    }
  }
}
