package dev.gleaner.deploy.bench.swarm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The master the swarm runs against: {@code gleaner master} in a JVM of its own (this JVM's class
 * path, its own data directory and secret under the run's directory, on 127.0.0.1 and a free port),
 * its log in a file. Read from outside as a person would: the port and the workers declared down
 * from its log, its memory from {@code /proc/PID/status}; stopped with SIGTERM by its PID, and with
 * SIGKILL only if it has not exited 30 s later.
 */
final class SwarmMaster implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("gleaner master listening on port (\\d+)");
  /** The control loop's and the heartbeat monitor's lines for a worker declared down. */
  private static final Pattern DOWN = Pattern.compile("worker (\\S+) is down: |worker (\\S+): no heartbeat for ");

  private final Process process;
  private final Path log;
  private final int port;

  private SwarmMaster(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /** Starts the master with {@code javaOptions} (a heap size) and waits up to 60 s until it listens. */
  static SwarmMaster start(Path run, Path secret, List<String> javaOptions, List<String> masterArgs) throws IOException {
    Path log = run.resolve("master.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java));
    cmd.addAll(javaOptions);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.gleaner.deploy.Gleaner", "master",
        "--port", "0", "--bind", "127.0.0.1", "--data", run.resolve("data").toString(), "--secret-file",
        secret.toString()));
    cmd.addAll(masterArgs);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    try {
      while (System.nanoTime() < until) {
        Matcher m = LISTENING.matcher(Files.readString(log, StandardCharsets.UTF_8));
        if (m.find()) {
          return new SwarmMaster(p, log, Integer.parseInt(m.group(1)));
        }
        if (!p.isAlive()) {
          throw new IllegalStateException("the master exited with status " + p.exitValue() + ":\n" + tail(log, 20));
        }
        p.waitFor(50, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    p.destroyForcibly();
    throw new IllegalStateException("the master did not listen within 60 s:\n" + tail(log, 20));
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  /**
   * Its resident memory and its peak, in MiB, from {@code /proc/PID/status} ({@code VmRSS},
   * {@code VmHWM}); NaN where that cannot be read (not Linux, or it has exited).
   */
  double[] rssMib() {
    double rss = Double.NaN;
    double peak = Double.NaN;
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
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

  /** The ids of the workers its log declares down. */
  Set<String> declaredDown() throws IOException {
    Set<String> ids = new HashSet<>();
    Matcher m = DOWN.matcher(Files.readString(log, StandardCharsets.UTF_8));
    while (m.find()) {
      ids.add(m.group(1) != null ? m.group(1) : m.group(2));
    }
    return ids;
  }

  /** Lines of its log, for counting what it said. */
  List<String> logLines() throws IOException {
    return Files.readAllLines(log, StandardCharsets.UTF_8);
  }

  /**
   * Sends SIGTERM and waits for the exit; returns the seconds it took, or a negative number when
   * it had not exited after {@code patienceSeconds} and was killed.
   */
  double terminate(double patienceSeconds) {
    long t0 = System.nanoTime();
    process.destroy();
    try {
      if (process.waitFor((long) (patienceSeconds * 1000), TimeUnit.MILLISECONDS)) {
        return (System.nanoTime() - t0) / 1e9;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process.destroyForcibly();
    return -1;
  }

  /** The last {@code n} lines of the log. */
  String tail(int n) {
    return tail(log, n);
  }

  private static String tail(Path log, int n) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
