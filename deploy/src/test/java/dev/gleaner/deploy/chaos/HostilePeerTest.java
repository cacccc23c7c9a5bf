package dev.gleaner.deploy.chaos;

import static dev.gleaner.deploy.CommandLineTest.gleaner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.chaos.HostilePeer.Attack;
import dev.gleaner.deploy.chaos.HostilePeer.Outcome;
import dev.gleaner.master.auth.MasterAuth;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.SecretFile;
import dev.gleaner.protocol.TokenFile;
import dev.gleaner.protocol.tls.ClientTls;
import dev.gleaner.protocol.tls.ClusterFiles;
import dev.gleaner.protocol.tls.ServerTls;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attacks of {@code gleaner bench --hostile}, a few of each against an in-process master, get
 * the refusal the master's defences promise (the two that wait out the 30 s handshake limit are left
 * to the bench). A regression test for the defences as much as for the bench's peers.
 */
class HostilePeerTest {
  private static final byte[] SECRET = "hostile-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;

  private static InetAddress from(int i) throws Exception {
    return InetAddress.getByAddress(new byte[] {127, 77, 9, (byte) (i + 1)});
  }

  private static void assertRefused(List<Outcome> outcomes) {
    for (Outcome o : outcomes) {
      assertTrue(o.attack().expected().contains(o.label()), o.attack() + " got " + o.label());
    }
  }

  @Test
  void everyClearTextAttackGetsTheRefusalItsDefencePromises() throws Exception {
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("data"), SECRET,
        Workloads.of());
    try (MasterServer m = new MasterServer(config).start()) {
      HostilePeer.Target target = new HostilePeer.Target(m.port(), null, SECRET, null, null);
      SplittableRandom r = new SplittableRandom(7);
      List<Outcome> outcomes = new ArrayList<>();
      int i = 0;
      for (Attack a : List.of(Attack.HUGE_LENGTH, Attack.GARBAGE, Attack.FUZZED_HELLO, Attack.WRONG_SECRET,
          Attack.OVERSIZED_HELLO)) {
        for (int k = 0; k < 10; k++) {
          outcomes.addAll(HostilePeer.run(a, target, from(i++ % 8), r.split()));
        }
      }
      assertEquals(50, outcomes.size());
      assertRefused(outcomes);
      assertTrue(m.liveWorkers().isEmpty());
    }
  }

  @Test
  void ofABurstFromOneAddressSixteenWaitToLogInAndTheRestAreRefused() throws Exception {
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("data"), SECRET,
        Workloads.of());
    try (MasterServer m = new MasterServer(config).start()) {
      HostilePeer.Target target = new HostilePeer.Target(m.port(), null, SECRET, null, null);
      List<Outcome> burst = HostilePeer.run(Attack.PER_ADDRESS, target, from(100), new SplittableRandom(1));
      assertEquals(HostilePeer.BURST, burst.size());
      assertEquals(16, burst.stream().filter(o -> o.label().equals(HostilePeer.HELD)).count(), burst.toString());
      assertEquals(HostilePeer.BURST - 16,
          burst.stream().filter(o -> o.label().equals("TOO_MANY_CONNECTIONS")).count(), burst.toString());
    }
  }

  @Test
  void everyAttackOnATlsMasterWithTokensIsRefused() throws Exception {
    Path pki = dir.resolve("pki");
    assertEquals(0, gleaner("init", pki.toString(), "--workers", "w1,w2", "--host", "127.0.0.1").code());
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("data"), new byte[0],
            Workloads.of())
        .withAuth(MasterAuth.tokens(SecretFile.read(pki.resolve(ClusterFiles.CLUSTER_KEY))))
        .withTls(ServerTls.fromDir(pki, false));
    try (MasterServer m = new MasterServer(config).start()) {
      HostilePeer.Target target = new HostilePeer.Target(m.port(), ClientTls.trusting(pki.resolve(ClusterFiles.CA_CERT)),
          null, TokenFile.read(pki.resolve("tokens/worker-w1.token")).key(),
          TokenFile.read(pki.resolve("tokens/client-admin.token")).key());
      SplittableRandom r = new SplittableRandom(11);
      List<Outcome> outcomes = new ArrayList<>();
      int i = 0;
      for (Attack a : List.of(Attack.PLAIN_TO_TLS, Attack.WORKER_TOKEN_AS_CLIENT, Attack.CLIENT_TOKEN_AS_WORKER,
          Attack.TAKEOVER, Attack.SECRET_TO_TOKEN_MASTER, Attack.HUGE_LENGTH, Attack.OVERSIZED_HELLO)) {
        for (int k = 0; k < 3; k++) {
          outcomes.addAll(HostilePeer.run(a, target, from(i++ % 8), r.split()));
        }
      }
      assertEquals(21, outcomes.size());
      assertRefused(outcomes);
      assertTrue(m.liveWorkers().isEmpty());
    }
  }
}
