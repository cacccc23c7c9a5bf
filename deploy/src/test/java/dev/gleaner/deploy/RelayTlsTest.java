package dev.gleaner.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.testing.GleanerJvms;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerStatus;
import dev.gleaner.protocol.tls.ClientTls;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A relay on a cluster that runs TLS with tokens and client certificates, on real processes, set
 * up as `gleaner init` says: the relay logs in with its token and certificate, its worker checks the
 * relay's certificate and presents its own, and the relay sends the input it holds. A worker that
 * dials the relay by a name its certificate does not hold refuses it and goes to the master directly.
 * Every process started here is ended here, by its PID.
 */
class RelayTlsTest {
  @TempDir
  Path dir;




  private StatusReply status(int port, String job) {
    Path pki = dir.resolve("pki");
    try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", port),
        dev.gleaner.protocol.TokenFile.read(pki.resolve("tokens/client-admin.token")),
        ClientTls.trusting(pki.resolve("ca.crt")).withIdentity(pki.resolve("certs/client-admin.crt"),
            pki.resolve("certs/client-admin.key")))) {
      return c.status(job);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  @Test
  void aRelayOnTlsPassesItsWorkersUpAndSendsItsInput() throws Exception {
    Path pki = dir.resolve("pki");
    CommandLineTest.Run init = CommandLineTest.gleaner("init", pki.toString(), "--host", "127.0.0.1", "--workers",
        "w1,w2", "--relays", "r1", "--relay-host", "r1=127.0.0.1", "--client-certs");
    assertEquals(0, init.code(), init.err());
    assertTrue(init.out().contains("gleaner relay --master 127.0.0.1:7070 --ca ca.crt --token relay-r1.token"
        + " --cert relay-r1.crt --key relay-r1.key --client-auth require"), init.out());
    assertTrue(init.out().contains("behind relay r1: gleaner worker --master 127.0.0.1:7071,127.0.0.1:7070 --ca ca.crt"
        + " --token worker-w1.token"), init.out());
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 50_000; i++) {
      text.append("record ").append(i).append('\n');
    }
    byte[] input = text.toString().getBytes(StandardCharsets.US_ASCII);
    Path served = Files.createDirectories(dir.resolve("served"));
    Files.write(served.resolve("in.txt"), input);
    Path copy = Files.createDirectories(dir.resolve("copy"));
    Files.write(copy.resolve("in.txt"), input);

    int masterPort = GleanerJvms.freePort();
    int relayPort = GleanerJvms.freePort();
    try (GleanerJvms jvms = new GleanerJvms(dir); WorkerProcesses workers = new WorkerProcesses(dir)) {
      try {
        jvms.start("master.log", List.of("master", "--port", Integer.toString(masterPort), "--bind", "127.0.0.1",
            "--data", dir.resolve("data").toString(), "--tls", pki.toString(), "--client-auth", "require",
            "--serve", served.toString()));
        await().atMost(Duration.ofSeconds(60)).until(() -> status(masterPort, "") != null);
        jvms.start("relay.log", List.of("relay", "--port", Integer.toString(relayPort), "--bind", "127.0.0.1",
            "--master", "127.0.0.1:" + masterPort, "--token", pki.resolve("tokens/relay-r1.token").toString(),
            "--ca", pki.resolve("ca.crt").toString(), "--cert", pki.resolve("certs/relay-r1.crt").toString(),
            "--key", pki.resolve("certs/relay-r1.key").toString(), "--client-auth", "require", "--serve",
            copy.toString()));
        await().atMost(Duration.ofSeconds(60)).until(() -> {
          StatusReply s = status(masterPort, "");
          return s != null && s.getRelaysCount() == 1;
        });
        // w1 dials the relay by the address its certificate names; w2 by a name it does not hold
        for (String[] w : new String[][] {{"w1", "127.0.0.1"}, {"w2", "localhost"}}) {
          workers.start(w[0], List.of(), w[1] + ":" + relayPort + ",127.0.0.1:" + masterPort,
              dir.resolve("no-secret"), 1, 1, "128m", List.of("--token", pki.resolve("tokens/worker-" + w[0]
                  + ".token").toString(), "--ca", pki.resolve("ca.crt").toString(), "--cert",
                  pki.resolve("certs/worker-" + w[0] + ".crt").toString(), "--key",
                  pki.resolve("certs/worker-" + w[0] + ".key").toString()));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> {
          StatusReply s = status(masterPort, "");
          return s != null && s.getWorkersCount() == 2;
        });
        StatusReply joined = status(masterPort, "");
        assertEquals("r1", via(joined, "w1"), joined.toString());
        assertEquals("", via(joined, "w2"), "w2 refused the relay's certificate for 'localhost'");
        assertTrue(Files.readString(workers.log("w2")).contains("localhost"), Files.readString(workers.log("w2")));

        Path jobFile = dir.resolve("job.yaml");
        Files.writeString(jobFile, "workload: wc\nparams: {file: in.txt}\nchunk-units: 32768\nmin-workers: 2\n");
        Process submit = jvms.client("submit.out", "submit.err", List.of("submit", jobFile.toString(),
            "--master", "127.0.0.1:" + masterPort, "--token", pki.resolve("tokens/client-admin.token").toString(),
            "--ca", pki.resolve("ca.crt").toString(), "--cert", pki.resolve("certs/client-admin.crt").toString(),
            "--key", pki.resolve("certs/client-admin.key").toString(), "--poll-ms", "200"));
        assertTrue(submit.waitFor(120, TimeUnit.SECONDS), "gleaner submit should have ended");
        String err = Files.readString(dir.resolve("submit.err"));
        assertEquals(0, submit.exitValue(), err);
        String out = Files.readString(dir.resolve("submit.out")).strip();
        assertTrue(out.startsWith("50000 lines") && out.contains(input.length + " bytes"), out);
        String relay = Files.readString(dir.resolve("relay.log"));
        assertTrue(relay.contains("(TLS)") && relay.contains("from its copy 'in.txt'"), relay);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(e.getMessage() + "\nmaster log:\n"
            + WorkerProcesses.tail(dir.resolve("master.log"), 40) + "\nrelay log:\n"
            + WorkerProcesses.tail(dir.resolve("relay.log"), 30) + "\nworker logs:\n" + workers.logs(), e);
      }
    }
  }

  private static String via(StatusReply s, String worker) {
    return s.getWorkersList().stream().filter(w -> w.getWorkerId().equals(worker)).map(WorkerStatus::getVia)
        .findFirst().orElse("?");
  }
}
