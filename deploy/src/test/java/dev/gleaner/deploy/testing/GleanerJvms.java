package dev.gleaner.deploy.testing;

import dev.gleaner.deploy.Gleaner;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.protocol.StatusReply;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Gleaner commands run as processes of their own on the test's classpath (a master, relays, a
 * submit), their output in files of the test's folder; every one is ended at {@link #close} by its
 * PID. Workers have {@link dev.gleaner.deploy.launch.WorkerProcesses}.
 */
public final class GleanerJvms implements AutoCloseable {
  private final Path dir;
  private final List<Process> started = new ArrayList<>();

  public GleanerJvms(Path dir) {
    this.dir = dir;
  }

  private static List<String> gleaner(List<String> jvmOptions, List<String> args) {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Gleaner.class.getName()));
    cmd.addAll(args);
    return cmd;
  }

  /** Starts {@code gleaner ARGS} with a 256 MiB heap, both its streams to {@code log} in the folder. */
  public Process start(String log, List<String> args) throws IOException {
    Process p = new ProcessBuilder(gleaner(List.of("-Xmx256m", "-XX:+UseSerialGC"), args)).redirectErrorStream(true)
        .redirectOutput(dir.resolve(log).toFile()).start();
    started.add(p);
    return p;
  }

  public Process start(String log, String... args) throws IOException {
    return start(log, List.of(args));
  }

  /** Starts a client command, {@code gleaner ARGS}: its output to {@code out}, its errors to {@code err}. */
  public Process client(String out, String err, List<String> args) throws IOException {
    Process p = new ProcessBuilder(gleaner(List.of(), args)).redirectOutput(dir.resolve(out).toFile())
        .redirectError(dir.resolve(err).toFile()).start();
    started.add(p);
    return p;
  }

  /** A port free on this machine now. */
  public static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** The master's status (of {@code job}, or "" for none), by its shared secret; null while it cannot answer. */
  public static StatusReply status(int port, byte[] secret, String job) {
    try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", port), secret)) {
      return c.status(job);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  @Override
  public void close() throws InterruptedException {
    for (Process p : started) {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
