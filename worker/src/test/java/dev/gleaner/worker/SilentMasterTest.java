package dev.gleaner.worker;

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
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Heartbeats go both ways: a master that stops answering without closing the connection (a stopped
 * process, a cut cable) is given up after the timeout it announced, and the worker connects again.
 */
class SilentMasterTest {
  private static final byte[] SECRET = "silent-master-secret-0123456789".getBytes(StandardCharsets.UTF_8);

  @Test
  void aWorkerLeavesASilentMasterAfterItsTimeoutAndConnectsAgain() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
      server.setSoTimeout(60_000);
      WorkerConfig config = WorkerConfig.defaults("127.0.0.1", server.getLocalPort(), SECRET, "w1", Workloads.of())
          .withCores(1).withBackoff(Duration.ofMillis(20), Duration.ofMillis(200));
      try (WorkerDaemon worker = WorkerDaemon.start(config)) {
        Envelope firstHello;
        try (Socket s = server.accept()) {
          s.setSoTimeout(30_000);
          DataInputStream in = new DataInputStream(s.getInputStream());
          DataOutputStream out = new DataOutputStream(s.getOutputStream());
          firstHello = RawFrames.read(in);
          assertTrue(firstHello.hasHello(), firstHello.toString());
          RawFrames.send(out, Envelope.newBuilder().setChallenge(Challenge.newBuilder()
              .setProtocolVersion(ProtocolVersion.CURRENT).setNonce(ByteString.copyFrom(new byte[32]))).build());
          assertTrue(RawFrames.read(in).hasAuthResponse());
          RawFrames.send(out, Envelope.newBuilder().setWelcome(Welcome.newBuilder().setSessionId("s1")
              .setHeartbeatIntervalMs(50).setHeartbeatTimeoutMs(300).setMaxFrameBytes(1 << 20)).build());
          // from now on this "master" reads but never answers: the worker must hang up by itself
          int heartbeats = 0;
          boolean closedByWorker = false;
          for (int i = 0; i < 10_000 && !closedByWorker; i++) {
            try {
              Envelope e = RawFrames.read(in);
              if (e.hasHeartbeat()) {
                heartbeats++;
              }
            } catch (EOFException | SocketException closed) {
              closedByWorker = true;
            }
          }
          assertTrue(closedByWorker, "the worker should have closed the silent connection");
          assertTrue(heartbeats >= 1, "it sent heartbeats before giving up");
        }
        try (Socket again = server.accept()) {
          again.setSoTimeout(30_000);
          Envelope hello = RawFrames.read(new DataInputStream(again.getInputStream()));
          assertEquals("w1", hello.getHello().getPeerId());
          assertEquals(firstHello.getHello().getInstance(), hello.getHello().getInstance(),
              "the same process connects again");
        }
      }
    }
  }
}
