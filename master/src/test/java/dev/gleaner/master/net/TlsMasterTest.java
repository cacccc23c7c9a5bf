package dev.gleaner.master.net;

import static dev.gleaner.master.testing.Tokens.CLUSTER_KEY;
import static dev.gleaner.master.testing.Tokens.token;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.auth.MasterAuth;
import dev.gleaner.master.testing.HttpGet;
import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.RawPeer;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;
import dev.gleaner.protocol.Role;
import dev.gleaner.protocol.StatusRequest;
import dev.gleaner.protocol.tls.ClientTls;
import dev.gleaner.protocol.tls.ClusterCertificates;
import dev.gleaner.protocol.tls.ClusterFiles;
import dev.gleaner.protocol.tls.ServerTls;
import dev.gleaner.protocol.tls.TlsProblem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The master on TLS only: trusted peers log in, clear text and untrusted certificates are refused in one line. */
class TlsMasterTest {
  /** One cluster CA and master certificate (for localhost and 127.0.0.1) for the whole class: keytool is slow. */
  @TempDir
  static Path pki;
  @TempDir
  Path dir;
  MasterFixture master;

  @BeforeAll
  static void makeCertificates() throws IOException {
    ClusterCertificates.makeCa(pki, "test CA", 30);
    ClusterCertificates.issue(pki, pki.resolve(ClusterFiles.MASTER_CERT), pki.resolve(ClusterFiles.MASTER_KEY),
        "gleaner master", List.of("localhost", "127.0.0.1"), null, 30);
    Path other = Files.createDirectories(pki.resolve("other"));
    ClusterCertificates.makeCa(other, "another cluster's CA", 30);
    Path onlyElsewhere = Files.createDirectories(pki.resolve("elsewhere"));
    ClusterCertificates.issue(pki, onlyElsewhere.resolve(ClusterFiles.MASTER_CERT), onlyElsewhere.resolve(ClusterFiles.MASTER_KEY),
        "gleaner master", List.of("master.example", "10.1.2.3"), null, 30);
    Path client = Files.createDirectories(pki.resolve("client"));
    ClusterCertificates.issue(pki, client.resolve("w.crt"), client.resolve("w.key"), "worker w", List.of(), null, 30);
  }

  @AfterEach
  void stop() {
    if (master != null) {
      master.close();
    }
  }

  private void start(ServerTls tls) throws InterruptedException {
    master = MasterFixture.start(dir, c -> c.withAuth(MasterAuth.tokens(CLUSTER_KEY)).withTls(tls));
  }

  private static ClientTls trustingTheCluster() {
    return ClientTls.trusting(pki.resolve(ClusterFiles.CA_CERT));
  }

  @Test
  void aTrustedPeerWithATokenLogsInOverTls() throws Exception {
    start(ServerTls.fromDir(pki, false));
    for (String host : List.of("127.0.0.1", "localhost")) {
      try (RawPeer p = RawPeer.tls(host, master.port, trustingTheCluster())) {
        p.handshake(token(Role.CLIENT, "admin"), Role.CLIENT, "admin", List.of(), 0);
        p.send(Envelope.newBuilder().setStatusRequest(StatusRequest.getDefaultInstance()).build());
        assertTrue(p.read().hasStatusReply());
      }
    }
    try (RawPeer p = RawPeer.tls("127.0.0.1", master.port, trustingTheCluster())) {
      p.handshake(token(Role.WORKER, "a"), Role.WORKER, "a", List.of("primes"), 1);
    }
  }

  @Test
  void aClearTextPeerIsToldToUseTlsAndClosed() throws Exception {
    start(ServerTls.fromDir(pki, false));
    try (RawPeer p = new RawPeer(master.port)) {
      Envelope reply = p.login(token(Role.WORKER, "a"), Role.WORKER, "a", List.of("primes"), 1);
      // the refusal comes in clear text, where the Challenge would have been
      assertTrue(reply.hasError(), reply.toString());
      assertEquals(Error.Code.TLS_REQUIRED, reply.getError().getCode());
      assertTrue(reply.getError().getMessage().contains("--ca"), reply.getError().getMessage());
      assertTrue(p.closedByMaster());
    }
    assertTrue(master.server.liveWorkers().isEmpty());
  }

  @Test
  void aBrowserGivenHttpIsToldTheHttpsAddress() throws Exception {
    start(ServerTls.fromDir(pki, false));
    java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
        java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + master.port + "/")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
    assertEquals(400, r.statusCode());
    assertEquals("This Gleaner master speaks TLS only: open https://127.0.0.1:" + master.port + "/ instead of http://"
        + " (its certificate is signed by the cluster's ca.crt).", r.body().strip());
  }

  @Test
  void metricsOverTlsAnswerLoopbackNamesOnly() throws Exception {
    start(ServerTls.fromDir(pki, false));
    HttpGet.assertMetricsAnswerLoopbackNamesOnly(h -> {
      try (java.net.Socket s = trustingTheCluster().wrap(new java.net.Socket("127.0.0.1", master.port), "127.0.0.1",
          master.port)) {
        return HttpGet.exchange(s, h[0], "/metrics", java.util.Arrays.copyOfRange(h, 1, h.length));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, master.port);
  }

  @Test
  void aMasterCertificateFromAnotherCaIsRefusedInOneLine() throws Exception {
    start(ServerTls.fromDir(pki, false));
    ClientTls stranger = ClientTls.trusting(pki.resolve("other").resolve(ClusterFiles.CA_CERT));
    SSLException e = assertThrows(SSLException.class, () -> RawPeer.tls("127.0.0.1", master.port, stranger).close());
    TlsProblem problem = TlsProblem.of(e, "127.0.0.1:" + master.port);
    assertTrue(problem.permanent());
    assertTrue(problem.message().contains("not signed by the CA in --ca"), problem.message());
  }

  @Test
  void aMasterCertificateForAnotherHostIsRefusedInOneLine() throws Exception {
    start(ServerTls.fromDir(pki.resolve("elsewhere"), false));
    SSLException e = assertThrows(SSLException.class, () -> RawPeer.tls("127.0.0.1", master.port, trustingTheCluster()).close());
    TlsProblem problem = TlsProblem.of(e, "127.0.0.1:" + master.port);
    assertTrue(problem.permanent());
    assertTrue(problem.message().contains("does not name that host"), problem.message());
  }

  @Test
  void anExpiredMasterCertificateStopsTheMasterAtStart() throws Exception {
    Path expired = Files.createDirectories(dir.resolve("expired"));
    ClusterCertificates.issue(pki, expired.resolve(ClusterFiles.MASTER_CERT), expired.resolve(ClusterFiles.MASTER_KEY),
        "gleaner master", List.of("127.0.0.1"), "-10d", 2);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ServerTls.fromDir(expired, false));
    assertTrue(e.getMessage().contains("expired on"), e.getMessage());
  }

  @Test
  void missingFilesAreOneLine() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ServerTls.fromDir(dir, false));
    assertTrue(e.getMessage().contains("does not exist") && e.getMessage().contains("gleaner init"), e.getMessage());
  }

  @Test
  void withClientAuthOnlyPeersWithACertificateOfTheClusterGetIn() throws Exception {
    start(ServerTls.fromDir(pki, true));
    ClientTls withCert = trustingTheCluster().withIdentity(pki.resolve("client").resolve("w.crt"), pki.resolve("client").resolve("w.key"));
    RawPeer w = RawPeer.tls("127.0.0.1", master.port, withCert);
    w.handshake(token(Role.WORKER, "w"), Role.WORKER, "w", List.of("primes"), 1);
    // without a certificate: with TLS 1.3 the master's refusal arrives after the client's side of the
    // handshake, as an alert on the next read or as a connection closed under the next write
    IOException e = assertThrows(IOException.class, () -> {
      try (RawPeer p = RawPeer.tls("127.0.0.1", master.port, trustingTheCluster())) {
        p.login(token(Role.WORKER, "a"), Role.WORKER, "a", List.of("primes"), 1);
      }
    });
    if (e instanceof SSLException) {
      TlsProblem problem = TlsProblem.of(e, "127.0.0.1:" + master.port);
      assertTrue(problem.permanent() && problem.message().contains("refused this side's certificate"), problem.message());
    }
    assertEquals(List.of("w"), master.server.liveWorkers());
    w.close();
  }
}
