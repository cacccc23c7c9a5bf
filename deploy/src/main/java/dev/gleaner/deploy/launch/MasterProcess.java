package dev.gleaner.deploy.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A master daemon started as a JVM on this machine, the one way the tools (chaos, benches, replay)
 * start one: {@code gleaner master} with this JVM's class path on 127.0.0.1 and a free port, its
 * output appended to {@code DIR/master.log}, its port read from the file it writes once it listens
 * ({@code --port-file DIR/master.port}, see {@link PortFile}). Known by its pid; {@link #close} ends
 * it by that pid and nothing else.
 */
public final class MasterProcess implements AutoCloseable {
  /** How often the port file is looked for while the master starts. */
  private static final long POLL_MILLIS = 20;
  /** The lines of its log a failure report ends with. */
  private static final int TAIL_LINES = 20;

  private final Process process;
  private final Path log;
  private final int port;

  private MasterProcess(Process process, Path log, int port) {
    this.process = process;
    this.log = log;
    this.port = port;
  }

  /**
   * Starts {@code gleaner master} in a JVM with {@code javaOptions} (a heap size, a collector) and the master's
   * {@code options} (its data folder, credentials, ...), and waits until it listens, at most {@code limit}. A master
   * that exits first is reported at once, with the end of its log; one that does not listen in time is ended
   * and reported so.
   */
  public static MasterProcess start(Path dir, List<String> javaOptions, List<String> options, Duration limit)
      throws IOException {
    return start(dir, List.of(), "127.0.0.1", javaOptions, options, limit);
  }

  /**
   * As above, the JVM started by {@code wrapper} (a command that runs the rest, such as {@code ip netns
   * exec NAME}, and becomes it, so that the pid is still the master's), listening on {@code bind}.
   */
  public static MasterProcess start(Path dir, List<String> wrapper, String bind, List<String> javaOptions,
      List<String> options, Duration limit) throws IOException {
    Path log = dir.resolve("master.log");
    Path portFile = dir.resolve("master.port");
    // the port of a master started here before is not this one's
    Files.deleteIfExists(portFile);
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(wrapper);
    cmd.add(java);
    cmd.addAll(javaOptions);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), EntryPoint.NAME, "master", "--port", "0",
        "--bind", bind, "--port-file", portFile.toString()));
    cmd.addAll(options);
    // appended: a master started again in the same folder (the chaos runs) keeps the earlier lives in its log
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    try {
      return new MasterProcess(p, log, awaitPort(p, portFile, log, limit));
    } catch (IOException | RuntimeException e) {
      Signals.end(p);
      throw e;
    }
  }

  private static int awaitPort(Process p, Path portFile, Path log, Duration limit) throws IOException {
    long until = System.nanoTime() + limit.toNanos();
    while (true) {
      Integer port = PortFile.read(portFile);
      if (!p.isAlive()) {
        throw new IllegalStateException("the master (pid " + p.pid() + ") exited with status " + p.exitValue()
            + (port == null ? " before listening" : " just after it listened") + "; last lines of its log " + log
            + ":\n" + WorkerProcesses.tail(log, TAIL_LINES));
      }
      if (port != null) {
        return port;
      }
      if (System.nanoTime() - until >= 0) {
        throw new IllegalStateException("the master (pid " + p.pid() + ") did not listen within " + limit.toSeconds()
            + " s (no " + portFile + "); last lines of its log " + log + ":\n" + WorkerProcesses.tail(log, TAIL_LINES));
      }
      try {
        // returns at once if the master exits meanwhile
        p.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the master to listen", e);
      }
    }
  }

  /** The port it listens on, on the address it was told to bind (127.0.0.1 unless told otherwise). */
  public int port() {
    return port;
  }

  public Process process() {
    return process;
  }

  public long pid() {
    return process.pid();
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** Its log: everything it printed, appended across the masters started in the same folder. */
  public Path log() {
    return log;
  }

  /**
   * SIGTERM by its pid (the master stops as it does on Ctrl-C), then SIGKILL if it has not exited
   * within {@code patience}; true if it exited on the SIGTERM.
   */
  public boolean stop(Duration patience) {
    if (!process.isAlive()) {
      return true;
    }
    Signals.send(process.pid(), "TERM");
    if (Signals.awaitExit(process, patience.toMillis() / 1000.0)) {
      return true;
    }
    Signals.end(process);
    return false;
  }

  /** SIGKILL by its pid if it is alive, then waits for it to go (10 s at most). */
  @Override
  public void close() {
    Signals.end(process);
  }
}
