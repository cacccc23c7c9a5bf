package dev.gleaner.deploy.testing;

import static org.awaitility.Awaitility.await;

import dev.gleaner.common.workload.ExecWorkload;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.WorkerStatus;
import dev.gleaner.worker.WorkerConfig;
import dev.gleaner.worker.WorkerDaemon;
import dev.gleaner.worker.Workers;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** A master and in-process worker daemons on loopback, all stopped by {@link #close}. */
public final class LocalCluster implements AutoCloseable {
  public static final byte[] SECRET = "cluster-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);

  public final MasterServer master;
  private final Path dir;
  private final List<WorkerDaemon> workers = new ArrayList<>();

  public LocalCluster(Path dir) throws InterruptedException {
    this(dir, c -> c);
  }

  /** A cluster whose master's configuration is adjusted (larger frames, ...). */
  public LocalCluster(Path dir, java.util.function.UnaryOperator<MasterConfig> tweak) throws InterruptedException {
    this.dir = dir;
    master = new MasterServer(tweak.apply(MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0),
        dir.resolve("data"), SECRET, Workloads.of(ExecWorkload.definitionOnly()))
        .withHeartbeat(Duration.ofMillis(200), Duration.ofSeconds(5)).withServe(dir))).start();
  }

  public WorkerDaemon worker(String id, int cores, Set<String> allowExec) {
    return worker(id, cores, allowExec, w -> w);
  }

  /** An in-process worker daemon whose exec programs run in {@code execDir}. */
  public WorkerDaemon worker(String id, int cores, Set<String> allowExec, Path execDir) {
    WorkerDaemon d = WorkerDaemon.start(WorkerConfig.defaults("127.0.0.1", master.port(), SECRET, id,
            Workers.workloads(getClass().getClassLoader(), allowExec, execDir))
        .withCores(cores).withBackoff(Duration.ofMillis(20), Duration.ofMillis(200)));
    workers.add(d);
    return d;
  }

  /** An in-process worker daemon, its configuration adjusted (slowed, interrupted, ...). */
  public WorkerDaemon worker(String id, int cores, Set<String> allowExec, java.util.function.UnaryOperator<WorkerConfig> tweak) {
    WorkerDaemon d = WorkerDaemon.start(tweak.apply(WorkerConfig.defaults("127.0.0.1", master.port(), SECRET, id,
            Workers.workloads(getClass().getClassLoader(), allowExec))
        .withCores(cores).withBackoff(Duration.ofMillis(20), Duration.ofMillis(200))));
    workers.add(d);
    return d;
  }

  public Path secretFile() throws IOException {
    Path f = dir.resolve("secret");
    if (!Files.exists(f)) {
      Files.write(f, SECRET);
    }
    return f;
  }

  public String submit(JobSpec spec) throws IOException {
    try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", master.port()), SECRET)) {
      return c.submit(spec);
    }
  }

  public JobStatus job(String id) {
    return master.status(id).getJobs(0);
  }

  public WorkerStatus workerStatus(String id) {
    return master.status(null).getWorkersList().stream().filter(w -> w.getWorkerId().equals(id)).findFirst()
        .orElse(WorkerStatus.getDefaultInstance());
  }

  public JobStatus awaitEnd(String id, Duration max) {
    await().atMost(max).until(() -> {
      String s = job(id).getState();
      return s.equals("DONE") || s.equals("DONE_PARTIAL") || s.equals("FAILED");
    });
    return job(id);
  }

  @Override
  public void close() {
    for (WorkerDaemon w : workers) {
      w.stop();
    }
    master.close();
  }
}
