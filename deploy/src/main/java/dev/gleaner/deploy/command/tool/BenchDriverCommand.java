package dev.gleaner.deploy.command.tool;

import dev.gleaner.deploy.bench.PhysicalLimits;
import dev.gleaner.deploy.bench.driver.DriverConnection;
import dev.gleaner.deploy.bench.driver.InputsDriver;
import dev.gleaner.deploy.bench.driver.KillDriver;
import dev.gleaner.deploy.bench.driver.LatencyDriver;
import dev.gleaner.deploy.bench.driver.LinksDriver;
import dev.gleaner.deploy.bench.driver.SmallChunksDriver;
import dev.gleaner.deploy.bench.driver.StreamDriver;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.client.StatusView;
import dev.gleaner.deploy.command.ClientOptions;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.Role;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gleaner bench driver WORKLOAD}: one of the side-by-side workloads against a running
 * master, from this one JVM (no JVM start per job), for {@code bench/peers/peers.py}, which runs
 * the same workloads on Work Queue and Dask. The drivers live in {@code dev.gleaner.deploy.bench.driver}.
 */
@Command(name = "driver", mixinStandardHelpOptions = true,
    header = "Run one side-by-side workload against a running master.",
    description = {"Run one of the workloads bench/peers/peers.py compares with Work Queue and Dask, against a master"
        + " already running with its workers connected, and print its figures (--json: one JSON document):",
        "  small-chunks  one primes job of --units one-unit chunks, strategy self: chunks/s",
        "  latency       --jobs one-chunk jobs in sequence, over a new connection each and over one: ms",
        "  inputs        one wc job per file of --dir (which the master serves), all at once: MiB/s, master CPU s",
        "  stream        one wc job over --file in --chunk-mib chunks on --workers workers: MiB/s",
        "  kill          a primes job of about --target-seconds, then again with --kill-pid SIGKILLed at a third",
        "  links         one wc job over --file with --strategy on --workers workers (gleaner bench --links runs it"
            + " inside its testbed): seconds, and each link's measured bandwidth",
        "  limits        the physical limits: fsync and SQLite commit latency in --data-dir, iperf3 on loopback"})
final class BenchDriverCommand implements Callable<Integer> {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Mixin
  ClientOptions client;

  @Parameters(index = "0", paramLabel = "WORKLOAD",
      description = "small-chunks, latency, inputs, stream, kill, links or limits.")
  String workload;

  @Option(names = "--workers", defaultValue = "4", description = "Workers the job waits for (default: ${DEFAULT-VALUE}).")
  int workers;

  @Option(names = "--units", defaultValue = "0",
      description = "small-chunks: chunks (default 20000); kill: the job's units (default: sized to --target-seconds).")
  long units;

  @Option(names = "--jobs", defaultValue = "200", description = "latency: jobs of each kind (default: ${DEFAULT-VALUE}).")
  int jobs;

  @Option(names = "--dir", paramLabel = "DIR", description = "inputs: the folder of input files.")
  Path dir;

  @Option(names = "--master-pid", defaultValue = "0",
      description = "inputs: the master's process id, to measure its CPU seconds (default: not measured).")
  long masterPid;

  @Option(names = "--file", paramLabel = "FILE", description = "stream: the file.")
  Path file;

  @Option(names = "--chunk-mib", defaultValue = "64", description = "stream: chunk size in MiB (default: ${DEFAULT-VALUE}).")
  long chunkMib;

  @Option(names = "--from", defaultValue = "1000000000", description = "kill: the first integer (default: ${DEFAULT-VALUE}).")
  long from;

  @Option(names = "--target-seconds", defaultValue = "10",
      description = "kill: the job's length without the loss (default: ${DEFAULT-VALUE}).")
  double targetSeconds;

  @Option(names = "--strategy", defaultValue = "",
      description = "kill, links: the job's strategy (default: the master's default).")
  String strategy;

  @Option(names = "--chunk-units", defaultValue = "0",
      description = "links: the job's chunk-units (default 0: the strategy's).")
  long chunkUnits;

  @Option(names = "--kill-pid", defaultValue = "0", description = "kill: the worker process to SIGKILL.")
  long killPid;

  @Option(names = "--data-dir", paramLabel = "DIR", description = "limits: a folder on the master's data file system.")
  Path dataDir;

  @Option(names = "--no-warm-up", description = "Skip the untimed warm-up run (small-chunks, stream).")
  boolean noWarmUp;

  @Option(names = "--json", description = "Print one JSON document on stdout.")
  boolean json;

  @Override
  public Integer call() throws Exception {
    LocalRuns.quietLogs();
    Map<String, Object> figures = switch (workload) {
      case "small-chunks" -> new SmallChunksDriver(connector(), units == 0 ? 20_000 : units, workers, !noWarmUp).run();
      case "latency" -> new LatencyDriver(connector(), jobs).run();
      case "inputs" -> new InputsDriver(connector(), required(dir, "--dir"), masterPid).run();
      case "stream" -> new StreamDriver(connector(), required(file, "--file"), chunkMib << 20, workers, !noWarmUp).run();
      case "kill" -> new KillDriver(connector(), from, units, targetSeconds, workers, strategy,
          required(killPid == 0 ? null : killPid, "--kill-pid")).run();
      case "links" -> new LinksDriver(connector(), required(file, "--file"), strategy, chunkUnits, workers).run();
      case "limits" -> PhysicalLimits.measure(required(dataDir, "--data-dir"), spec.commandLine().getErr());
      default -> throw new IllegalArgumentException("unknown workload '" + workload
          + "': small-chunks, latency, inputs, stream, kill, links or limits");
    };
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(StatusView.json(figures));
    } else {
      figures.forEach((k, v) -> {
        if (!(v instanceof java.util.List<?>) || ((java.util.List<?>) v).size() <= 8) {
          out.printf(Locale.ROOT, "%-28s %s%n", k, v instanceof Double d ? String.format(Locale.ROOT, "%.3f", d) : v);
        }
      });
    }
    return 0;
  }

  private static <T> T required(T value, String option) {
    if (value == null) {
      throw new IllegalArgumentException("this workload needs " + option);
    }
    return value;
  }

  /** New logged-in connections to --master with this command's credential, through the CLI's own client. */
  private DriverConnection.Connector connector() {
    var credential = client.credential(Role.CLIENT, "`gleaner bench driver`");
    var tls = client.tls();
    return () -> {
      MasterClient c = MasterClient.connect(client.master, credential, tls);
      return new DriverConnection() {
        @Override
        public String submit(JobSpec job) throws IOException {
          return c.submit(job);
        }

        @Override
        public JobStatus status(String jobId) throws IOException {
          return awaitStatus(jobId, 0);
        }

        @Override
        public JobStatus awaitStatus(String jobId, long waitMs) throws IOException {
          var reply = c.status(jobId, waitMs);
          if (reply.getJobsCount() == 0) {
            throw new IOException("the master knows no job '" + jobId + "'");
          }
          return reply.getJobs(0);
        }

        @Override
        public dev.gleaner.protocol.StatusReply everything() throws IOException {
          return c.status(null, true);
        }

        @Override
        public void close() throws IOException {
          c.close();
        }
      };
    };
  }
}
