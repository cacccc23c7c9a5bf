package dev.gleaner.deploy;

import static dev.gleaner.deploy.CommandLineTest.gleaner;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.CommandLineTest.Run;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.master.MasterAuth;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.SecretFile;
import dev.gleaner.protocol.tls.ClusterFiles;
import dev.gleaner.protocol.tls.ServerTls;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster secured as the README says: `gleaner init`, a master on TLS with the cluster key, real
 * worker JVMs logging in with their tokens, and `gleaner submit` with a client token. Every process
 * started here is ended here.
 */
class SecureClusterTest {
  @TempDir
  Path dir;

  private MasterServer tlsMaster(Path pki) throws InterruptedException {
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("data"), new byte[0],
            Workloads.of())
        .withAuth(MasterAuth.tokens(SecretFile.read(pki.resolve(ClusterFiles.CLUSTER_KEY))))
        .withTls(ServerTls.fromDir(pki, false))
        .withHeartbeat(Duration.ofMillis(200), Duration.ofSeconds(5))
        .withServe(dir);
    return new MasterServer(config).start();
  }

  @Test
  void initMakesTheFilesPrintsTheNextStepsAndRefusesToOverwrite() throws Exception {
    Path pki = dir.resolve("pki");
    Run init = gleaner("init", pki.toString(), "--workers", "a,b", "--host", "master.lab,10.0.0.5");
    assertEquals(0, init.code(), init.err());
    for (String f : List.of("ca.crt", "ca.key", "master.crt", "master.key", "cluster.key", "tokens/worker-a.token",
        "tokens/worker-b.token", "tokens/client-admin.token", "gleaner master --tls", "--ca ca.crt --token worker-a.token")) {
      assertTrue(init.out().contains(f), "init should mention " + f + ":\n" + init.out());
    }
    for (String secret : List.of("ca.key", "master.key", "cluster.key", "tokens/worker-a.token", "tokens/client-admin.token")) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(pki.resolve(secret))), secret);
    }
    String master = Files.readString(pki.resolve("master.crt"));
    Run again = gleaner("init", pki.toString());
    assertEquals(1, again.code());
    assertEquals(1, again.err().strip().lines().count(), again.err());
    assertTrue(again.err().contains("--force"), again.err());
    assertTrue(again.err().contains("`gleaner token worker|client ID --cluster-key " + pki.resolve("cluster.key")
        + "` makes a token for one more peer"), "the way to add a peer comes first: " + again.err());
    assertEquals(master, Files.readString(pki.resolve("master.crt")), "nothing may be overwritten without --force");

    Run token = gleaner("token", "worker", "c", "--cluster-key", pki.resolve("cluster.key").toString(),
        "--out", dir.resolve("c.token").toString());
    assertEquals(0, token.code(), token.err());
    assertTrue(Files.readString(dir.resolve("c.token")).contains("role=worker\nid=c\n"));
  }

  @Test
  void aJobRunsOverTlsOnWorkerJvmsLoggedInWithTheirTokens() throws Exception {
    Path pki = dir.resolve("pki");
    Run init = gleaner("init", pki.toString(), "--workers", "w1,w2");
    assertEquals(0, init.code(), init.err());
    Path ca = pki.resolve(ClusterFiles.CA_CERT);
    Path unused = dir.resolve("no-secret-here");
    try (MasterServer m = tlsMaster(pki); WorkerProcesses workers = new WorkerProcesses(dir)) {
      String address = "127.0.0.1:" + m.port();
      for (String id : List.of("w1", "w2")) {
        workers.start(id, m.port(), unused, 1, 1, "128m",
            List.of("--ca", ca.toString(), "--token", pki.resolve("tokens/worker-" + id + ".token").toString()));
      }
      await().atMost(Duration.ofSeconds(60)).until(() -> {
        workers.requireAlive();
        return Set.copyOf(m.liveWorkers()).equals(Set.of("w1", "w2"));
      });

      Path job = Files.writeString(dir.resolve("job.yaml"), "workload: primes\nparams: {to: 1000000}\nmin-workers: 2\n");
      Run submitted = gleaner("submit", job.toString(), "--master", address, "--ca", ca.toString(),
          "--token", pki.resolve("tokens/client-admin.token").toString(), "--json");
      assertEquals(0, submitted.code(), submitted.err() + workers.logs());
      JsonNode doc = new ObjectMapper().readTree(submitted.out());
      assertEquals("DONE", doc.get("state").asText());
      assertEquals("78498 primes", doc.get("result").asText());

      // a file's bytes streamed to the workers over TLS (they cannot go as file regions: each slice is
      // read and encrypted); before, the stream stalled silently and the job never ended
      StringBuilder text = new StringBuilder();
      int lines = 0;
      for (java.util.SplittableRandom r = new java.util.SplittableRandom(4); text.length() < 3_000_000; lines++) {
        text.append("line ").append(r.nextInt()).append(" of the streamed file\n");
      }
      Path input = Files.writeString(dir.resolve("input.txt"), text);
      Path wc = Files.writeString(dir.resolve("wc.yaml"), "workload: wc\nparams: {file: " + input + "}\nstrategy: self\n"
          + "chunk-units: 1000000\n");
      Run streamed = gleaner("submit", wc.toString(), "--master", address, "--ca", ca.toString(),
          "--token", pki.resolve("tokens/client-admin.token").toString(), "--json");
      assertEquals(0, streamed.code(), streamed.err() + workers.logs());
      assertEquals(lines + " lines, " + text.length() + " bytes",
          new ObjectMapper().readTree(streamed.out()).get("result").asText());

      // a worker's token is no client's: one line, and nothing submitted
      Run asWorker = gleaner("status", "--master", address, "--ca", ca.toString(),
          "--token", pki.resolve("tokens/worker-w1.token").toString());
      assertEquals(1, asWorker.code());
      assertTrue(asWorker.err().contains("needs a client token"), asWorker.err());
      // clear text to the TLS master: told so in one line
      Path secret = Files.writeString(dir.resolve("secret"), "0123456789abcdef0123");
      Run plain = gleaner("status", "--master", address, "--secret-file", secret.toString());
      assertEquals(1, plain.code());
      assertEquals(1, plain.err().strip().lines().count(), plain.err());
      assertTrue(plain.err().contains("speaks TLS only"), plain.err());
    }
  }

  @Test
  void aWorkerThatCannotTrustTheMasterStopsWithOneLine() throws Exception {
    Path pki = dir.resolve("pki");
    Path other = dir.resolve("other");
    assertEquals(0, gleaner("init", pki.toString(), "--workers", "w1").code());
    assertEquals(0, gleaner("init", other.toString()).code());
    try (MasterServer m = tlsMaster(pki); WorkerProcesses workers = new WorkerProcesses(dir)) {
      Process p = workers.start("w1", m.port(), dir.resolve("unused"), 1, 1, "128m",
          List.of("--ca", other.resolve(ClusterFiles.CA_CERT).toString(),
              "--token", pki.resolve("tokens/worker-w1.token").toString()));
      await().atMost(Duration.ofSeconds(60)).until(() -> !p.isAlive());
      assertEquals(1, p.exitValue());
      String log = Files.readString(workers.log("w1"));
      assertTrue(log.contains("gleaner worker: the certificate of the master at 127.0.0.1:" + m.port()
          + " is not signed by the CA in --ca"), log);
      assertTrue(m.liveWorkers().isEmpty());
    }
  }

  @Test
  void aWorkerIdThatDisagreesWithItsTokenIsOneLine() throws Exception {
    Path pki = dir.resolve("pki");
    assertEquals(0, gleaner("init", pki.toString(), "--workers", "a").code());
    Run r = gleaner("worker", "--master", "127.0.0.1:1", "--ca", pki.resolve("ca.crt").toString(),
        "--token", pki.resolve("tokens/worker-a.token").toString(), "--id", "b");
    assertEquals(1, r.code());
    assertEquals(1, r.err().strip().lines().count(), r.err());
    assertTrue(r.err().contains("--id b disagrees with") && r.err().contains("worker 'a'"), r.err());
  }
}
