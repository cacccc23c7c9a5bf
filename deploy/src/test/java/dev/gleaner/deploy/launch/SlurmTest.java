package dev.gleaner.deploy.launch;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.Gleaner;
import dev.gleaner.deploy.launch.Signals;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.WorkerStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `gleaner slurm` and `gleaner cluster autoscale --slurm` against a real one-node Slurm started by the
 * test ({@link SlurmHost}), with a master on loopback: the workers run as Slurm jobs, know the job's
 * end, compute exact answers and drain when their job is cancelled.
 */
class SlurmTest {
  private static SlurmHost slurm;

  @TempDir
  Path dir;

  @BeforeAll
  static void startSlurm() throws Exception {
    slurm = SlurmHost.start();
  }

  @AfterAll
  static void stopSlurm() {
    if (slurm != null) {
      slurm.close();
    }
  }

  /** `gleaner ARGS` in its own JVM, with SLURM_CONF set, its output to {@code log}. */
  static Process gleaner(Path log, List<String> args) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:+UseSerialGC", "-cp",
        System.getProperty("java.class.path"), Gleaner.class.getName()));
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    pb.environment().putAll(slurm.env());
    return pb.start();
  }

  private List<String> workerJobOptions(LocalCluster c, Path slurmOut) throws IOException {
    return List.of("--master", "127.0.0.1:" + c.master.port(), "--secret-file", c.secretFile().toString(),
        "--time", "10", "--cores", "1", "--sbatch-arg=--output=" + slurmOut.resolve("slurm-%j.out"),
        "--worker-arg=--max-speed=3000000");
  }

  private String failure(String what, Path log, Path slurmOut) throws IOException {
    StringBuilder sb = new StringBuilder(what).append("\n--- gleaner\n").append(WorkerProcesses.tail(log, 30));
    try (var outs = Files.list(slurmOut)) {
      for (Path f : outs.toList()) {
        sb.append("\n--- ").append(f.getFileName()).append('\n').append(WorkerProcesses.tail(f, 20));
      }
    }
    return sb.append('\n').append(slurm.logs()).toString();
  }

  @Test
  void aSlurmJobRunsAWorkerThatKnowsTheJobsEndComputesAndDrainsOnScancel() throws Exception {
    Path slurmOut = Files.createDirectories(dir.resolve("slurm-out"));
    Path log = dir.resolve("gleaner-slurm.log");
    try (LocalCluster c = new LocalCluster(dir)) {
      List<String> args = new ArrayList<>(List.of("slurm", "--nodes", "1"));
      args.addAll(workerJobOptions(c, slurmOut));
      Process submit = gleaner(log, args);
      assertTrue(Signals.awaitExit(submit, 90), "gleaner slurm returned");
      String printed = Files.readString(log);
      assertEquals(0, submit.exitValue(), printed);
      Matcher m = Pattern.compile("submitted Slurm job (\\d+): 1 node for 10").matcher(printed);
      assertTrue(m.find(), printed);
      String job = m.group(1);
      assertTrue(printed.contains("scancel " + job), printed);
      String worker = "slurm-" + job + "-" + slurm.node;
      try {
        await().atMost(Duration.ofSeconds(90)).until(() -> c.workerStatus(worker).getState().equals("READY"));
        // the end Slurm gives the job, less the 120 s drain margin, is the worker's declared end
        String end = slurm.command("squeue", "-h", "-j", job, "-o", "%e").strip();
        long endMillis = LocalDateTime.parse(end).atZone(ZoneId.systemDefault()).toInstant().toEpochMilli();
        long declared = c.workerStatus(worker).getAvailableUntilMillis();
        assertTrue(Math.abs(declared - (endMillis - 120_000)) <= 2_000,
            "available until " + declared + ", the job ends at " + endMillis + " (" + end + ")");

        String id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("to", "10000000").build());
        JobStatus s = c.awaitEnd(id, Duration.ofSeconds(120));
        assertEquals("DONE", s.getState(), s.getMessage());
        assertEquals("664579 primes", s.getResult());

        slurm.command("scancel", job);
        await().atMost(Duration.ofSeconds(60)).until(() -> c.workerStatus(worker).getState().equals("GONE"));
        WorkerStatus gone = c.workerStatus(worker);
        assertEquals(0, gone.getInterruptions(), "a worker that drains and says goodbye is no interruption");
        await().atMost(Duration.ofSeconds(60)).until(() -> slurm.jobs("gleaner-worker").isEmpty());
        assertTrue(Files.readString(slurmOut.resolve("slurm-" + job + ".out")).contains("draining"),
            "the worker drained");
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(failure(e.getMessage(), log, slurmOut), e);
      }
    }
  }

  @Test
  void aJobSbatchRefusesIsOneLineWithItsMessage() throws Exception {
    Path log = dir.resolve("refused.log");
    Path secret = Files.writeString(dir.resolve("any-secret"), "0123456789abcdef0123");
    Process p = gleaner(log, List.of("slurm", "--nodes", "1", "--time", "10", "--master", "head:7070",
        "--secret-file", secret.toString(), "--partition", "nosuch"));
    assertTrue(Signals.awaitExit(p, 60), "gleaner slurm returned");
    assertEquals(1, p.exitValue());
    String err = Files.readString(log).strip();
    assertTrue(err.startsWith("gleaner: sbatch refused (exit 1): sbatch: error: ")
        && err.contains("Invalid partition name specified"), err);
    assertEquals(1, err.lines().count(), err);

    // autoscale stops at once when sbatch refuses its first job: the options are wrong, not the moment
    Path autoscaleLog = dir.resolve("autoscale-refused.log");
    try (LocalCluster c = new LocalCluster(dir)) {
      Process a = gleaner(autoscaleLog, List.of("cluster", "autoscale", "--slurm", "--min", "1", "--max", "2",
          "--time", "10", "--master", "127.0.0.1:" + c.master.port(), "--secret-file", c.secretFile().toString(),
          "--partition", "nosuch", "--poll", "1s"));
      try {
        assertTrue(Signals.awaitExit(a, 60), "autoscale returned");
        assertEquals(1, a.exitValue());
        String printed = Files.readString(autoscaleLog);
        assertTrue(printed.contains("\ngleaner: sbatch refused (exit 1): sbatch: error: ")
            && printed.contains("Invalid partition name specified"), printed);
      } finally {
        Signals.end(a);
      }
    }
  }

  @Test
  void autoscaleStopsWhenItsWorkerJobsEndBeforeTheirWorkerReachesTheMaster() throws Exception {
    Path slurmOut = Files.createDirectories(dir.resolve("slurm-out"));
    Path log = dir.resolve("autoscale-dying.log");
    try (LocalCluster c = new LocalCluster(dir)) {
      // every worker exits at once (an option it does not know): submitting more would fail forever
      List<String> args = new ArrayList<>(List.of("cluster", "autoscale", "--slurm", "--min", "1", "--max", "2",
          "--poll", "1s", "--worker-arg=--no-such-option"));
      args.addAll(workerJobOptions(c, slurmOut));
      Process a = gleaner(log, args);
      try {
        assertTrue(Signals.awaitExit(a, 120), failure("autoscale did not stop", log, slurmOut));
        assertEquals(1, a.exitValue(), failure("exit status", log, slurmOut));
        String printed = Files.readString(log);
        assertTrue(printed.contains("\ngleaner: 3 worker jobs in a row ended before their worker reached the master"),
            printed);
        assertEquals(0, connected(c));
      } finally {
        Signals.end(a);
      }
    }
  }

  @Test
  void autoscaleSubmitsWorkersUpToMaxForQueuedWorkAndComesBackToMin() throws Exception {
    Path slurmOut = Files.createDirectories(dir.resolve("slurm-out"));
    Path log = dir.resolve("autoscale.log");
    try (LocalCluster c = new LocalCluster(dir)) {
      List<String> args = new ArrayList<>(List.of("cluster", "autoscale", "--slurm", "--min", "1", "--max", "3",
          "--poll", "1s", "--cooldown", "3s", "--target-time", "5s"));
      args.addAll(workerJobOptions(c, slurmOut));
      Process autoscale = gleaner(log, args);
      try {
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.readString(log).contains("jobs named "));
        Matcher m = Pattern.compile("jobs named (\\S+) ").matcher(Files.readString(log));
        assertTrue(m.find());
        String name = m.group(1);
        // min at once, with no work; its worker logs in
        await().atMost(Duration.ofSeconds(60)).until(() -> slurm.jobs(name).size() == 1);
        await().atMost(Duration.ofSeconds(90)).until(() -> connected(c) == 1);

        // work that takes one worker at 3M units/s some 30 s: it wants max
        String id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("to", "100000000").build());
        await().atMost(Duration.ofSeconds(60)).until(() -> slurm.jobs(name).size() == 3);
        JobStatus s = c.awaitEnd(id, Duration.ofSeconds(120));
        assertEquals("DONE", s.getState(), s.getMessage());
        assertEquals("5761455 primes", s.getResult());

        // no work: back to min, the surplus cancelled and its workers drained
        await().atMost(Duration.ofSeconds(90)).until(() -> slurm.jobs(name).size() == 1 && connected(c) == 1);
        assertTrue(c.master.status(null).getWorkersList().stream().allMatch(w -> w.getInterruptions() == 0),
            "cancelled workers drained");

        // SIGTERM: it stops and cancels what it submitted
        Signals.send(autoscale.pid(), "TERM");
        assertTrue(Signals.awaitExit(autoscale, 90), "autoscale stopped");
        assertTrue(Files.readString(log).contains("stopped; cancelled Slurm jobs"), Files.readString(log));
        await().atMost(Duration.ofSeconds(60)).until(() -> slurm.jobs(name).isEmpty() && connected(c) == 0);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(failure(e.getMessage(), log, slurmOut), e);
      } finally {
        if (autoscale.isAlive()) {
          Signals.send(autoscale.pid(), "TERM");
          if (!Signals.awaitExit(autoscale, 60)) {
            Signals.end(autoscale);
          }
        }
      }
    }
  }

  private static long connected(LocalCluster c) {
    return c.master.status(null).getWorkersList().stream().filter(w -> !w.getState().equals("GONE")).count();
  }
}
