package dev.gleaner.deploy.weekend;

import dev.gleaner.deploy.launch.EntryPoint;
import dev.gleaner.deploy.launch.Signals;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The processes of a replay, all in its folder: a master JVM (its log {@code master.log}, its store
 * under {@code data}) and a worker JVM per trace node ({@code ID.log}); each one ended by its pid.
 */
final class ReplayProcesses {
  private static final Pattern LISTENING = Pattern.compile("gleaner master listening on port (\\d+)");

  private final Path dir;
  private final WorkerProcesses workers;
  private Process master;
  private boolean ended;

  ReplayProcesses(Path dir) {
    this.dir = dir;
    this.workers = new WorkerProcesses(dir);
  }

  /**
   * Starts {@code gleaner master} on 127.0.0.1 with this run's data folder, {@code secretFile} and the
   * prior of {@code expectedUpMillis}, and waits (60 s at most) until it listens; its port.
   */
  int startMaster(Path secretFile, long expectedUpMillis) throws IOException {
    Path log = dir.resolve("master.log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        EntryPoint.NAME, "master", "--port", "0", "--bind", "127.0.0.1", "--data",
        dir.resolve("data").toString(), "--secret-file", secretFile.toString(),
        "--expected-up", String.format(Locale.ROOT, "%.3fs", expectedUpMillis / 1000.0));
    master = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < until) {
      Matcher m = LISTENING.matcher(Files.readString(log));
      if (m.find()) {
        return Integer.parseInt(m.group(1));
      }
      if (!master.isAlive()) {
        throw new IllegalStateException("the master exited with status " + master.exitValue()
            + " before listening:\n" + WorkerProcesses.tail(log, 20));
      }
      pause(50);
    }
    throw new IllegalStateException("the master did not listen within 60 s:\n" + WorkerProcesses.tail(log, 20));
  }

  /** The worker JVMs. */
  WorkerProcesses workers() {
    return workers;
  }

  /** The master and the workers as a wait for the workers looks at them. */
  WorkersJoined.Launched launched() {
    return workers.withMaster(master, dir.resolve("master.log"));
  }

  /** Throws, with the end of its log, if a worker or the master has exited. */
  void requireAlive() {
    workers.requireAlive();
    requireMasterAlive();
  }

  private void requireMasterAlive() {
    if (!master.isAlive()) {
      throw new IllegalStateException("the master exited with status " + master.exitValue()
          + "; last lines of its log:\n" + WorkerProcesses.tail(dir.resolve("master.log"), 10));
    }
  }

  /** Workers first (SIGTERM, then SIGKILL after 5 s, by pid), then the master (SIGTERM, then SIGKILL). */
  synchronized void endAll() {
    if (ended) {
      return;
    }
    ended = true;
    workers.close();
    if (master != null && master.isAlive()) {
      Signals.send(master.pid(), "TERM");
      if (!Signals.awaitExit(master, 10)) {
        Signals.end(master);
      }
    }
  }

  /** Waits {@code millis}; an interrupt ends the replay. */
  static void pause(long millis) {
    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(millis));
    if (Thread.interrupted()) {
      throw new IllegalStateException("interrupted while starting the replay's processes");
    }
  }
}
