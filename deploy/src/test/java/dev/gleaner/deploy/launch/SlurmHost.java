package dev.gleaner.deploy.launch;

import static org.awaitility.Awaitility.await;

import dev.gleaner.deploy.launch.Signals;
import dev.gleaner.deploy.launch.WorkerProcesses;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A one-node Slurm cluster on this host, for tests: its own munged (key and socket in a temporary
 * folder), slurmctld and slurmd in the foreground on free loopback ports, every state, spool, log and
 * pid file in that folder, and the Slurm commands pointed at it through SLURM_CONF. {@link #close}
 * cancels the cluster's jobs, ends the daemons by their pids and removes the folder. Skips (JUnit
 * assumptions) when the daemons cannot run here: Slurm or munge not installed, or not root.
 */
final class SlurmHost implements AutoCloseable {
  private static final List<String> COMMANDS = List.of("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel",
      "srun", "sinfo");

  final Path dir;
  final Path conf;
  final String node;
  private final List<Process> daemons = new ArrayList<>();

  private SlurmHost(Path dir, String node) {
    this.dir = dir;
    this.conf = dir.resolve("slurm.conf");
    this.node = node;
  }

  /** Starts the cluster and waits until its node is idle; skips the test if it cannot run here. */
  static SlurmHost start() throws Exception {
    List<String> missing = COMMANDS.stream().filter(c -> find(c) == null).toList();
    Assumptions.assumeTrue(missing.isEmpty(), "Slurm test skipped: not installed here: " + String.join(", ", missing)
        + " (Debian: apt-get install slurm-wlm munge)");
    String uid = output(List.of("id", "-u"), Map.of()).strip();
    Assumptions.assumeTrue(uid.equals("0"), "Slurm test skipped: slurmd must run as root to start jobs (uid " + uid + ")");
    // munged wants every folder above its socket searchable by all, and none writable by others
    Path dir = Files.createTempDirectory(Path.of("/tmp"), "gleaner-slurm-");
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    // what `slurmd -C` finds: NodeName, CPUs, sockets, cores, threads, memory
    String hardware = output(List.of(find("slurmd"), "-C"), Map.of()).lines().filter(l -> l.startsWith("NodeName="))
        .findFirst().orElse("");
    Assumptions.assumeTrue(!hardware.isEmpty(), "Slurm test skipped: `slurmd -C` printed no NodeName line");
    String node = hardware.split("\\s+")[0].substring("NodeName=".length());
    SlurmHost h = new SlurmHost(dir, node);
    try {
      h.startDaemons(hardware);
    } catch (Exception | AssertionError e) {
      String logs = h.logs();
      h.close();
      throw new AssertionError("the test's Slurm did not start: " + e.getMessage() + "\n" + logs, e);
    }
    return h;
  }

  private void startDaemons(String hardware) throws Exception {
    Path munge = Files.createDirectories(dir.resolve("munge"));
    Path key = munge.resolve("munge.key");
    byte[] bytes = new byte[1024];
    new SecureRandom().nextBytes(bytes);
    Files.write(key, bytes);
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("r--------"));
    Path socket = munge.resolve("socket");
    daemons.add(start("munged", List.of(find("munged"), "--foreground", "--key-file=" + key, "--socket=" + socket,
        "--pid-file=" + munge.resolve("munged.pid"), "--log-file=" + munge.resolve("munged.log"),
        "--seed-file=" + munge.resolve("munged.seed"))));
    await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(socket) || !daemons.get(0).isAlive());
    if (!daemons.get(0).isAlive()) {
      throw new IllegalStateException("munged exited with status " + daemons.get(0).exitValue());
    }
    for (String d : List.of("state", "spool", "log")) {
      Files.createDirectories(dir.resolve(d));
    }
    Files.writeString(dir.resolve("plugstack.conf"), "");
    String host = InetAddress.getLoopbackAddress().getHostAddress();
    Files.writeString(conf, String.join("\n",
        "ClusterName=gleanertest",
        "SlurmctldHost=" + node + "(" + host + ")",
        "SlurmctldPort=" + freePort(),
        "SlurmdPort=" + freePort(),
        "AuthType=auth/munge",
        "CredType=cred/munge",
        "AuthInfo=socket=" + socket,
        "SlurmUser=root",
        "SlurmdUser=root",
        "StateSaveLocation=" + dir.resolve("state"),
        "SlurmdSpoolDir=" + dir.resolve("spool"),
        "SlurmctldPidFile=" + dir.resolve("slurmctld.pid"),
        "SlurmdPidFile=" + dir.resolve("slurmd.pid"),
        "SlurmctldLogFile=" + dir.resolve("log/slurmctld.log"),
        "SlurmdLogFile=" + dir.resolve("log/slurmd.log"),
        "PlugStackConfig=" + dir.resolve("plugstack.conf"),
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "SelectType=select/cons_tres",
        "SelectTypeParameters=CR_Core",
        "SchedulerType=sched/backfill",
        "SchedulerParameters=sched_interval=1",
        "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none",
        "JobCompType=jobcomp/none",
        "MpiDefault=none",
        "ReturnToService=2",
        "KillWait=30",
        hardware + " NodeAddr=" + host + " State=UNKNOWN",
        "PartitionName=test Nodes=" + node + " Default=YES MaxTime=INFINITE State=UP",
        ""));
    daemons.add(start("slurmctld", List.of(find("slurmctld"), "-D", "-f", conf.toString())));
    daemons.add(start("slurmd", List.of(find("slurmd"), "-D", "-f", conf.toString(), "-N", node)));
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
      for (Process p : daemons) {
        if (!p.isAlive()) {
          throw new IllegalStateException(p.info().command().orElse("a daemon") + " exited with status " + p.exitValue());
        }
      }
      return command("sinfo", "-h", "-n", node, "-o", "%t").strip().equals("idle");
    });
  }

  /** The environment that points Slurm's commands at this cluster. */
  Map<String, String> env() {
    return Map.of("SLURM_CONF", conf.toString());
  }

  /** Runs one of Slurm's commands against this cluster and returns what it printed; a failure throws. */
  String command(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(args));
    cmd.set(0, find(args[0]));
    return output(cmd, env());
  }

  /** The ids of this cluster's jobs named {@code name} that squeue lists (pending, running, completing). */
  List<String> jobs(String name) throws IOException, InterruptedException {
    return command("squeue", "-h", "--name=" + name, "-o", "%i").lines().map(String::strip)
        .filter(s -> !s.isEmpty()).toList();
  }

  /** The daemons' logs, for a failure message. */
  String logs() {
    StringBuilder sb = new StringBuilder();
    for (String name : List.of("munged", "slurmctld", "slurmd")) {
      sb.append("--- ").append(name).append('\n').append(WorkerProcesses.tail(dir.resolve("log/" + name + ".out"), 30))
          .append('\n');
    }
    return sb.toString();
  }

  private Process start(String name, List<String> cmd) throws IOException {
    Files.createDirectories(dir.resolve("log"));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(dir.resolve("log/" + name + ".out").toFile());
    pb.environment().putAll(env());
    return pb.start();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  static String find(String command) {
    for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, command))) {
        return Path.of(d, command).toString();
      }
    }
    return null;
  }

  static String output(List<String> cmd, Map<String, String> env) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IllegalStateException(cmd + " did not end within 60 s");
    }
    if (p.exitValue() != 0) {
      throw new IllegalStateException(cmd + " exited with status " + p.exitValue() + ": " + out.strip());
    }
    return out;
  }

  /** Cancels every job of this cluster, waits for them to go, ends the daemons by pid, removes the folder. */
  @Override
  public void close() {
    if (daemons.size() == 3 && daemons.stream().allMatch(Process::isAlive)) {
      try {
        List<String> all = command("squeue", "-h", "-o", "%i").lines().map(String::strip).filter(s -> !s.isEmpty())
            .toList();
        if (!all.isEmpty()) {
          List<String> cancel = new ArrayList<>(List.of("scancel"));
          cancel.addAll(all);
          command(cancel.toArray(String[]::new));
          await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
              .until(() -> command("squeue", "-h", "-o", "%i").isBlank());
        }
      } catch (Exception | AssertionError e) {
        System.err.println("SlurmHost: cannot end the test cluster's jobs: " + e);
      }
    }
    // slurmd, slurmctld, then munged: SIGTERM each by pid, SIGKILL if it lingers
    for (int i = daemons.size() - 1; i >= 0; i--) {
      Process p = daemons.get(i);
      if (p.isAlive()) {
        Signals.send(p.pid(), "TERM");
        if (!Signals.awaitExit(p, 15)) {
          Signals.end(p);
        }
      }
    }
    daemons.clear();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    } catch (IOException e) {
      System.err.println("SlurmHost: cannot remove " + dir + ": " + e);
    }
  }
}
