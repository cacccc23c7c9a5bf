package dev.gleaner.deploy.weekend;

import dev.gleaner.deploy.launch.MasterProcess;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The processes of a replay, all in its folder: a master JVM (its log {@code master.log}, its store
 * under {@code data}) and a worker JVM per trace node ({@code ID.log}); each one ended by its pid.
 */
final class ReplayProcesses {
  private final Path dir;
  private final WorkerProcesses workers;
  private MasterProcess master;
  private boolean ended;

  ReplayProcesses(Path dir) {
    this.dir = dir;
    this.workers = new WorkerProcesses(dir);
  }

  /**
   * Starts {@code gleaner master} on 127.0.0.1 with this run's data folder, {@code secretFile} and the
   * priors of {@code expectedUpMillis} up and {@code expectedDownMillis} down, and waits (60 s at
   * most) until it listens; its port.
   */
  int startMaster(Path secretFile, long expectedUpMillis, long expectedDownMillis) throws IOException {
    master = MasterProcess.start(dir, List.of("-Xmx256m", "-XX:+UseSerialGC"), List.of("--data",
        dir.resolve("data").toString(), "--secret-file", secretFile.toString(),
        "--expected-up", String.format(Locale.ROOT, "%.3fs", expectedUpMillis / 1000.0),
        "--expected-down", String.format(Locale.ROOT, "%.3fs", expectedDownMillis / 1000.0)), Duration.ofSeconds(60));
    return master.port();
  }

  /** The worker JVMs. */
  WorkerProcesses workers() {
    return workers;
  }

  /** The master and the workers as a wait for the workers looks at them. */
  WorkersJoined.Launched launched() {
    return workers.withMaster(master.process(), master.log());
  }

  /** Throws, with the end of its log, if a worker or the master has exited. */
  void requireAlive() {
    workers.requireAlive();
    requireMasterAlive();
  }

  private void requireMasterAlive() {
    if (!master.alive()) {
      throw new IllegalStateException("the master exited with status " + master.process().exitValue()
          + "; last lines of its log:\n" + WorkerProcesses.tail(master.log(), 10));
    }
  }

  /** Workers first (SIGTERM, then SIGKILL after 5 s, by pid), then the master (SIGTERM, then SIGKILL). */
  synchronized void endAll() {
    if (ended) {
      return;
    }
    ended = true;
    workers.close();
    if (master != null) {
      master.stop(Duration.ofSeconds(10));
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
