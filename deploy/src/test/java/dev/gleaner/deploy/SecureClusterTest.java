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
import dev.gleaner.master.auth.MasterAuth;
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
    assertTrue(again.err().contains("`gleaner token worker|client|operator ID --cluster-key " + pki.resolve("cluster.key")
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
      await().atMost(Duration.ofSeconds(120)).until(() -> {
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

  /** The client options of {@code gleaner} for this master, logged in with {@code token}. */
  private static String[] as(String address, Path pki, String token, String... args) {
    List<String> all = new java.util.ArrayList<>(List.of(args));
    all.addAll(List.of("--master", address, "--ca", pki.resolve(ClusterFiles.CA_CERT).toString(),
        "--token", pki.resolve("tokens/" + token + ".token").toString()));
    return all.toArray(String[]::new);
  }

  private static void oneLineRefusal(Run r, String says) {
    assertEquals(1, r.code(), r.out() + r.err());
    assertEquals(1, r.err().strip().lines().count(), r.err());
    assertTrue(r.err().contains(says), r.err());
  }

  @Test
  void rolesAndRevocationThroughTheCommandsOnATlsMasterWithWorkerJvms() throws Exception {
    Path pki = dir.resolve("pki");
    Run init = gleaner("init", pki.toString(), "--workers", "w1,w2", "--clients", "alice,bob", "--operators", "root");
    assertEquals(0, init.code(), init.err());
    assertTrue(init.out().contains("tokens/operator-root.token"), init.out());
    try (MasterServer m = tlsMaster(pki); WorkerProcesses workers = new WorkerProcesses(dir)) {
      String address = "127.0.0.1:" + m.port();
      Process w1 = null;
      for (String id : List.of("w1", "w2")) {
        Process p = workers.start(id, m.port(), dir.resolve("unused"), 1, 1, "128m", List.of("--ca",
            pki.resolve(ClusterFiles.CA_CERT).toString(), "--token", pki.resolve("tokens/worker-" + id + ".token").toString()));
        w1 = w1 == null ? p : w1;
      }
      await().atMost(Duration.ofSeconds(120)).until(() -> {
        workers.requireAlive();
        return Set.copyOf(m.liveWorkers()).equals(Set.of("w1", "w2"));
      });
      Path job = Files.writeString(dir.resolve("job.yaml"), "workload: primes\nparams: {to: 1000000000000000}\n");
      Run submitted = gleaner(as(address, pki, "client-alice", "submit", job.toString(), "--detach"));
      assertEquals(0, submitted.code(), submitted.err());
      String id = submitted.out().strip();

      Run listed = gleaner(as(address, pki, "client-bob", "jobs"));
      assertTrue(listed.out().contains(id + " ") && listed.out().contains("(client alice)"), "reading is shared: " + listed.out());
      oneLineRefusal(gleaner(as(address, pki, "client-bob", "cancel", id, "--now")),
          "job " + id + " belongs to client 'alice'; only client 'alice' or an operator may cancel it");
      oneLineRefusal(gleaner(as(address, pki, "client-bob", "drain", "w2")), "only an operator may ask worker 'w2' to leave");
      Run cancelled = gleaner(as(address, pki, "operator-root", "cancel", id, "--now"));
      assertEquals(0, cancelled.code(), cancelled.err());
      // a cancel returns once recorded; the job ends after its workers' last reports
      assertEquals(3, gleaner(as(address, pki, "client-alice", "wait", id)).code(), "CANCELLED");
      oneLineRefusal(gleaner(as(address, pki, "client-bob", "forget", id)), "only client 'alice' or an operator may forget it");
      assertEquals(0, gleaner(as(address, pki, "operator-root", "forget", id)).code());

      Run revoked = gleaner(as(address, pki, "operator-root", "token", "revoke", "worker", "w1", "--reason", "stolen laptop"));
      assertEquals(0, revoked.code(), revoked.err());
      assertTrue(revoked.out().contains("1 live session(s) closed") && revoked.out().contains("--generation 1"), revoked.out());
      // disconnected at once, and the worker stops: a revocation is no outage to wait out
      await().atMost(Duration.ofSeconds(30)).until(() -> !m.liveWorkers().contains("w1"));
      Process stopped = w1;
      await().atMost(Duration.ofSeconds(60)).until(() -> !stopped.isAlive());
      assertTrue(Files.readString(workers.log("w1")).contains("the worker token of 'w1' was revoked"),
          Files.readString(workers.log("w1")));
      assertTrue(m.liveWorkers().contains("w2"), "the other worker is untouched");

      assertEquals(0, gleaner(as(address, pki, "operator-root", "token", "revoke", "client", "bob")).code());
      oneLineRefusal(gleaner(as(address, pki, "client-bob", "status")), "the client token of 'bob' was revoked");
      assertEquals(0, gleaner(as(address, pki, "client-alice", "status")).code(), "the other client is untouched");
      Run list = gleaner(as(address, pki, "operator-root", "token", "list"));
      assertEquals(0, list.code(), list.err());
      assertTrue(list.out().contains("stolen laptop") && list.out().lines().filter(l -> l.startsWith("worker ")
          || l.startsWith("client ")).count() == 2, list.out());
      oneLineRefusal(gleaner(as(address, pki, "client-alice", "token", "list")), "only an operator may list the revoked tokens");
    }
  }

  @Test
  void aRevocationWrittenIntoAStoppedMastersDataIsHeldWhenItStarts() throws Exception {
    Path pki = dir.resolve("pki");
    assertEquals(0, gleaner("init", pki.toString(), "--clients", "bob").code());
    Path data = dir.resolve("data");
    try (MasterServer m = tlsMaster(pki)) {
      String address = "127.0.0.1:" + m.port();
      assertEquals(0, gleaner(as(address, pki, "client-bob", "status")).code());
      oneLineRefusal(gleaner("token", "revoke", "client", "bob", "--data", data.toString()),
          "is in use by another master (pid " + ProcessHandle.current().pid() + "): ask it instead (an operator's --token");
    }
    Run revoked = gleaner("token", "revoke", "client", "bob", "--data", data.toString(), "--reason", "left");
    assertEquals(0, revoked.code(), revoked.err());
    assertTrue(revoked.out().contains("gleaner token client bob --generation 1 --cluster-key DIR/cluster.key"),
        revoked.out());
    Run list = gleaner("token", "list", "--data", data.toString());
    assertTrue(list.out().contains("client    bob") && list.out().contains("left"), list.out());
    oneLineRefusal(gleaner("token", "list", "--data", dir.resolve("nowhere").toString()), "holds no master's store");
    try (MasterServer m = tlsMaster(pki)) {
      oneLineRefusal(gleaner(as("127.0.0.1:" + m.port(), pki, "client-bob", "status")), "the client token of 'bob' was revoked");
      Run next = gleaner("token", "client", "bob", "--generation", "1", "--cluster-key",
          pki.resolve(ClusterFiles.CLUSTER_KEY).toString(), "--out", pki.resolve("tokens/client-bob.token").toString(), "--force");
      assertEquals(0, next.code(), next.err());
      assertEquals(0, gleaner(as("127.0.0.1:" + m.port(), pki, "client-bob", "status")).code(), "the next generation logs in");
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
