package dev.gleaner.deploy.command;

import dev.gleaner.common.port.Sends;
import dev.gleaner.common.time.Ticker;
import dev.gleaner.common.workload.ExecWorkload;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.launch.PortFile;
import dev.gleaner.master.FaultFile;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.master.auth.MasterAuth;
import dev.gleaner.master.web.Deadlines;
import dev.gleaner.protocol.SecretFile;
import dev.gleaner.protocol.tls.ClusterFiles;
import dev.gleaner.protocol.tls.ServerTls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gleaner master}: the master daemon. */
@Command(name = "master", mixinStandardHelpOptions = true,
    description = {"Run the master daemon: one TCP port for workers and clients, state in --data.",
        "Stop it with Ctrl-C or SIGTERM; a restarted master resumes unfinished jobs from their checkpoints."})
public final class MasterCommand implements Callable<Integer> {
  @Option(names = "--port", defaultValue = "7070", description = "TCP port (default: ${DEFAULT-VALUE}; 0 picks a free one).")
  int port;

  @Option(names = "--bind", defaultValue = "0.0.0.0", description = "Address to listen on (default: ${DEFAULT-VALUE}).")
  String bind;

  @Option(names = "--port-file", paramLabel = "FILE",
      description = "Once listening, write the port to FILE, as its only line: how a script that starts the master on"
          + " --port 0 learns its port. Written whole (to a file beside it, then renamed), replacing what was there.")
  Path portFile;

  @Option(names = "--data", defaultValue = "gleaner-data", paramLabel = "DIR",
      description = "Directory of the SQLite store (default: ${DEFAULT-VALUE}, in the current directory).")
  Path data;

  @Option(names = "--secret-file", paramLabel = "FILE", defaultValue = "${env:GLEANER_SECRET_FILE:-${sys:user.home}/.gleaner/secret}",
      description = "The shared cluster secret (default: $GLEANER_SECRET_FILE or ~/.gleaner/secret): any holder may be"
          + " any worker or client, so a trusted lab network only. Not read with --tls or --cluster-key unless"
          + " --allow-shared-secret.")
  Path secretFile;

  @Option(names = "--tls", paramLabel = "DIR", description = "Speak TLS only, with DIR/master.crt and DIR/master.key"
      + " from `gleaner init DIR`; DIR/cluster.key, if there, is the cluster key (see --cluster-key).")
  Path tls;

  @Option(names = "--cluster-key", paramLabel = "FILE", description = "Take tokens (from `gleaner init` or `gleaner token`)"
      + " derived from this key: a worker's logs in as that worker only, a client's as a client only."
      + " Default with --tls DIR: DIR/cluster.key.")
  Path clusterKey;

  @Option(names = "--allow-shared-secret", description = "With --tls or --cluster-key: take shared-secret logins too"
      + " (refused by default there).")
  boolean allowSharedSecret;

  @Option(names = "--client-auth", paramLabel = "none|require", defaultValue = "none",
      description = "With --tls: 'require' makes every peer present a certificate of the cluster CA (DIR/ca.crt)"
          + " (default: ${DEFAULT-VALUE}).")
  String clientAuth;

  @Option(names = "--heartbeat-interval", defaultValue = "2", paramLabel = "SECONDS", description = "Worker heartbeat interval (default: ${DEFAULT-VALUE} s).")
  double heartbeatInterval;

  @Option(names = "--heartbeat-timeout", defaultValue = "10", paramLabel = "SECONDS", description = "Silence after which a worker is down (default: ${DEFAULT-VALUE} s).")
  double heartbeatTimeout;

  @Option(names = "--max-frame-mib", defaultValue = "16", description = "Hard limit of one frame (default: ${DEFAULT-VALUE} MiB).")
  int maxFrameMib;

  @Option(names = "--fault-file", hidden = true, paramLabel = "FILE",
      description = "Fault injection for chaos runs: faults in force, one per line (store-full, clock-offset SECONDS).")
  Path faultFile;

  @Option(names = "--expected-up", paramLabel = "DURATION",
      description = "Borrowed computers: a worker with no history is expected to be taken back after this long up"
          + " on average (10h, 90m), until its own interruptions say otherwise. Default: none, no one is at risk"
          + " until seen interrupted (a dedicated cluster).")
  String expectedUp;

  @Option(names = "--expected-down", paramLabel = "DURATION",
      description = "Borrowed computers: a worker taken back is expected to return after this long on average (1.4h,"
          + " 30m), until the outages seen say otherwise; the forecast's figures rest on it. Default: none, the"
          + " outages seen alone (a worker that went down is not expected back until one has returned).")
  String expectedDown;

  @Option(names = "--metrics-from-anywhere",
      description = "Answer GET /metrics (Prometheus' text format, on the master's port) from any address, not only"
          + " loopback ones. The metrics name workers and jobs; open them to your monitoring network only.")
  boolean metricsFromAnywhere;

  @Option(names = "--web-from-anywhere",
      description = "Answer the web page (GET /, on the master's port) and its GET /api/status from any address,"
          + " not only loopback ones; those must show a client token (NAME:BASE64, ?token= or Authorization: Bearer)"
          + " or the shared secret. Without --tls the credential crosses the network in clear text.")
  boolean webFromAnywhere;

  @Option(names = "--private-jobs",
      description = "Clients see other clients' jobs as numbers only (owner, state, progress), without their names,"
          + " messages and results, in status, jobs and the web page; operators see every job in full. Default:"
          + " every job in full but another client's result. Needs tokens (--tls or --cluster-key).")
  boolean privateJobs;

  @Option(names = "--max-result-mib", defaultValue = "256", paramLabel = "MIB",
      description = "Largest result of one piece; a result over a frame arrives in several (default: ${DEFAULT-VALUE} MiB).")
  int maxResultMib;

  @Option(names = "--concurrent-sends", defaultValue = "share", paramLabel = "share|fit|N",
      description = "How chunk inputs stream: share, all at once, sharing this master's egress as TCP does; fit, as"
          + " many as their workers' links fit in the egress, both measured as it sends (a link not measured yet"
          + " goes alone; each link measures at its own rate); or N links at a time (1: the papers' one-port model)."
          + " Default: ${DEFAULT-VALUE}.")
  String concurrentSends;

  @Option(names = "--window", defaultValue = "2", description = "Chunks a worker holds at once (default: ${DEFAULT-VALUE}).")
  int window;

  @Option(names = "--plugins", paramLabel = "DIR", description = "Directory of workload plugin jars.")
  Path plugins;

  @Option(names = "--serve", paramLabel = "DIR", description = "A directory whose regular files jobs may name as"
      + " input (grep, wc, exec with input); repeat for several. Without it, jobs cannot read files on the master.")
  java.util.List<Path> serve = new java.util.ArrayList<>();

  /** The logins this master takes: tokens once it is secured, the shared secret only where allowed. */
  private MasterAuth auth() {
    Path key = clusterKey;
    if (key == null && tls != null && Files.exists(tls.resolve(ClusterFiles.CLUSTER_KEY))) {
      key = tls.resolve(ClusterFiles.CLUSTER_KEY);
    }
    boolean secured = tls != null || key != null;
    if (secured && key == null && !allowSharedSecret) {
      throw new IllegalArgumentException("--tls " + tls + " has no " + ClusterFiles.CLUSTER_KEY + ", so nobody could log in:"
          + " give --cluster-key FILE (from `gleaner init`), or --allow-shared-secret");
    }
    byte[] secret = !secured || allowSharedSecret ? SecretFile.readForMaster(secretFile) : null;
    if (key != null && !Files.exists(key)) {
      throw new IllegalArgumentException("cluster key " + key + " does not exist (`gleaner init DIR` makes DIR/"
          + ClusterFiles.CLUSTER_KEY + ")");
    }
    return new MasterAuth(secret, key == null ? null : SecretFile.read(key));
  }

  private static IllegalArgumentException privateJobsNeedTokens() {
    return new IllegalArgumentException("--private-jobs keeps clients' jobs from each other, and under the shared"
        + " secret alone everybody is one client: give the master tokens (--tls DIR or --cluster-key FILE)");
  }

  @Option(names = "--log-file", paramLabel = "FILE",
      description = "Also log to FILE, rolled daily and at 50 MB into FILE.DATE.N.gz (14 days, 1 GB at most kept).")
  Path logFile;

  @Override
  public Integer call() throws Exception {
    if (logFile != null) {
      LogFile.install(logFile);
    }
    Path portFolder = portFile == null ? null : portFile.toAbsolutePath().getParent();
    if (portFile != null && (portFolder == null || !Files.isDirectory(portFolder))) {
      throw new IllegalArgumentException("--port-file " + portFile + ": " + (portFolder == null ? "not a file's name"
          : "there is no folder " + portFolder + " to write it in"));
    }
    if (maxResultMib < maxFrameMib) {
      // a piece's result of one frame is taken whole: a lower limit could not be held to
      throw new IllegalArgumentException("--max-result-mib " + maxResultMib + " is below --max-frame-mib " + maxFrameMib
          + ": a piece's result of one frame could be larger than the limit; give --max-result-mib " + maxFrameMib
          + " or more, or a smaller --max-frame-mib");
    }
    if (privateJobs && tls == null && clusterKey == null) {
      throw privateJobsNeedTokens();
    }
    MasterAuth auth = auth();
    if (privateJobs && auth.clusterKey() == null) {
      throw privateJobsNeedTokens();
    }
    if (!clientAuth.equals("none") && !clientAuth.equals("require")) {
      throw new IllegalArgumentException("--client-auth is none or require, not '" + clientAuth + "'");
    }
    if (clientAuth.equals("require") && tls == null) {
      throw new IllegalArgumentException("--client-auth require needs --tls DIR");
    }
    ServerTls serverTls = tls == null ? null : ServerTls.fromDir(tls, clientAuth.equals("require"));
    Workloads workloads = Workloads.withPlugins(Plugins.loader(plugins), ExecWorkload.definitionOnly());
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress(bind, port), data, new byte[0], workloads)
        .withAuth(auth)
        .withTls(serverTls)
        .withHeartbeat(Duration.ofMillis((long) (heartbeatInterval * 1000)), Duration.ofMillis((long) (heartbeatTimeout * 1000)))
        .withMaxFrameBytes(Math.multiplyExact(maxFrameMib, 1024 * 1024))
        .withMaxResultBytes(Math.multiplyExact((long) maxResultMib, 1024L * 1024))
        .withConcurrentSends(Sends.parse("--concurrent-sends", concurrentSends))
        .withWindow(window)
        .withServe(serve.toArray(Path[]::new));
    config = config.withMetricsFromAnywhere(metricsFromAnywhere).withWebFromAnywhere(webFromAnywhere)
        .withPrivateJobs(privateJobs);
    if (expectedUp != null) {
      config = config.withExpectedUp(Deadlines.seconds(expectedUp));
    }
    if (expectedDown != null) {
      config = config.withExpectedDown(Deadlines.seconds(expectedDown));
    }
    FaultFile.ShiftedTicker clock = faultFile == null ? null : new FaultFile.ShiftedTicker(Ticker.SYSTEM);
    if (clock != null) {
      // the clock's offset holds from the start, so nothing is stored on the machine's time in between
      FaultFile.applyClock(faultFile, clock);
      config = config.withTicker(clock);
    }
    MasterServer server = new MasterServer(config).start();
    FaultFile faults = clock == null ? null : FaultFile.watch(faultFile, server, clock);
    CountDownLatch stop = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(MasterCommand.class);
      log.info("stopping (SIGTERM or Ctrl-C): what is saved stays in the store; running jobs resume at the next start"
          + " (those being cancelled end there)");
      Thread watchdog = stopWatchdog();
      if (faults != null) {
        faults.close();
      }
      server.close();
      log.info("stopped");
      watchdog.interrupt();
      stop.countDown();
    }, "gleaner-master-shutdown");
    // before the port file and the line that say the master is up: a SIGTERM from then on stops it as any
    // other (one right after the line found the hook not yet there, and the master said only "Shutdown in
    // progress")
    try {
      Runtime.getRuntime().addShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // SIGTERM or Ctrl-C while it started: it stops now, the same way
      hook.run();
      return 0;
    }
    if (portFile != null) {
      writePortFile(server, faults, hook);
    }
    System.err.println("gleaner master listening on port " + server.port() + " (workloads: "
        + String.join(", ", workloads.names()) + "; " + (serverTls == null ? "clear text" : "TLS")
        + (auth.clusterKey() != null ? ", tokens" : "") + (auth.sharedSecret() != null ? ", shared secret" : "") + ")");
    stop.await();
    return 0;
  }

  /** Writes the port file; a master that cannot stops, and says why in one line. */
  private void writePortFile(MasterServer server, FaultFile faults, Thread hook) {
    try {
      PortFile.write(portFile, server.port());
    } catch (IOException e) {
      boolean stopHere;
      try {
        stopHere = Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // a SIGTERM came meanwhile: the hook is stopping the master
        stopHere = false;
      }
      if (stopHere) {
        if (faults != null) {
          faults.close();
        }
        server.close();
      }
      throw new IllegalArgumentException("--port-file " + portFile + ": cannot write the port there ("
          + PortFile.reason(e) + "); the master stopped", e);
    }
  }

  /** The longest a stop may take: every step of the close is bounded well within it. */
  static final long STOP_SECONDS = 9;

  /**
   * Ends the JVM if the close has not within {@link #STOP_SECONDS}: SIGTERM always stops the
   * master. The store is SQLite in WAL mode with full syncs, so what it committed survives a halt
   * and a transaction under way is rolled back at the next start.
   */
  private static Thread stopWatchdog() {
    Thread t = new Thread(() -> {
      try {
        Thread.sleep(TimeUnit.SECONDS.toMillis(STOP_SECONDS));
      } catch (InterruptedException closed) {
        return;
      }
      System.err.println("gleaner master: the stop took over " + STOP_SECONDS + " s; exiting now (what the store"
          + " committed is kept)");
      Runtime.getRuntime().halt(143);
    }, "gleaner-master-stop-watchdog");
    t.setDaemon(true);
    t.start();
    return t;
  }

}
