package dev.gleaner.deploy.chaos;

import dev.gleaner.deploy.CommandLineTest;

import static dev.gleaner.deploy.CommandLineTest.gleaner;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.master.auth.MasterAuth;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.tls.ClientTls;
import dev.gleaner.protocol.tls.ClusterFiles;
import dev.gleaner.protocol.tls.ServerTls;
import dev.gleaner.worker.WorkerConfig;
import dev.gleaner.worker.WorkerDaemon;
import dev.gleaner.worker.Workers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A man in the middle that changes one byte a worker sends (the attack that once made a master
 * report a wrong count as DONE). Over TLS the record no longer authenticates: the master drops that
 * connection, the worker connects again, and the answer is exact.
 */
class TamperingProxyTest {
  private static final byte[] SECRET = "tampering-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;

  /**
   * Forwards loopback connections to the master; on the first one, flips the bits of a byte in the
   * middle of the {@code flipAt}-th read from the worker.
   */
  static final class Proxy implements AutoCloseable {
    final ServerSocket server;
    final AtomicInteger connections = new AtomicInteger();
    final AtomicInteger flipped = new AtomicInteger();
    private final long flipAt;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    Proxy(int masterPort, long flipAt) throws IOException {
      this.flipAt = flipAt;
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      acceptor = new Thread(() -> {
        // bounded: a test makes a handful of connections
        for (int i = 0; i < 1000 && !server.isClosed(); i++) {
          try {
            Socket in = server.accept();
            Socket out = new Socket(InetAddress.getLoopbackAddress(), masterPort);
            sockets.add(in);
            sockets.add(out);
            boolean tamper = connections.getAndIncrement() == 0;
            pump(in, out, tamper);
            pump(out, in, false);
          } catch (IOException e) {
            return;
          }
        }
      }, "tampering-proxy");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    private void pump(Socket from, Socket to, boolean tamper) {
      Thread t = new Thread(() -> {
        byte[] buf = new byte[8192];
        int reads = 0;
        try (InputStream is = from.getInputStream(); OutputStream os = to.getOutputStream()) {
          for (int n; (n = is.read(buf)) >= 0; ) {
            if (tamper && ++reads == flipAt && flipped.get() == 0) {
              buf[n / 2] ^= (byte) 0xFF;
              flipped.incrementAndGet();
            }
            os.write(buf, 0, n);
            os.flush();
          }
        } catch (IOException e) {
          // the other side closed: so does this one
        } finally {
          closeQuietly(from);
          closeQuietly(to);
        }
      }, "tampering-proxy-pump");
      t.setDaemon(true);
      t.start();
    }

    private static void closeQuietly(Socket s) {
      try {
        s.close();
      } catch (IOException e) {
        // already closed
      }
    }

    int port() {
      return server.getLocalPort();
    }

    @Override
    public void close() throws IOException {
      server.close();
      for (Socket s : sockets) {
        closeQuietly(s);
      }
    }
  }

  @Test
  void overTlsAByteChangedInTransitBreaksTheConnectionNotTheAnswer() throws Exception {
    Path pki = dir.resolve("pki");
    assertEquals(0, gleaner("init", pki.toString()).code());
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("data"), SECRET,
            Workloads.of())
        .withAuth(MasterAuth.sharedSecret(SECRET))
        .withTls(ServerTls.fromDir(pki, false))
        .withHeartbeat(Duration.ofMillis(200), Duration.ofSeconds(5));
    try (MasterServer master = new MasterServer(config).start();
        // past the handshake and the login: in a record that carries heartbeats or pieces
        Proxy proxy = new Proxy(master.port(), 12);
        WorkerDaemon worker = WorkerDaemon.start(WorkerConfig.defaults("127.0.0.1", proxy.port(), SECRET, "w1",
                Workers.workloads(getClass().getClassLoader(), java.util.Set.of()))
            .withCores(1).withMaxSpeed(2_000_000).withBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .withTls(ClientTls.trusting(pki.resolve(ClusterFiles.CA_CERT))))) {
      String id;
      try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", master.port()),
          dev.gleaner.protocol.PeerCredential.sharedSecret(SECRET),
          ClientTls.trusting(pki.resolve(ClusterFiles.CA_CERT)))) {
        id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("to", "10000000").setStrategy("self")
            .setChunkUnits(1_000_000).build());
      }
      await().atMost(Duration.ofSeconds(120)).until(() -> {
        String s = master.status(id).getJobs(0).getState();
        return s.equals("DONE") || s.equals("FAILED");
      });
      JobStatus s = master.status(id).getJobs(0);
      assertEquals(1, proxy.flipped.get(), "the proxy changed a byte");
      assertTrue(proxy.connections.get() >= 2, "the worker connected again after the master dropped it: "
          + proxy.connections.get());
      assertEquals("DONE", s.getState(), s.getMessage());
      assertEquals("664579 primes", s.getResult());
    }
  }
}
