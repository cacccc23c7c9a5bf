package dev.gleaner.deploy.bench.hostile;

import dev.gleaner.deploy.chaos.HostilePeer;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.EntryPoint;
import dev.gleaner.deploy.launch.MasterProcess;
import dev.gleaner.protocol.PeerCredential;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.TokenFile;
import dev.gleaner.protocol.tls.ClientTls;
import dev.gleaner.protocol.tls.ClusterFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The cluster of one run of the hostile bench, as the bench knows it: its credentials (a shared
 * secret, or a TLS master's certificate authority and tokens made by {@code gleaner init}), how to
 * start its master JVM and reach it, and what a hostile peer may know of it.
 */
final class HostileCluster {
  private List<String> masterArgs;
  private Path ca;
  private Path tokens;
  private byte[] secret;
  private PeerCredential client;
  private MasterProcess master;
  private int port;

  private HostileCluster() {}

  /** A master in clear text taking a shared secret, written to {@code run}/secret. */
  static HostileCluster withSecret(Path run) throws IOException {
    HostileCluster c = new HostileCluster();
    c.secret = ("hostile-bench-" + System.nanoTime() + "-0123456789").getBytes(StandardCharsets.UTF_8);
    Files.write(run.resolve("secret"), c.secret);
    c.client = PeerCredential.sharedSecret(c.secret);
    c.masterArgs = List.of("--secret-file", run.resolve("secret").toString());
    return c;
  }

  /** Credentials made as the README says ({@code gleaner init}), a TLS master taking tokens only. */
  static HostileCluster withTls(Path run) throws IOException {
    Path pki = run.resolve("pki");
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = EntryPoint.run(new PrintWriter(out), new PrintWriter(err), "init", pki.toString(), "--workers", "w1,w2",
        "--clients", "admin", "--host", "127.0.0.1,localhost");
    if (code != 0) {
      throw new IllegalStateException("gleaner init failed: " + err);
    }
    HostileCluster c = new HostileCluster();
    c.ca = pki.resolve(ClusterFiles.CA_CERT);
    c.tokens = pki.resolve("tokens");
    c.client = TokenFile.read(c.tokens.resolve("client-admin.token"));
    c.masterArgs = List.of("--tls", pki.toString());
    // the workers log in with tokens; a secret file nobody reads keeps WorkerProcesses' command line whole
    Files.writeString(run.resolve("secret"), "unused\n");
    return c;
  }

  /** Starts {@code gleaner master} in a JVM of 256 MiB heap on 127.0.0.1 and waits (60 s at most) until it listens. */
  void startMaster(Path run) throws IOException {
    List<String> options = new ArrayList<>(List.of("--data", run.resolve("data").toString()));
    options.addAll(masterArgs);
    master = MasterProcess.start(run, List.of("-Xmx256m"), options, Duration.ofSeconds(60));
    port = master.port();
  }

  Process master() {
    return master.process();
  }

  /** SIGKILL to the master by its pid, if one was started and is alive. */
  void endMaster() {
    if (master != null) {
      master.close();
    }
  }

  int port() {
    return port;
  }

  /** The options a worker of this cluster logs in with, beside the shared secret file. */
  List<String> workerArgs(String id) {
    return ca == null ? List.of() : List.of("--ca", ca.toString(), "--token",
        tokens.resolve("worker-" + id + ".token").toString());
  }

  /** A real client, logged in on a new connection. */
  MasterClient client() throws IOException {
    return MasterClient.connect(new HostPort("127.0.0.1", port), client, ca == null ? null : ClientTls.trusting(ca));
  }

  /** The master's status, over a new connection. */
  StatusReply status() throws IOException {
    try (MasterClient c = client()) {
      return c.status(null);
    }
  }

  /** What a hostile peer may know of this cluster. */
  HostilePeer.Target target() {
    if (ca == null) {
      return new HostilePeer.Target(port, null, secret, null, null);
    }
    return new HostilePeer.Target(port, ClientTls.trusting(ca), null,
        TokenFile.read(tokens.resolve("worker-w1.token")).key(), TokenFile.read(tokens.resolve("client-admin.token"))
        .key());
  }

  /** The master's own count of the connections it refused for a protocol error, or NaN if it does not answer. */
  double protocolErrors() {
    try {
      return status().getMetricsOrDefault("gleaner.protocol.errors", Double.NaN);
    } catch (IOException e) {
      return Double.NaN;
    }
  }

  /** Whether a fresh login of the real client is served now: "served", or why not. */
  String freshLogin() {
    try (MasterClient c = client()) {
      c.status(null);
      return "served";
    } catch (IOException | RuntimeException e) {
      return "failed: " + e.getMessage();
    }
  }

  static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
