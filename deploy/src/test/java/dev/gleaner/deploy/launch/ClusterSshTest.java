package dev.gleaner.deploy.launch;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.CommandLineTest;
import dev.gleaner.deploy.Gleaner;
import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.master.auth.MasterAuth;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.SecretFile;
import dev.gleaner.protocol.tls.ClusterFiles;
import dev.gleaner.protocol.tls.ServerTls;
import java.net.InetSocketAddress;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gleaner cluster} against a real sshd on loopback: 127.0.0.1, .2 and .3 stand for three computers, each
 * with its own folder, and workers are started, counted on, looked at and stopped over ssh as on a lab's machines.
 */
class ClusterSshTest {
  private static final Pattern PID = Pattern.compile("pid (\\d+)");

  @TempDir
  static Path shared;

  static LoopbackSshd sshd;

  /** A distribution like deploy/target's: the launcher, and a gleaner.jar (here one whose manifest names this
   *  build's classes, since the real jar is made after the tests). */
  static Path dist;

  @TempDir
  Path dir;

  /** Every worker PID a command printed, to make sure each has ended. */
  private final List<Long> pids = new ArrayList<>();

  @BeforeAll
  static void startSshd() throws Exception {
    sshd = new LoopbackSshd(Files.createDirectories(shared.resolve("sshd")));
    dist = Files.createDirectories(shared.resolve("dist"));
    Files.copy(Path.of("bin", "gleaner"), dist.resolve("gleaner"));
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Gleaner.class.getName());
    StringBuilder cp = new StringBuilder();
    for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      cp.append(Path.of(e).toAbsolutePath().toUri()).append(' ');
    }
    m.getMainAttributes().put(Attributes.Name.CLASS_PATH, cp.toString().strip());
    try (OutputStream out = new JarOutputStream(Files.newOutputStream(dist.resolve("gleaner.jar")), m)) {
      out.flush();
    }
  }

  @AfterAll
  static void stopSshd() throws Exception {
    if (sshd != null) {
      sshd.close();
    }
  }

  /** Ends, by PID, any worker a failed test left behind: those the commands printed and those of the PID files. */
  @AfterEach
  void endLeftovers() throws IOException {
    try (var files = Files.walk(dir)) {
      for (Path f : files.filter(f -> f.toString().endsWith(".pid")).toList()) {
        String text = Files.readString(f).strip();
        if (text.matches("\\d+")) {
          pids.add(Long.parseLong(text));
        }
      }
    }
    for (long pid : pids) {
      if (isWorker(pid)) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  private List<String> args(String command, Path hosts, String... more) {
    List<String> a = new ArrayList<>(List.of("cluster", command, hosts.toString()));
    a.addAll(sshd.sshOptions());
    a.addAll(List.of(more));
    if (command.equals("start") || command.equals("run")) {
      a.addAll(List.of("--dist", dist.toString()));
    }
    return a;
  }

  private CommandLineTest.Run cluster(String command, Path hosts, String... more) {
    CommandLineTest.Run r = CommandLineTest.gleaner(args(command, hosts, more).toArray(String[]::new));
    Matcher m = PID.matcher(r.out() + r.err());
    while (m.find()) {
      pids.add(Long.parseLong(m.group(1)));
    }
    return r;
  }

  /** The output's line for a host, without the host. */
  private static String line(String out, String host) {
    return out.lines().filter(l -> l.startsWith(host + " ")).map(l -> l.substring(host.length()).strip()).findFirst()
        .orElseThrow(() -> new AssertionError("no line for " + host + " in:\n" + out));
  }

  private static long pid(String line) {
    Matcher m = PID.matcher(line);
    assertTrue(m.find(), line);
    return Long.parseLong(m.group(1));
  }

  /** Whether PID is a live (not zombie) gleaner worker, by its command line. */
  static boolean isWorker(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String cmd = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
      return !stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z") && cmd.contains("gleaner.jar worker");
    } catch (IOException gone) {
      return false;
    }
  }

  private Path hostsFile(String text) throws IOException {
    return Files.writeString(dir.resolve("hosts"), text);
  }

  @Test
  void startStatusStopOnTwoHostsWithAJobInBetween() throws Exception {
    try (LocalCluster master = new LocalCluster(dir)) {
      String address = "127.0.0.1:" + master.master.port();
      Path hosts = hostsFile("# two computers of the lab\n"
          + "127.0.0.1 port=" + sshd.port + " cores=1 tags=lab dir=" + dir.resolve("a") + "\n"
          + "\n"
          + "127.0.0.2 port=" + sshd.port + " cores=1 tags=lab,desktop available=\"Mon 00:00-Sun 24:00\" dir="
          + dir.resolve("b") + "   # lent all week\n"
          + "127.0.0.3 port=" + sshd.port + " tags=gpu dir=" + dir.resolve("c") + "\n");
      String secret = master.secretFile().toString();

      CommandLineTest.Run start = cluster("start", hosts, "--master", address, "--secret-file", secret, "--tag", "lab");
      assertEquals(0, start.code(), start.out() + start.err());
      Map<String, Long> pid = new HashMap<>();
      for (String h : List.of("127.0.0.1", "127.0.0.2")) {
        String l = line(start.out(), h);
        assertTrue(l.matches("started \\(pid \\d+; copied gleaner.jar, gleaner, secret\\)"), l);
        pid.put(h, pid(l));
        assertTrue(isWorker(pid.get(h)), "pid " + pid.get(h) + " is a worker");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
            dir.resolve(h.equals("127.0.0.1") ? "a" : "b").resolve("secret"))));
      }
      assertFalse(start.out().contains("127.0.0.3"), "--tag lab leaves 127.0.0.3 out:\n" + start.out());
      await().atMost(Duration.ofSeconds(60)).until(() -> master.workerStatus("127.0.0.1").getState().equals("READY")
          && master.workerStatus("127.0.0.2").getState().equals("READY"));

      String job = master.submit(JobSpec.newBuilder().setWorkload("primes").putParams("from", "0")
          .putParams("to", "1000000000").build());
      assertEquals("50847534 primes", master.awaitEnd(job, Duration.ofSeconds(90)).getResult());

      CommandLineTest.Run status = cluster("status", hosts, "--master", address, "--secret-file", secret, "--tag", "lab");
      assertEquals(0, status.code(), status.out() + status.err());
      for (String h : List.of("127.0.0.1", "127.0.0.2")) {
        assertEquals("running (pid " + pid.get(h) + "); master: READY", line(status.out(), h));
      }

      Path jar = dir.resolve("a").resolve("gleaner.jar");
      var copiedAt = Files.getLastModifiedTime(jar);
      CommandLineTest.Run again = cluster("start", hosts, "--master", address, "--secret-file", secret, "--tag", "lab");
      assertEquals(0, again.code(), again.out() + again.err());
      for (String h : List.of("127.0.0.1", "127.0.0.2")) {
        assertEquals("already running (pid " + pid.get(h) + ")", line(again.out(), h));
      }
      assertEquals(copiedAt, Files.getLastModifiedTime(jar), "nothing copied again");

      CommandLineTest.Run stop = cluster("stop", hosts, "--tag", "lab");
      assertEquals(0, stop.code(), stop.out() + stop.err());
      for (String h : List.of("127.0.0.1", "127.0.0.2")) {
        assertEquals("stopped (pid " + pid.get(h) + ", drained)", line(stop.out(), h));
        assertFalse(isWorker(pid.get(h)), "pid " + pid.get(h) + " has ended");
        assertEquals("GONE", master.workerStatus(h).getState(), h + " left the master");
        assertEquals(0, master.workerStatus(h).getInterruptions(), "a drain is no interruption");
      }

      CommandLineTest.Run after = cluster("status", hosts, "--master", address, "--secret-file", secret);
      assertEquals(0, after.code(), after.out() + after.err());
      assertEquals("stopped; master: GONE", line(after.out(), "127.0.0.1"));
      assertEquals("stopped; master: not connected", line(after.out(), "127.0.0.3"));
    }
  }

  @Test
  void workersLogInWithTheirOwnTokensOverTls() throws Exception {
    Path pki = dir.resolve("pki");
    CommandLineTest.Run init = CommandLineTest.gleaner("init", pki.toString(), "--workers", "127.0.0.3",
        "--clients", "admin");
    assertEquals(0, init.code(), init.err());
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("data"), new byte[0],
            Workloads.of())
        .withAuth(MasterAuth.tokens(SecretFile.read(pki.resolve(ClusterFiles.CLUSTER_KEY))))
        .withTls(ServerTls.fromDir(pki, false))
        .withHeartbeat(Duration.ofMillis(200), Duration.ofSeconds(5));
    try (MasterServer master = new MasterServer(config).start()) {
      String address = "127.0.0.1:" + master.port();
      // 127.0.0.2 has no token of its own: it fails, the other starts
      Path hosts = hostsFile("127.0.0.3 port=" + sshd.port + " dir=" + dir.resolve("c") + "\n"
          + "127.0.0.2 port=" + sshd.port + " dir=" + dir.resolve("b") + "\n");
      String ca = pki.resolve(ClusterFiles.CA_CERT).toString();
      CommandLineTest.Run start = cluster("start", hosts, "--master", address, "--tokens",
          pki.resolve("tokens").toString(), "--ca", ca, "--worker-option=--cores=1");
      assertEquals(1, start.code(), start.out() + start.err());
      String started = line(start.out(), "127.0.0.3");
      assertTrue(started.matches("started \\(pid \\d+; copied gleaner.jar, gleaner, 127.0.0.3.token, ca.crt\\)"), started);
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(
          dir.resolve("c").resolve("127.0.0.3.token"))));
      assertEquals("failed: no token " + pki.resolve("tokens").resolve("worker-127.0.0.2.token") + " for worker"
          + " '127.0.0.2' (gleaner token worker 127.0.0.2 --cluster-key FILE > "
          + pki.resolve("tokens").resolve("worker-127.0.0.2.token") + ")", line(start.out(), "127.0.0.2"));
      await().atMost(Duration.ofSeconds(60)).until(() -> master.status(null).getWorkersList().stream()
          .anyMatch(w -> w.getWorkerId().equals("127.0.0.3") && w.getState().equals("READY")));

      CommandLineTest.Run status = cluster("status", hosts, "--master", address, "--token",
          pki.resolve("tokens").resolve("client-admin.token").toString(), "--ca", ca);
      assertEquals("running (pid " + pid(started) + "); master: READY", line(status.out(), "127.0.0.3"));
      assertEquals("stopped; master: not connected", line(status.out(), "127.0.0.2"));

      CommandLineTest.Run stop = cluster("stop", hosts);
      assertEquals(0, stop.code(), stop.out() + stop.err());
      assertEquals("stopped (pid " + pid(started) + ", drained)", line(stop.out(), "127.0.0.3"));
      assertFalse(isWorker(pid(started)));
    }
  }

  @Test
  void aWorkerThatCannotStartIsAFailedLineWithItsReason() throws Exception {
    Path hosts = hostsFile("127.0.0.3 port=" + sshd.port + " dir=" + dir.resolve("c") + "\n");
    Path secret = Files.writeString(dir.resolve("secret"), "0123456789abcdef0123");
    CommandLineTest.Run start = cluster("start", hosts, "--master", "127.0.0.1:1", "--secret-file", secret.toString(),
        "--worker-option=--owner=keyboard");
    assertEquals(1, start.code(), start.out() + start.err());
    String l = line(start.out(), "127.0.0.3");
    assertTrue(l.startsWith("failed: exited at once: gleaner: 'keyboard' is not an owner activity source"), l);
    assertFalse(Files.exists(dir.resolve("c").resolve("127.0.0.3.pid")), "no PID file for a worker that is not there");
    assertEquals("stopped", line(cluster("status", hosts).out(), "127.0.0.3"));
  }

  @Test
  void anUnreachableHostIsAFailedLineAndExitOne() throws Exception {
    // nothing listens on 127.0.0.9: refused at once
    Path hosts = hostsFile("127.0.0.9 port=" + sshd.port + " dir=" + dir.resolve("x") + "\n");
    Path secret = Files.writeString(dir.resolve("secret"), "0123456789abcdef0123");
    CommandLineTest.Run start = cluster("start", hosts, "--master", "127.0.0.1:1", "--secret-file", secret.toString());
    assertEquals(1, start.code(), start.out() + start.err());
    assertEquals("failed: cannot reach the host: ssh: connect to host 127.0.0.9 port " + sshd.port
        + ": Connection refused", line(start.out(), "127.0.0.9"));
    CommandLineTest.Run status = cluster("status", hosts);
    assertEquals(1, status.code());
    assertTrue(line(status.out(), "127.0.0.9").startsWith("unreachable: ssh: connect to host 127.0.0.9"), status.out());
  }

  @Test
  void aBadHostsFileIsOneLineNamingTheFileAndLine() throws Exception {
    String[][] cases = {
        {"lab-pc-1\nlab-pc-2 cpus=4\n", ":2: unknown key 'cpus'; known keys: cores, available, tags, user, port, id, dir"},
        {"lab-pc-1 cores=many\n", ":1: cores must be a whole number within 1..4096, got 'many'"},
        {"lab-pc-1 available=\"Fry 18:00-Mon 08:00\"\n", ":1: available: 'Fry' in the window"},
        {"lab-pc-1 available=\"Fri 18:00-Mon 08:00\n", ":1: a double quote is not closed"},
        {"lab-pc-1\n# x\nlab-pc-1\n", ":3: worker id 'lab-pc-1' is also on "},
        {"lab-pc-1 port=70000\n", ":1: port must be a whole number within 1..65535, got '70000'"},
        {"lab-pc-1 4\n", ":1: '4' is not key=value"},
        {"cores=4\n", ":1: a line starts with the host's name, not 'cores=4'"},
        {"# nothing\n\n", ": no hosts"},
    };
    for (String[] c : cases) {
      Path hosts = hostsFile(c[0]);
      CommandLineTest.Run r = CommandLineTest.gleaner("cluster", "status", hosts.toString());
      assertEquals(1, r.code(), r.err());
      assertEquals(1, r.err().strip().lines().count(), r.err());
      assertTrue(r.err().startsWith("gleaner: " + hosts + c[1]), r.err());
    }
    CommandLineTest.Run missing = CommandLineTest.gleaner("cluster", "stop", dir.resolve("nope").toString());
    assertEquals("gleaner: hosts file " + dir.resolve("nope") + " does not exist", missing.err().strip());
  }

  @Test
  void oneCommandFromAHostsFileToTheResult() throws Exception {
    Path hosts = hostsFile("127.0.0.2 port=" + sshd.port + " cores=1 dir=" + dir.resolve("b") + "\n"
        + "127.0.0.3 port=" + sshd.port + " cores=1 dir=" + dir.resolve("c") + "\n");
    Path job = Files.writeString(dir.resolve("primes.yaml"), "workload: primes\nparams: {to: 1e9}\nmin-workers: 2\n");
    Path secret = dir.resolve("keys").resolve("secret");
    CommandLineTest.Run r = cluster("run", hosts, job.toString(), "--port", "0", "--bind", "127.0.0.1",
        "--master-address", "127.0.0.1", "--data", dir.resolve("data").toString(), "--secret-file", secret.toString());
    assertEquals(0, r.code(), r.out() + r.err());
    assertEquals("50847534 primes", r.out().strip());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)), "a secret was made");
    assertTrue(r.err().contains("2 of 2 workers connected"), r.err());
    String stopped = r.err().substring(r.err().indexOf("stopping the workers:"));
    for (String h : List.of("127.0.0.2", "127.0.0.3")) {
      long pid = pid(line(r.err(), h));
      assertTrue(stopped.contains(h + "  stopped (pid " + pid + ", drained)"), r.err());
      assertFalse(isWorker(pid), "pid " + pid + " has ended");
    }
  }
}
