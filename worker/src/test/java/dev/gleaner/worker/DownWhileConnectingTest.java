package dev.gleaner.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.protocol.Challenge;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.ProtocolVersion;
import dev.gleaner.protocol.Welcome;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker that an injected outage takes down while its session is being set up is down: it closes
 * that connection (or drops the session if its Welcome came first), and when the outage ends it
 * connects once, and that session stands. (Kept, that
 * session and the one made at the outage's end took the worker's id from each other, again and again,
 * for as long as the worker ran.)
 */
class DownWhileConnectingTest {
  private static final byte[] SECRET = "down-while-connecting-0123456789".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;

  @Test
  void aSessionBeingSetUpWhenTheWorkerGoesDownIsClosedAndTheNextStands() throws Exception {
    Path crash = dir.resolve("down");
    try (ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
      server.setSoTimeout(60_000);
      WorkerConfig config = WorkerConfig.defaults("127.0.0.1", server.getLocalPort(), SECRET, "w1", Workloads.of())
          .withCores(1).withBackoff(Duration.ofMillis(20), Duration.ofMillis(200)).withCrashFile(crash);
      try (WorkerDaemon worker = WorkerDaemon.start(config)) {
        Envelope firstHello;
        try (Socket s = server.accept()) {
          s.setSoTimeout(30_000);
          DataInputStream in = new DataInputStream(s.getInputStream());
          DataOutputStream out = new DataOutputStream(s.getOutputStream());
          firstHello = RawFrames.read(in);
          RawFrames.send(out, Envelope.newBuilder().setChallenge(Challenge.newBuilder()
              .setProtocolVersion(ProtocolVersion.CURRENT).setNonce(ByteString.copyFrom(new byte[32]))).build());
          assertTrue(RawFrames.read(in).hasAuthResponse());
          // the outage begins in the middle of the handshake
          Files.createFile(crash);
          await().atMost(Duration.ofSeconds(30)).until(() -> worker.state() == WorkerDaemon.State.INTERRUPTED);
          int heartbeats = 0;
          boolean closed = false;
          try {
            // the worker closes the connection as it goes down; a Welcome that came first would find it down
            RawFrames.send(out, Envelope.newBuilder().setWelcome(Welcome.newBuilder().setSessionId("s1")
                .setHeartbeatIntervalMs(50).setHeartbeatTimeoutMs(5_000).setMaxFrameBytes(1 << 20)).build());
            for (int i = 0; i < 10_000 && heartbeats < 40; i++) {
              if (RawFrames.read(in).hasHeartbeat()) {
                heartbeats++;
              }
            }
          } catch (EOFException | SocketException e) {
            closed = true;
          }
          assertTrue(closed, "the worker, down, closed the session being set up (" + heartbeats + " heartbeats)");
        }
        assertEquals(WorkerDaemon.State.INTERRUPTED, worker.state());
        Files.delete(crash);
        try (Socket again = server.accept()) {
          again.setSoTimeout(30_000);
          DataInputStream in = new DataInputStream(again.getInputStream());
          DataOutputStream out = new DataOutputStream(again.getOutputStream());
          Envelope hello = RawFrames.read(in);
          assertEquals(firstHello.getHello().getInstance(), hello.getHello().getInstance(),
              "the outage is over: the same process connects again");
          RawFrames.send(out, Envelope.newBuilder().setChallenge(Challenge.newBuilder()
              .setProtocolVersion(ProtocolVersion.CURRENT).setNonce(ByteString.copyFrom(new byte[32]))).build());
          assertTrue(RawFrames.read(in).hasAuthResponse());
          RawFrames.send(out, Envelope.newBuilder().setWelcome(Welcome.newBuilder().setSessionId("s2")
              .setHeartbeatIntervalMs(50).setHeartbeatTimeoutMs(5_000).setMaxFrameBytes(1 << 20)).build());
          Envelope next = RawFrames.read(in);
          for (int i = 0; i < 1_000 && !next.hasHeartbeat(); i++) {
            next = RawFrames.read(in);
          }
          assertTrue(next.hasHeartbeat(), "this session stands: the worker heartbeats on it");
          await().atMost(Duration.ofSeconds(30)).until(() -> worker.state() == WorkerDaemon.State.CONNECTED);
        }
      }
    }
  }
}
