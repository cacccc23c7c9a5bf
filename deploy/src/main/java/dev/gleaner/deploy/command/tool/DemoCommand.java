package dev.gleaner.deploy.command.tool;

import dev.gleaner.common.workload.ExecWorkload;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.audit.KnownPrimeCounts;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.client.Terminal;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.WorkerShare;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gleaner demo}: a master and local worker processes on this machine counting primes end to
 * end, two of the workers slowed on purpose so the platform is heterogeneous.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    header = "Count primes with a local master and worker processes, half of them slowed.",
    description = {"Start a master and local worker processes (real JVMs, half of them slowed down on purpose),"
        + " count the primes below --to with them, show progress, and print the exact count, the time taken"
        + " and each worker's share. Everything started is stopped at the end, also on Ctrl-C."})
public final class DemoCommand implements Callable<Integer> {
  @Option(names = "--to", defaultValue = "30000000000", description = "Count primes below this (default: ${DEFAULT-VALUE}).")
  long to;

  @Option(names = "--workers", defaultValue = "4", description = "Worker processes to start (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(names = "--slowdown", defaultValue = "3", description = "How many times slower the slowed workers are (default: ${DEFAULT-VALUE}).")
  double slowdown;

  @Override
  public Integer call() throws Exception {
    if (workers < 1 || workers > 64) {
      throw new IllegalArgumentException("--workers must be within 1..64");
    }
    Path dir = Files.createTempDirectory("gleaner-demo-");
    WorkerProcesses processes = new WorkerProcesses(dir);
    MasterServer[] master = new MasterServer[1];
    Thread cleanup = new Thread(() -> stopAll(processes, master[0], dir, true), "gleaner-demo-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    int code = 1;
    try {
      code = run(dir, processes, master);
      return code;
    } finally {
      // after a good run the logs go; after a bad one they stay, for the one who looks into it
      stopAll(processes, master[0], dir, code == 0);
      if (code != 0) {
        System.err.println("the demo's logs are kept in " + dir);
      }
      Runtime.getRuntime().removeShutdownHook(cleanup);
    }
  }

  private int run(Path dir, WorkerProcesses processes, MasterServer[] master) throws Exception {
    if (System.getenv("GLEANER_LOG_LEVEL") == null) {
      LocalRuns.quietLogs();
    }
    byte[] secretBytes = new byte[32];
    new SecureRandom().nextBytes(secretBytes);
    Path secretFile = dir.resolve("secret");
    Files.writeString(secretFile, Base64.getEncoder().encodeToString(secretBytes));
    byte[] secret = Files.readString(secretFile).trim().getBytes(StandardCharsets.UTF_8);

    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("data"), secret,
            Workloads.of(ExecWorkload.definitionOnly()))
        .withHeartbeat(Duration.ofSeconds(1), Duration.ofSeconds(5));
    master[0] = new MasterServer(config).start();
    int port = master[0].port();
    System.err.printf(Locale.ROOT, "master on 127.0.0.1:%d; starting %d workers (%d slowed %.0fx); logs in %s"
        + " (removed after a good run, kept otherwise)%n"
        + "watch it in a browser: http://127.0.0.1:%d/%n", port, workers, workers / 2, slowdown, dir, port);

    for (int i = 1; i <= workers; i++) {
      boolean slow = i > workers - workers / 2;
      processes.start("demo-w" + i + (slow ? "-slow" : ""), port, secretFile, 1, slow ? slowdown : 1, "192m");
    }

    JobSpec spec = JobSpec.newBuilder().setName("demo-primes").setWorkload("primes")
        .putParams("from", "0").putParams("to", Long.toString(to))
        .setStrategy("auto").setMinWorkers(workers).build();
    long t0 = System.nanoTime();
    try (MasterClient client = MasterClient.connect(new HostPort("127.0.0.1", port), secret)) {
      String id = client.submit(spec);
      JobStatus job = follow(client, id, processes);
      double seconds = (System.nanoTime() - t0) / 1e9;
      if (!job.getState().equals("DONE")) {
        System.err.println("demo job " + job.getState() + ": " + job.getMessage());
        return 1;
      }
      long count = Long.parseLong(job.getResult().split(" ")[0]);
      Long known = KnownPrimeCounts.pi(to);
      System.out.printf(Locale.ROOT, "%nprimes below %,d: %,d%s%n", to, count,
          known == null ? "" : known == count ? "  (matches the published pi(x))" : "  (WRONG: published pi(x) = " + known + ")");
      System.out.printf(Locale.ROOT, "elapsed: %.1f s (%s units/s)%n", seconds, StatusView.human(to / seconds));
      System.out.println("units per worker:");
      for (WorkerShare s : job.getSharesList()) {
        System.out.printf(Locale.ROOT, "  %-16s %,18d  %5.1f%%%n", s.getWorkerId(), s.getUnits(), 100.0 * s.getUnits() / to);
      }
      return known == null || known == count ? 0 : 1;
    }
  }

  private static JobStatus follow(MasterClient client, String id, WorkerProcesses processes) throws Exception {
    boolean tty = System.console() != null;
    int columns = tty ? Terminal.columns() : Integer.MAX_VALUE;
    long lastLine = 0;
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(30);
    while (System.nanoTime() < deadline) {
      processes.requireAlive();
      JobStatus j = client.status(id).getJobs(0);
      boolean ended = StatusView.ended(j.getState());
      // the bar gives way to the figures on a narrow terminal
      String line = String.format(Locale.ROOT, "%s %6.2f%%  %s units/s  %s", StatusView.bar(j.getUnitsDone(),
          j.getUnitsTotal(), Math.max(10, Math.min(40, columns - 40))), StatusView.percent(j), StatusView.human(j.getUnitsPerSecond()), j.getMessage())
          + (j.hasForecast() ? " forecast: " + StatusView.forecast(j, System.currentTimeMillis()) : "");
      long now = System.nanoTime();
      if (tty) {
        // the line's length changes (the forecast's text): clear what a longer one left
        System.err.print("\r" + Terminal.fit(line, columns) + "\033[K" + (ended ? "\n" : ""));
      } else if (ended || now - lastLine > TimeUnit.SECONDS.toNanos(3)) {
        System.err.println(line);
        lastLine = now;
      }
      if (ended) {
        return j;
      }
      TimeUnit.MILLISECONDS.sleep(250);
    }
    throw new IllegalStateException("the demo did not finish within 30 minutes");
  }

  private static synchronized void stopAll(WorkerProcesses processes, MasterServer master, Path dir, boolean remove) {
    processes.close();
    if (master != null) {
      master.close();
    }
    if (remove) {
      LocalRuns.deleteTree(dir, "demo");
    }
  }
}
