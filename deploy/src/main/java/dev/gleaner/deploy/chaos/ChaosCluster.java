package dev.gleaner.deploy.chaos;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.MasterProcess;
import dev.gleaner.deploy.launch.Signals;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.launch.WorkersJoined;
import dev.gleaner.master.FaultFile;
import dev.gleaner.protocol.StatusReply;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The processes of one chaos run on loopback: a master JVM ({@link MasterProcess}: its own data directory, a
 * shared secret, {@code --serve} on the run's input folder) and worker JVMs, each behind its own {@link ChaosProxy}.
 * Every process is known by its {@link Process} (and so its pid); {@link #close} ends each of them
 * with SIGKILL by pid, and nothing else.
 */
final class ChaosCluster implements AutoCloseable {
  static final double HEARTBEAT_INTERVAL = 0.5;
  static final double HEARTBEAT_TIMEOUT = 3;

  private final Path dir;
  private final Path data;
  private final Path serve;
  private final Path secretFile;
  private final Path masterLog;
  /** The master's fault file ({@code --fault-file}): store-full, clock-offset. */
  private final Path faultFile;
  private boolean storeFull;
  private long clockOffsetSeconds;
  private final byte[] secret;
  private final double maxSpeed;
  private final WorkerProcesses workers;
  private final Map<String, ChaosProxy> proxies = new LinkedHashMap<>();
  private final ReportedPieces reported = new ReportedPieces();
  private volatile int masterPort;
  private MasterProcess master;

  /** A cluster in {@code dir} whose workers compute at most {@code maxSpeed} units/s each; nothing starts yet. */
  ChaosCluster(Path dir, Path serve, double maxSpeed) throws IOException {
    this.dir = dir;
    this.data = dir.resolve("data");
    this.serve = serve;
    this.secretFile = dir.resolve("secret");
    this.masterLog = dir.resolve("master.log");
    this.faultFile = dir.resolve("faults");
    this.secret = ("chaos-secret-" + dir.getFileName() + "-0123456789").getBytes(StandardCharsets.UTF_8);
    this.maxSpeed = maxSpeed;
    Files.write(secretFile, secret);
    this.workers = new WorkerProcesses(dir);
  }

  /** Starts the master, then {@code n} workers w1..wn each behind its proxy. */
  void start(int n) throws IOException {
    startMaster();
    for (int i = 1; i <= n; i++) {
      String id = "w" + i;
      proxies.put(id, new ChaosProxy(id, () -> masterPort, reported));
      startWorker(id);
    }
  }

  /** Makes the master's store full (no new page), or lets it grow again. */
  synchronized void storeFull(boolean full) throws IOException {
    storeFull = full;
    writeFaults();
  }

  /** Moves the master's wall clock by {@code seconds}; returns how far off it is now. */
  synchronized long clockOffset(long seconds) throws IOException {
    clockOffsetSeconds += seconds;
    writeFaults();
    return clockOffsetSeconds;
  }

  private void writeFaults() throws IOException {
    // whole or not at all: the master reads the file four times a second
    Path next = faultFile.resolveSibling("faults.next");
    Files.writeString(next, (storeFull ? "store-full\n" : "") + "clock-offset " + clockOffsetSeconds + "\n");
    Files.move(next, faultFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /** Starts the master JVM on the data directory and waits (60 s at most) until it listens. */
  void startMaster() throws IOException {
    master = MasterProcess.start(dir, List.of("-Xmx256m", "-XX:+UseSerialGC"), List.of("--data", data.toString(),
        "--secret-file", secretFile.toString(), "--serve", serve.toString(),
        "--heartbeat-interval", Double.toString(HEARTBEAT_INTERVAL),
        "--heartbeat-timeout", Double.toString(HEARTBEAT_TIMEOUT), "--fault-file", faultFile.toString()),
        Duration.ofSeconds(60));
    masterPort = master.port();
  }

  /** Starts worker {@code id} (again), behind its proxy. */
  Process startWorker(String id) throws IOException {
    return workers.start(id, proxies.get(id).port(), secretFile, 1, 1, "128m",
        List.of("--max-speed", String.format(Locale.ROOT, "%.0f", maxSpeed), "--allow-exec", "sh"));
  }

  Process master() {
    return master.process();
  }

  Process worker(String id) {
    return workers.process(id);
  }

  ChaosProxy proxy(String id) {
    return proxies.get(id);
  }

  List<String> workerIds() {
    return List.copyOf(proxies.keySet());
  }

  ReportedPieces reported() {
    return reported;
  }

  Path dataDir() {
    return data;
  }

  Path dir() {
    return dir;
  }

  /** The jumps of the master's wall clock, one JSON line each, as its fault injection applied them. */
  Path clockShifts() {
    return FaultFile.shiftsFile(faultFile);
  }

  /** Every master's log, one after another (appended at each restart). */
  String masterLog() throws IOException {
    return Files.readString(masterLog);
  }

  /** The master's status (one job, or all with null), on a new connection. */
  StatusReply status(String jobId) throws IOException {
    try (MasterClient c = client()) {
      return c.status(jobId);
    }
  }

  /** The whole result of an ended job (a status holds only its start). */
  String result(String jobId) throws IOException {
    try (MasterClient c = client()) {
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      c.result(jobId, out);
      return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  MasterClient client() throws IOException {
    return MasterClient.connect(new HostPort("127.0.0.1", masterPort), secret);
  }

  /** The master and the workers as a wait for the workers looks at them. */
  WorkersJoined.Launched launched() {
    return workers.withMaster(master.process(), masterLog);
  }

  /** The last lines of the master's and every worker's log, for a failure report. */
  String logs() {
    return launched().logs();
  }

  static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /** SIGKILL to every worker and the master, by pid; the proxies close. */
  @Override
  public void close() {
    for (String id : proxies.keySet()) {
      Signals.end(workers.process(id));
    }
    if (master != null) {
      master.close();
    }
    for (ChaosProxy p : proxies.values()) {
      p.close();
    }
    workers.close();
  }
}
