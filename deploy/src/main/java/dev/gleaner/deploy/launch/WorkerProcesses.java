package dev.gleaner.deploy.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Worker daemons started as local JVMs (demo, bench); {@link #close} ends every one of them. */
public final class WorkerProcesses implements AutoCloseable, WorkersJoined.Launched {
  private final Path logDir;
  private final Map<String, Process> processes = new LinkedHashMap<>();

  public WorkerProcesses(Path logDir) {
    this.logDir = logDir;
  }

  /**
   * Starts {@code gleaner worker} in a new JVM with this JVM's class path; output goes to ID.log, its
   * events ({@code --events-file}, see {@link WorkerEventsFile}) to ID.events.
   */
  public synchronized Process start(String id, int port, Path secretFile, int cores, double slowdown, String maxHeap)
      throws IOException {
    return start(id, port, secretFile, cores, slowdown, maxHeap, List.of());
  }

  /** As above, with more {@code gleaner worker} options ({@code --interrupt ...}, {@code --recv-rate ...}). */
  public synchronized Process start(String id, int port, Path secretFile, int cores, double slowdown, String maxHeap,
      List<String> options) throws IOException {
    return start(id, List.of(), "127.0.0.1:" + port, secretFile, cores, slowdown, maxHeap, options);
  }

  /**
   * As above, the JVM started by {@code wrapper} (such as {@code ip netns exec NAME}, which becomes
   * the JVM), joining the master at {@code master} (HOST:PORT).
   */
  public synchronized Process start(String id, List<String> wrapper, String master, Path secretFile, int cores,
      double slowdown, String maxHeap, List<String> options) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(wrapper);
    cmd.addAll(List.of(java, "-Xmx" + maxHeap, "-XX:+UseSerialGC", "-cp",
        System.getProperty("java.class.path"), EntryPoint.NAME, "worker", "--master", master,
        "--secret-file", secretFile.toString(), "--id", id, "--cores", Integer.toString(cores), "--events-file",
        events(id).toString()));
    if (slowdown > 1) {
      cmd.addAll(List.of("--slowdown", Double.toString(slowdown)));
    }
    cmd.addAll(options);
    // appended: a worker started again under its id (the chaos suite) keeps the earlier lives in its log
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log(id).toFile())).start();
    processes.put(id, p);
    return p;
  }

  /** The process of that worker, or null. */
  public synchronized Process process(String id) {
    return processes.get(id);
  }

  /** Every worker's log, for a failure message. */
  @Override
  public synchronized String logs() {
    StringBuilder sb = new StringBuilder();
    for (String id : processes.keySet()) {
      sb.append("--- ").append(id).append('\n').append(tail(log(id), 40)).append('\n');
    }
    return sb.toString();
  }

  public Path log(String id) {
    return logDir.resolve(id + ".log");
  }

  /** Its events file: when its failure clock started, its injected downs, its vacates ({@link WorkerEventsFile}). */
  public Path events(String id) {
    return logDir.resolve(id + ".events");
  }

  /** Throws, with the last lines of its log, if any worker process has exited. */
  @Override
  public synchronized void requireAlive() {
    for (Map.Entry<String, Process> e : processes.entrySet()) {
      if (!e.getValue().isAlive()) {
        throw new IllegalStateException("worker process " + e.getKey() + " exited with status "
            + e.getValue().exitValue() + "; last lines of its log:\n" + tail(log(e.getKey()), 10));
      }
    }
  }

  /**
   * These workers and the master JVM they join, started here with its output in {@code masterLog}, as a
   * wait for the workers looks at them: the master first.
   */
  public WorkersJoined.Launched withMaster(Process master, Path masterLog) {
    return new WorkersJoined.Launched() {
      @Override
      public void requireAlive() {
        if (!master.isAlive()) {
          throw new IllegalStateException("the master exited with status " + master.exitValue()
              + "; last lines of its log:\n" + tail(masterLog, 10));
        }
        WorkerProcesses.this.requireAlive();
      }

      @Override
      public String logs() {
        return "--- master\n" + tail(masterLog, 40) + "\n" + WorkerProcesses.this.logs();
      }
    };
  }

  public static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e.getMessage() + ")";
    }
  }

  /** SIGTERM (the workers drain), then SIGKILL for any still alive after 5 s. */
  @Override
  public synchronized void close() {
    for (Process p : processes.values()) {
      p.destroy();
    }
    for (Process p : processes.values()) {
      try {
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
    processes.clear();
  }
}
