package dev.gleaner.deploy;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.tls.ClientTls;
import dev.gleaner.protocol.tls.ClusterCertificates;
import dev.gleaner.protocol.tls.ClusterFiles;
import dev.gleaner.protocol.tls.ServerTls;
import dev.gleaner.worker.relay.RelayConfig;
import dev.gleaner.worker.relay.RelayDaemon;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A relay whose only upstream shows a certificate it cannot trust stops, saying why in one line,
 * instead of dialling again for ever: the next try would meet the same certificate.
 */
class RelayTlsRefusalTest {
  @TempDir
  Path dir;

  @Test
  void aRelayThatCannotTrustItsMastersCertificateStopsSayingWhy() throws Exception {
    Path pki = Files.createDirectories(dir.resolve("pki"));
    ClusterCertificates.makeCa(pki, "test CA", 30);
    ClusterCertificates.issue(pki, pki.resolve(ClusterFiles.MASTER_CERT), pki.resolve(ClusterFiles.MASTER_KEY),
        "gleaner master", List.of("localhost", "127.0.0.1"), null, 30);
    Path other = Files.createDirectories(dir.resolve("other"));
    ClusterCertificates.makeCa(other, "another cluster's CA", 30);
    ClusterCertificates.issue(other, other.resolve("relay.crt"), other.resolve("relay.key"), "relay r", List.of(
        "127.0.0.1"), null, 30);
    try (LocalCluster c = new LocalCluster(dir.resolve("cluster"), m -> m.withTls(ServerTls.fromDir(pki, false)))) {
      RelayConfig config = RelayConfig.defaults("r", new InetSocketAddress("127.0.0.1", 0),
          List.of(InetSocketAddress.createUnresolved("127.0.0.1", c.master.port())),
          PeerCredential.sharedSecret(LocalCluster.SECRET))
          .withTls(ClientTls.trusting(other.resolve(ClusterFiles.CA_CERT))
                  .withIdentity(other.resolve("relay.crt"), other.resolve("relay.key")),
              ServerTls.fromFiles("relay r", other.resolve("relay.crt"), other.resolve("relay.key"), null));
      try (RelayDaemon relay = RelayDaemon.start(config)) {
        assertTrue(relay.awaitStop(Duration.ofSeconds(30)), "it stops on its own");
        assertNotNull(relay.fatalError());
        assertTrue(relay.fatalError().contains("127.0.0.1:" + c.master.port()), relay.fatalError());
      }
    }
  }
}
