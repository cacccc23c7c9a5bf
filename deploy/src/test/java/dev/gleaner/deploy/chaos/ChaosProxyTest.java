package dev.gleaner.deploy.chaos;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Piece;
import dev.gleaner.protocol.PieceAck;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The chaos proxy on loopback: it forwards, notes pieces, stalls and resets on command. */
class ChaosProxyTest {
  private ServerSocket upstream;
  private final List<Socket> accepted = new ArrayList<>();
  private final ByteArrayOutputStream received = new ByteArrayOutputStream();
  private final ReportedPieces reported = new ReportedPieces();
  private ChaosProxy proxy;

  @BeforeEach
  void start() throws IOException {
    upstream = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t = new Thread(() -> {
      try {
        while (true) {
          Socket s = upstream.accept();
          synchronized (accepted) {
            accepted.add(s);
          }
          InputStream in = s.getInputStream();
          byte[] buf = new byte[4096];
          for (int n; (n = in.read(buf)) >= 0; ) {
            synchronized (received) {
              received.write(buf, 0, n);
            }
          }
        }
      } catch (IOException e) {
        // the test is over, or the proxy reset the connection
      }
    }, "test-upstream");
    t.setDaemon(true);
    t.start();
    proxy = new ChaosProxy("w1", upstream::getLocalPort, reported);
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    upstream.close();
    synchronized (accepted) {
      for (Socket s : accepted) {
        s.close();
      }
    }
  }

  private int receivedBytes() {
    synchronized (received) {
      return received.size();
    }
  }

  private static byte[] frame(Envelope e) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(b);
    byte[] bytes = e.toByteArray();
    out.writeInt(bytes.length);
    out.write(bytes);
    return b.toByteArray();
  }

  @Test
  void forwardsBytesAndNotesEveryPieceEvenSplitAcrossWrites() throws Exception {
    byte[] a = frame(Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId("job-1").setStart(0).setEnd(10)).build());
    byte[] b = frame(Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId("job-1").setStart(10).setEnd(25)).build());
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      s.getOutputStream().write(a, 0, 3);
      s.getOutputStream().flush();
      await().atMost(Duration.ofSeconds(10)).until(() -> receivedBytes() == 3);
      s.getOutputStream().write(a, 3, a.length - 3);
      s.getOutputStream().write(b);
      s.getOutputStream().flush();
      await().atMost(Duration.ofSeconds(10)).until(() -> reported.count() == 2);
      assertEquals(a.length + b.length, receivedBytes());
      assertEquals(15, reported.all().get(1).end() - reported.all().get(1).start());
      assertEquals("w1", reported.all().get(0).workerId());
    }
  }

  @Test
  void notesEveryAcknowledgementAndWhetherItsPieceCounted() throws Exception {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        synchronized (accepted) {
          return accepted.size() == 1;
        }
      });
      Socket master;
      synchronized (accepted) {
        master = accepted.get(0);
      }
      byte[] counted = frame(Envelope.newBuilder().setPieceAck(PieceAck.newBuilder().setJobId("job-1").setChunkId(3)
          .setEnd(10).setCounted(true)).build());
      byte[] discarded = frame(Envelope.newBuilder().setPieceAck(PieceAck.newBuilder().setJobId("job-1").setChunkId(3)
          .setEnd(25)).build());
      master.getOutputStream().write(counted);
      master.getOutputStream().write(discarded);
      master.getOutputStream().flush();
      await().atMost(Duration.ofSeconds(10)).until(() -> reported.acks().size() == 2);
      List<ReportedPieces.Ack> acks = reported.acks();
      assertEquals(List.of(true, false), acks.stream().map(ReportedPieces.Ack::counted).toList());
      assertEquals(List.of(10L, 25L), acks.stream().map(ReportedPieces.Ack::end).toList());
      assertEquals("w1", acks.get(1).workerId());
      assertEquals(3, acks.get(1).chunkId());
      // the worker gets them as the master sent them
      s.setSoTimeout(10_000);
      assertArrayEquals(counted, s.getInputStream().readNBytes(counted.length));
      assertArrayEquals(discarded, s.getInputStream().readNBytes(discarded.length));
    }
  }

  @Test
  void aStallHoldsTheBytesUntilItEnds() throws Exception {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> proxy.connections() == 1);
      proxy.stall(1500);
      s.getOutputStream().write(new byte[] {1, 2, 3});
      s.getOutputStream().flush();
      await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(2)).until(() -> receivedBytes() == 0);
      await().atMost(Duration.ofSeconds(10)).until(() -> receivedBytes() == 3);
    }
  }

  @Test
  void aDropResetsTheWorkersConnection() throws Exception {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      await().atMost(Duration.ofSeconds(10)).until(() -> proxy.connections() == 1);
      assertEquals(1, proxy.drop());
      s.setSoTimeout(10_000);
      assertThrows(IOException.class, () -> {
        // a reset shows as an exception on read (or on the write after it)
        if (s.getInputStream().read() < 0) {
          s.getOutputStream().write(new byte[64 * 1024]);
          s.getOutputStream().write(new byte[64 * 1024]);
        }
      });
      await().atMost(Duration.ofSeconds(10)).until(() -> proxy.connections() == 0);
    }
  }
}
