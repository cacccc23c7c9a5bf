package dev.gleaner.deploy.command.cluster;

import dev.gleaner.common.workload.ExecWorkload;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.TextSink;
import dev.gleaner.deploy.command.Plugins;
import dev.gleaner.deploy.command.SubmitCommand;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.format.HostsFile;
import dev.gleaner.deploy.format.JobFile;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.deploy.launch.RemoteWorkers;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.SecretFile;
import dev.gleaner.protocol.WorkerStatus;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gleaner cluster run HOSTS JOB.yaml}: from a hosts file to a job's result in one command. */
@Command(name = "run", mixinStandardHelpOptions = true,
    header = "Run a job on the hosts of a hosts file: master, workers, job and result in one command.",
    description = {"Starts a master in this process (unless --master names a running one; its secret is created if"
        + " missing), starts a worker on every host as `gleaner cluster start` does, waits for them to connect,"
        + " submits the job, shows its progress, and prints its result on stdout as `gleaner submit` does.",
        "The workers this command started are stopped at the end (they drain), also on Ctrl-C, when the master is"
        + " this command's; with --master they keep running for the next job unless --stop is given, and the"
        + " command prints how to stop them.",
        "It logs in with the shared secret; with tokens or TLS, use `gleaner cluster start` and `gleaner submit`.",
        "Hosts that fail to start are reported and the job runs on the others. Exit status as for `gleaner submit`:"
        + " 0 DONE, 1 the command failed (nothing to run on), 3 CANCELLED, 5 DONE_PARTIAL, 6 FAILED."})
final class ClusterRunCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClusterOptions cluster;

  @Mixin
  ClusterStartCommand.WorkerFiles files;

  @Parameters(index = "1", paramLabel = "JOB.yaml", description = "The job file (see `gleaner submit --help`).")
  Path jobFile;

  @Option(names = "--master", paramLabel = "HOST:PORT", converter = HostPort.Converter.class,
      description = "Use this running master (the workers and this command reach it at that address) instead of"
          + " starting one here.")
  HostPort master;

  @Option(names = "--port", defaultValue = "7070",
      description = "Without --master: the port of the master started here (default: ${DEFAULT-VALUE}; 0 picks a free one).")
  int port;

  @Option(names = "--bind", defaultValue = "0.0.0.0",
      description = "Without --master: the address the master started here listens on (default: ${DEFAULT-VALUE}).")
  String bind;

  @Option(names = "--data", paramLabel = "DIR", defaultValue = "gleaner-data",
      description = "Without --master: the master's data directory (default: ./${DEFAULT-VALUE}).")
  Path data;

  @Option(names = "--master-address", paramLabel = "HOST",
      description = "Without --master: the name or address the workers reach this computer by (default: its host"
          + " name).")
  String masterAddress;

  @Option(names = "--stop", description = "With --master: stop the workers when the job has ended.")
  boolean stopAtEnd;

  @Option(names = "--join-timeout", paramLabel = "SECONDS", defaultValue = "60",
      description = "How long to wait for the started workers to connect before submitting (default: ${DEFAULT-VALUE}).")
  int joinTimeout;

  @Override
  public Integer call() throws Exception {
    List<HostsFile.Host> hosts = cluster.hosts();
    JobSpec job = JobFile.read(jobFile).toBuilder().setKey(java.util.UUID.randomUUID().toString()).build();
    if (master != null && spec.commandLine().getParseResult().hasMatchedOption("--data")) {
      throw new IllegalArgumentException("--data is for the master started here; leave it out with --master");
    }
    if (master == null && stopAtEnd) {
      throw new IllegalArgumentException("--stop goes with --master: the workers of a master started here are stopped"
          + " at the end anyway");
    }
    RemoteWorkers remote = cluster.remote();
    PrintWriter err = spec.commandLine().getErr();
    boolean own = master == null;
    byte[] secret = own ? ensureSecret(files.secretFile, err) : SecretFile.read(files.secretFile);
    RemoteWorkers.Files2Copy copy = files.resolve(null, null);
    MasterServer server = null;
    HostPort workersDial = master;
    HostPort clientDial = master;
    if (own) {
      if (System.getenv("GLEANER_LOG_LEVEL") == null) {
        LocalRuns.quietLogs();
      }
      server = new MasterServer(MasterConfig.defaults(new InetSocketAddress(bind, port), data, secret,
          Workloads.withPlugins(Plugins.loader(null), ExecWorkload.definitionOnly()))).start();
      workersDial = new HostPort(masterAddress != null ? masterAddress : hostName(), server.port());
      clientDial = new HostPort(bind.equals("0.0.0.0") ? "127.0.0.1" : bind, server.port());
      err.println("master listening on port " + server.port() + " (data " + data + "); workers reach it at " + workersDial);
    }
    List<HostsFile.Host> toStop = new ArrayList<>();
    boolean stop = own || stopAtEnd;
    Thread onCtrlC = new Thread(() -> stopWorkers(remote, toStop, err), "gleaner-cluster-run-stop");
    if (stop) {
      Runtime.getRuntime().addShutdownHook(onCtrlC);
    }
    try {
      err.println("starting workers on " + hosts.size() + " host" + (hosts.size() == 1 ? "" : "s") + ":");
      HostPort dial = workersDial;
      List<RemoteWorkers.Outcome> outcomes = RemoteWorkers.forEach(hosts, cluster.parallel, h -> {
        RemoteWorkers.Outcome o = remote.start(h, copy, dial.toString(), files.workerOptions);
        // stopped at the end (or on Ctrl-C, also while others are still starting): those started here,
        // and with --stop those that were running already too
        if (o.kind() == RemoteWorkers.Kind.STARTED || (stopAtEnd && o.kind() == RemoteWorkers.Kind.RUNNING)) {
          synchronized (toStop) {
            toStop.add(o.host());
          }
        }
        return o;
      }, err);
      List<HostsFile.Host> up = new ArrayList<>();
      for (RemoteWorkers.Outcome o : outcomes) {
        if (!o.failed()) {
          up.add(o.host());
        }
      }
      if (up.isEmpty()) {
        throw new IllegalStateException("no worker runs on any host of " + cluster.hostsFile + "; nothing to run the"
            + " job on");
      }
      try (MasterClient c = MasterClient.connect(clientDial, secret)) {
        awaitWorkers(c, up, err);
        String id = c.submitReply(job).getJobId();
        err.println("submitted " + id);
        JobStatus j = SubmitCommand.follow(c, id, true, 500);
        PrintWriter out = spec.commandLine().getOut();
        if (j.getState().equals("FAILED")) {
          out.println(j.getState() + ": " + j.getMessage());
        } else if (j.getResultTruncated()) {
          try (TextSink sink = new TextSink(out)) {
            c.result(id, sink);
          }
          out.println();
        } else {
          out.println(j.getResult());
        }
        out.flush();
        String partial = dev.gleaner.deploy.command.JobExit.partialMarker(j);
        if (partial != null) {
          out.println(partial);
          out.flush();
        }
        return dev.gleaner.deploy.command.JobExit.of(j.getState());
      }
    } finally {
      if (stop) {
        stopWorkers(remote, toStop, err);
        try {
          Runtime.getRuntime().removeShutdownHook(onCtrlC);
        } catch (IllegalStateException shuttingDown) {
          // the JVM is exiting (Ctrl-C): the hook stops them
        }
      } else {
        err.println("the workers keep running for the next job; `gleaner cluster stop " + cluster.asArguments()
            + "` stops them");
      }
      if (server != null) {
        server.close();
      }
    }
  }

  /** Stops the workers on {@code toStop}, once (the end and Ctrl-C may both ask). */
  private static void stopWorkers(RemoteWorkers remote, List<HostsFile.Host> toStop, PrintWriter err) {
    List<HostsFile.Host> hosts;
    synchronized (toStop) {
      hosts = List.copyOf(toStop);
      toStop.clear();
    }
    if (hosts.isEmpty()) {
      return;
    }
    err.println("stopping the workers:");
    try {
      RemoteWorkers.forEach(hosts, 16, h -> remote.stop(h, 40), err);
    } catch (InterruptedException e) {
      err.println("interrupted while stopping the workers; `gleaner cluster stop` stops them");
      Thread.currentThread().interrupt();
    }
  }

  /** Waits until the master sees every worker of {@code up}, or --join-timeout; goes on if it sees at least one. */
  private void awaitWorkers(MasterClient c, List<HostsFile.Host> up, PrintWriter err) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(joinTimeout);
    List<String> missing;
    // bounded by --join-timeout
    while (true) {
      Map<String, String> seen = new HashMap<>();
      for (WorkerStatus w : c.status(null).getWorkersList()) {
        seen.put(w.getWorkerId(), w.getState());
      }
      missing = up.stream().map(HostsFile.Host::workerId)
          .filter(id -> seen.get(id) == null || seen.get(id).equals("GONE")).toList();
      if (missing.isEmpty() || System.nanoTime() > deadline) {
        break;
      }
      TimeUnit.MILLISECONDS.sleep(250);
    }
    int connected = up.size() - missing.size();
    if (connected == 0) {
      throw new IllegalStateException("no worker connected to the master within " + joinTimeout + " s (each host's"
          + " log is ID.log in its folder; `gleaner cluster status` says whether the workers run)");
    }
    err.println(connected + " of " + up.size() + " workers connected"
        + (missing.isEmpty() ? "" : "; not connected: " + String.join(", ", missing) + " (see ID.log on the host)"));
  }

  /** The secret at {@code file}, made (32 random bytes, base64, mode 600) if there is none. */
  static byte[] ensureSecret(Path file, PrintWriter err) throws java.io.IOException {
    if (!Files.exists(file)) {
      byte[] b = new byte[32];
      new SecureRandom().nextBytes(b);
      Path parent = file.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      Path tmp = Files.createTempFile(parent, ".secret", ".part",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.write(tmp, (Base64.getEncoder().encodeToString(b) + "\n").getBytes(StandardCharsets.US_ASCII));
      Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      err.println("created the shared secret " + file + " (mode 600)");
    }
    return SecretFile.read(file);
  }

  private static String hostName() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.net.UnknownHostException e) {
      throw new IllegalArgumentException("cannot tell this computer's name (" + e.getMessage() + "); give"
          + " --master-address HOST, the name or address the workers reach it by", e);
    }
  }
}
