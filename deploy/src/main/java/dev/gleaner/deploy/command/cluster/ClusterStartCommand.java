package dev.gleaner.deploy.command.cluster;

import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.format.HostsFile;
import dev.gleaner.deploy.launch.RemoteWorkers;
import dev.gleaner.protocol.SecretFile;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gleaner cluster start HOSTS --master HOST:PORT}: a worker on every host of the file. */
@Command(name = "start", mixinStandardHelpOptions = true,
    header = "Start a worker on every host of a hosts file, over ssh.",
    description = {"For each host, in parallel: copy gleaner.jar and the launcher into its folder if missing or"
        + " different (by SHA-256), copy the worker's credential (mode 600), and start `gleaner worker` there,"
        + " detached: under `systemd-run --user` when the host's user systemd outlives the ssh session (lingering),"
        + " else with nohup, a PID file and a log file (DIR/ID.pid, DIR/ID.log). The worker's --id is the host's"
        + " name (or id=), --cores and --available come from the hosts file.",
        "Prints a line per host (started, already running, failed: why) and exits 1 if any failed."})
final class ClusterStartCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClusterOptions cluster;

  @Mixin
  WorkerFiles files;

  @Option(names = "--tokens", paramLabel = "DIR",
      description = "Log workers in with tokens instead: each host gets DIR/worker-ID.token, its own worker's"
          + " (the tokens/ folder of `gleaner init`, or files from `gleaner token worker ID`).")
  Path tokenDir;

  @Option(names = "--ca", paramLabel = "FILE",
      description = "The cluster CA (ca.crt of `gleaner init`), copied to every host: workers speak TLS and trust it.")
  Path ca;

  @Option(names = "--master", required = true, paramLabel = "HOST:PORT", converter = HostPort.Converter.class,
      description = "The master's address as the workers reach it.")
  HostPort master;

  @Override
  public Integer call() throws Exception {
    List<HostsFile.Host> hosts = cluster.hosts();
    RemoteWorkers.Files2Copy copy = files.resolve(tokenDir, ca);
    RemoteWorkers remote = cluster.remote();
    PrintWriter out = spec.commandLine().getOut();
    List<RemoteWorkers.Outcome> outcomes = RemoteWorkers.forEach(hosts, cluster.parallel,
        h -> remote.start(h, copy, master.toString(), files.workerOptions), out);
    return outcomes.stream().anyMatch(RemoteWorkers.Outcome::failed) ? 1 : 0;
  }

  /** The files a start copies, and the options every worker gets. */
  static final class WorkerFiles {
    @Option(names = "--secret-file", paramLabel = "FILE",
        defaultValue = "${env:GLEANER_SECRET_FILE:-${sys:user.home}/.gleaner/secret}",
        description = "The shared cluster secret, copied to every host (default: $GLEANER_SECRET_FILE or"
            + " ~/.gleaner/secret).")
    Path secretFile;

    @Option(names = "--dist", paramLabel = "DIR",
        description = "The folder holding gleaner.jar and the launcher gleaner to copy (default: where this gleaner.jar"
            + " is, with the launcher beside it or in ../bin).")
    Path dist;

    @Option(names = "--worker-option", paramLabel = "OPTION",
        description = "An option for every `gleaner worker` (repeat for several): --worker-option=--owner=desktop.")
    List<String> workerOptions = List.of();

    /** What to copy: the distribution, and the shared secret or, with {@code tokenDir}, each worker's token. */
    RemoteWorkers.Files2Copy resolve(Path tokenDir, Path ca) {
      Path[] d = Distribution.find(dist);
      if (tokenDir != null) {
        if (!Files.isDirectory(tokenDir)) {
          throw new IllegalArgumentException("--tokens " + tokenDir + " is not a folder of worker tokens");
        }
      } else {
        SecretFile.read(secretFile);
      }
      if (ca != null && !Files.isRegularFile(ca)) {
        throw new IllegalArgumentException("--ca " + ca + " does not exist");
      }
      for (String o : workerOptions) {
        if (!o.startsWith("-")) {
          throw new IllegalArgumentException("--worker-option takes an option of `gleaner worker` such as"
              + " --owner=desktop, not '" + o + "'");
        }
      }
      return new RemoteWorkers.Files2Copy(d[0], d[1], tokenDir == null ? secretFile : null, tokenDir, ca);
    }
  }

  /** Where this gleaner's distribution is: gleaner.jar and the launcher. */
  static final class Distribution {
    private Distribution() {}

    /** {jar, launcher}, from {@code dir} or beside the running jar; a one-line error if either is missing. */
    static Path[] find(Path dir) {
      if (dir != null) {
        return check(dir.resolve("gleaner.jar"), dir.resolve("gleaner"), "--dist " + dir);
      }
      Path jar;
      try {
        jar = Path.of(Distribution.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      } catch (java.net.URISyntaxException | RuntimeException e) {
        throw new IllegalArgumentException("cannot tell where this gleaner.jar is (" + e.getMessage() + "); give --dist DIR",
            e);
      }
      if (!Files.isRegularFile(jar) || !jar.getFileName().toString().endsWith(".jar")) {
        throw new IllegalArgumentException("this gleaner does not run from gleaner.jar (" + jar + "); build it with"
            + " `mvn -DskipTests package` or give --dist DIR, a folder with gleaner.jar and gleaner");
      }
      Path beside = jar.resolveSibling("gleaner");
      Path checkout = jar.getParent().resolveSibling("bin").resolve("gleaner");
      return check(jar, Files.isRegularFile(beside) ? beside : checkout, jar.getParent().toString());
    }

    private static Path[] check(Path jar, Path launcher, String where) {
      for (Path p : new Path[] {jar, launcher}) {
        if (!Files.isRegularFile(p)) {
          throw new IllegalArgumentException(where + " has no " + p.getFileName() + " (the distribution is gleaner.jar"
              + " and the launcher gleaner in one folder)");
        }
      }
      return new Path[] {jar, launcher};
    }
  }
}
