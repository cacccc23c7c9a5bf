package dev.gleaner.deploy.launch;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gleaner.deploy.launch.WorkerProcesses;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real OpenSSH server on loopback addresses (127.0.0.1, .2, .3: three "hosts"), configured in a folder of its
 * own: host key and client key made here, key logins only, no PAM. Stands in for a lab's computers.
 * {@link #close} ends the server by its PID. Skipped (JUnit assumption) where openssh-server is missing or
 * cannot start.
 */
final class LoopbackSshd implements AutoCloseable {
  static final Path SSHD = Path.of("/usr/sbin/sshd");

  final Path dir;
  final int port;
  private final Process process;

  LoopbackSshd(Path dir) throws IOException, InterruptedException {
    assumeTrue(Files.isExecutable(SSHD), "no " + SSHD + ": install the Debian package openssh-server to run the ssh tests");
    assumeTrue(onPath("ssh") && onPath("ssh-keygen"),
        "no ssh or ssh-keygen on the PATH: install the Debian package openssh-client to run the ssh tests");
    Path privsep = Path.of("/run/sshd");
    if (!Files.isDirectory(privsep)) {
      try {
        Files.createDirectories(privsep);
      } catch (IOException e) {
        assumeTrue(false, "sshd needs " + privsep + " and it cannot be made here (" + e.getMessage() + "): mkdir -p"
            + " /run/sshd as root to run the ssh tests");
      }
    }
    this.dir = dir;
    keygen(dir.resolve("host_key"));
    keygen(dir.resolve("client_key"));
    Files.copy(dir.resolve("client_key.pub"), dir.resolve("authorized_keys"));
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", 0));
      port = s.getLocalPort();
    }
    Path config = Files.writeString(dir.resolve("sshd_config"), String.join("\n",
        "Port " + port,
        "ListenAddress 127.0.0.1",
        "ListenAddress 127.0.0.2",
        "ListenAddress 127.0.0.3",
        "HostKey " + dir.resolve("host_key"),
        "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "PubkeyAuthentication yes",
        "PermitRootLogin prohibit-password",
        "UsePAM no",
        "StrictModes no",
        "PidFile " + dir.resolve("sshd.pid"),
        // small worker JVMs: three of them and the test's own share a small machine
        "SetEnv JAVA_OPTS=\"-Xmx256m -XX:+UseSerialGC\" GLEANER_NICE=0",
        ""));
    Path log = dir.resolve("sshd.log");
    process = new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", config.toString()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    try {
      await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
          .until(() -> !process.isAlive() || (accepts("127.0.0.1") && accepts("127.0.0.2") && accepts("127.0.0.3")));
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    if (!process.isAlive()) {
      String why = WorkerProcesses.tail(log, 5);
      assumeTrue(false, "sshd (openssh-server) did not start: " + why);
    }
  }

  /** The {@code --ssh-option} arguments that log in to this server with the test's key and known_hosts. */
  List<String> sshOptions() {
    List<String> a = new ArrayList<>();
    for (String o : List.of("IdentityFile=" + dir.resolve("client_key"), "IdentitiesOnly=yes",
        "UserKnownHostsFile=" + dir.resolve("known_hosts"), "StrictHostKeyChecking=accept-new")) {
      a.add("--ssh-option");
      a.add(o);
    }
    return a;
  }

  private boolean accepts(String address) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(address, port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean onPath(String program) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
        return true;
      }
    }
    return false;
  }

  private static void keygen(Path key) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "gleaner-test", "-f",
        key.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IOException("ssh-keygen failed: " + out);
    }
  }

  /** Ends the server by its PID (SIGTERM, then SIGKILL). */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
