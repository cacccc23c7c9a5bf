package dev.gleaner.deploy.command.cluster;

import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.EntryPoint;
import dev.gleaner.deploy.launch.SlurmScript;
import dev.gleaner.master.web.Durations;
import dev.gleaner.protocol.SecretFile;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** What a Slurm worker job needs: the master, a credential, the job's shape and how to run gleaner on the nodes. */
final class SlurmOptions {
  @Option(names = "--master", paramLabel = "HOST:PORT", required = true, converter = HostPort.Converter.class,
      description = "The master's address as the compute nodes reach it (not localhost).")
  HostPort master;

  @Option(names = "--secret-file", paramLabel = "FILE",
      defaultValue = "${env:GLEANER_SECRET_FILE:-${sys:user.home}/.gleaner/secret}",
      description = "The shared cluster secret, at this path on the nodes too (default: $GLEANER_SECRET_FILE or"
          + " ~/.gleaner/secret). Not read with --token-file.")
  Path secretFile;

  @Option(names = {"--token-file", "--token"}, paramLabel = "FILE",
      description = "A worker token instead of the shared secret: it names one worker, so one node only.")
  Path tokenFile;

  @Option(names = "--ca", paramLabel = "FILE", description = "Speak TLS to the master, trusting this cluster CA.")
  Path caFile;

  @Option(names = "--time", paramLabel = "LIMIT", required = true,
      description = "The job's time limit in Slurm's syntax (8:00:00, 90, 1-12:00:00); each worker drains"
          + " --drain-margin before it.")
  String time;

  @Option(names = "--partition", paramLabel = "P", description = "The Slurm partition (default: the cluster's).")
  String partition;

  @Option(names = "--cores", paramLabel = "C",
      description = "Cores per worker: sbatch --cpus-per-task and gleaner worker --cores (default: what Slurm gives).")
  Integer cores;

  @Option(names = "--sbatch-arg", paramLabel = "ARG",
      description = "One more sbatch option, as sbatch takes it (--sbatch-arg=--account=lab --sbatch-arg=--mem=4G).")
  List<String> sbatchArgs = new ArrayList<>();

  @Option(names = "--worker-arg", paramLabel = "ARG",
      description = "One more gleaner worker option (--worker-arg=--allow-exec=/opt/tool).")
  List<String> workerArgs = new ArrayList<>();

  @Option(names = "--launcher", paramLabel = "PATH",
      description = "How the nodes run gleaner: the launcher's path on them (default: this Java and class path,"
          + " which must be on a file system the nodes share).")
  String launcher;

  @Option(names = "--drain-margin", paramLabel = "TIME", defaultValue = "2m",
      description = "How long before the job's end each worker drains (its --available-until; default: ${DEFAULT-VALUE}).")
  String drainMargin;

  /** The command that runs gleaner on the nodes. */
  List<String> gleaner() {
    if (launcher != null) {
      return List.of(launcher);
    }
    List<String> classPath = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.isEmpty()) {
        classPath.add(Path.of(entry).toAbsolutePath().normalize().toString());
      }
    }
    return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        String.join(File.pathSeparator, classPath), EntryPoint.NAME);
  }

  /** The worker's options: master, credential (read here first, so a wrong path is an error now), TLS, extras. */
  List<String> workerOptions() {
    List<String> o = new ArrayList<>(List.of("--master", master.toString()));
    if (tokenFile != null) {
      dev.gleaner.protocol.TokenFile.read(tokenFile);
      o.addAll(List.of("--token", tokenFile.toAbsolutePath().toString()));
    } else {
      SecretFile.read(secretFile);
      o.addAll(List.of("--secret-file", secretFile.toAbsolutePath().toString()));
    }
    if (caFile != null) {
      o.addAll(List.of("--ca", caFile.toAbsolutePath().toString()));
    }
    o.addAll(workerArgs);
    return o;
  }

  long drainMarginSeconds() {
    return Durations.parse("--drain-margin", drainMargin).toSeconds();
  }

  /** The script for {@code nodes} nodes under {@code jobName}, with {@code comment} (or null). */
  SlurmScript script(String jobName, int nodes, String comment) {
    if (tokenFile != null && nodes > 1) {
      throw new IllegalArgumentException("--token-file names one worker, so it runs on one node only; give --nodes 1,"
          + " or --secret-file for several");
    }
    SlurmScript script = new SlurmScript(jobName, nodes, time, partition, cores, comment, drainMarginSeconds(),
        gleaner(), workerOptions(), tokenFile == null);
    if (master.host().equals("localhost") || master.host().startsWith("127.")) {
      org.slf4j.LoggerFactory.getLogger(SlurmOptions.class).warn("--master {} is this machine's loopback address:"
          + " only workers on this machine reach it", master);
    }
    return script;
  }
}
