package dev.gleaner.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The master process is killed with SIGKILL while worker processes compute, and started again on
 * its data directory: the workers keep computing, claim their chunks from the new master and
 * report them, and the job ends exact. Every process started here is ended here, by its PID.
 */
class MasterRestartTest {
  @TempDir
  Path dir;

  private final List<Process> masters = new ArrayList<>();

  private Process master(int port, Path secret, String log) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p = new ProcessBuilder(List.of(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
        Gleaner.class.getName(), "master", "--port", Integer.toString(port), "--bind", "127.0.0.1",
        "--data", dir.resolve("data").toString(), "--secret-file", secret.toString()))
        .redirectErrorStream(true).redirectOutput(dir.resolve(log).toFile()).start();
    masters.add(p);
    return p;
  }

  private static StatusReply status(int port, byte[] secret, String job) throws IOException {
    try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", port), secret)) {
      return c.status(job);
    }
  }

  private static boolean answers(int port, byte[] secret) {
    try {
      status(port, secret, "");
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  @Test
  void workersKeepComputingThroughAMasterKillAndTheRestartedMasterTakesTheirChunks() throws Exception {
    byte[] secret = "restart-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);
    Path secretFile = dir.resolve("secret");
    Files.write(secretFile, secret);
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try (WorkerProcesses workers = new WorkerProcesses(dir)) {
      try {
        Process first = master(port, secretFile, "master-1.log");
        await().atMost(Duration.ofSeconds(60)).until(() -> answers(port, secret));
        for (String id : List.of("p1", "p2")) {
          workers.start(id, port, secretFile, 1, 3, "128m");
        }
        // pi(10^9) = 50,847,534; pieces of 15.6M units take a few seconds each here. The job is
        // submitted, and followed, by `gleaner submit` as a user runs it
        Path jobFile = dir.resolve("job.yaml");
        Files.writeString(jobFile, "workload: primes\nparams: {to: 1e9}\nchunk-units: 62500000\ncheckpoints: 3\n"
            + "min-workers: 2\n");
        Process submit = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"), Gleaner.class.getName(), "submit", jobFile.toString(),
            "--master", "127.0.0.1:" + port, "--secret-file", secretFile.toString(), "--poll-ms", "200"))
            .redirectError(dir.resolve("submit.err").toFile()).redirectOutput(dir.resolve("submit.out").toFile()).start();
        masters.add(submit);
        String job = "job-1";
        await().atMost(Duration.ofSeconds(60)).until(() -> status(port, secret, "").getJobsCount() == 1
            && status(port, secret, job).getJobs(0).getUnitsDone() > 0);
        first.destroyForcibly();
        assertTrue(first.waitFor(10, TimeUnit.SECONDS));

        master(port, secretFile, "master-2.log");
        // the client reconnects by itself and follows the job to its end
        assertTrue(submit.waitFor(240, TimeUnit.SECONDS), "gleaner submit should have ended");
        String err = Files.readString(dir.resolve("submit.err"));
        assertEquals(0, submit.exitValue(), err);
        assertEquals("50847534 primes", Files.readString(dir.resolve("submit.out")).strip(), err);
        assertTrue(err.contains("lost the master") && err.contains("reconnected to the master; following job-1"), err);
        JobStatus s = status(port, secret, job).getJobs(0);
        assertEquals("DONE", s.getState(), s.getMessage());
        assertEquals(1, status(port, secret, "").getJobsCount(), "one job, however often the client reconnected");
        String log = Files.readString(dir.resolve("master-2.log"));
        assertTrue(log.contains("kept computing"), "the workers claimed the chunks they computed on:\n" + log);
        assertTrue(!log.contains("did not come back"), "no chunk waited for a worker in vain:\n" + log);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(e.getMessage() + "\nworker logs:\n" + workers.logs(), e);
      } finally {
        for (Process p : masters) {
          p.destroyForcibly();
          p.waitFor(10, TimeUnit.SECONDS);
        }
      }
    }
  }
}
