package dev.gleaner.deploy.bench.swarm;

import dev.gleaner.deploy.launch.MasterProcess;
import dev.gleaner.deploy.launch.WorkerProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The master the swarm runs against: {@code gleaner master} in a JVM of its own ({@link MasterProcess}: this
 * JVM's class path, its own data directory and secret under the run's directory, on 127.0.0.1 and a free port),
 * its log in a file. Read from outside: its port from the file it writes once it listens, the workers declared
 * down from its log, its memory from {@code /proc/PID/status}; stopped with SIGTERM by its PID, and with SIGKILL
 * only if it has not exited 30 s later.
 */
final class SwarmMaster implements AutoCloseable {
  /** The control loop's and the heartbeat monitor's lines for a worker declared down. */
  private final MasterProcess master;

  private SwarmMaster(MasterProcess master) {
    this.master = master;
  }

  /** Starts the master with {@code javaOptions} (a heap size) and waits up to 60 s until it listens. */
  static SwarmMaster start(Path run, Path secret, List<String> javaOptions, List<String> masterArgs)
      throws IOException {
    List<String> options = new ArrayList<>(List.of("--data", run.resolve("data").toString(), "--secret-file",
        secret.toString()));
    options.addAll(masterArgs);
    return new SwarmMaster(MasterProcess.start(run, javaOptions, options, Duration.ofSeconds(60)));
  }

  int port() {
    return master.port();
  }

  long pid() {
    return master.pid();
  }

  boolean alive() {
    return master.alive();
  }

  /**
   * Its resident memory and its peak, in MiB, from {@code /proc/PID/status} ({@code VmRSS},
   * {@code VmHWM}); NaN where that cannot be read (not Linux, or it has exited).
   */
  double[] rssMib() {
    double rss = Double.NaN;
    double peak = Double.NaN;
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(master.pid()), "status"))) {
        if (line.startsWith("VmRSS:")) {
          rss = kib(line) / 1024.0;
        } else if (line.startsWith("VmHWM:")) {
          peak = kib(line) / 1024.0;
        }
      }
    } catch (IOException e) {
      // gone or not Linux: the figure is NaN and says so
    }
    return new double[] {rss, peak};
  }

  private static long kib(String line) {
    return Long.parseLong(line.replaceAll("[^0-9]", ""));
  }

  /**
   * Sends SIGTERM and waits for the exit; returns the seconds it took, or a negative number when
   * it had not exited after {@code patienceSeconds} and was killed.
   */
  double terminate(double patienceSeconds) {
    long t0 = System.nanoTime();
    return master.stop(Duration.ofMillis((long) (patienceSeconds * 1000))) ? (System.nanoTime() - t0) / 1e9 : -1;
  }

  /** The last {@code n} lines of the log. */
  String tail(int n) {
    return WorkerProcesses.tail(master.log(), n);
  }

  @Override
  public void close() {
    master.close();
  }
}
