package dev.gleaner.deploy.launch;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.CommandLineTest;
import dev.gleaner.deploy.launch.Signals;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTCondor worker template (deploy/htcondor/gleaner-worker.sub) against HTCondor's documented
 * submit syntax, and a worker JVM put through HTCondor's vacate sequence as the template sets it:
 * kill_sig, then SIGKILL after job_max_vacate_time. Debian does not package HTCondor, so its
 * daemons are not run here.
 */
class HtcondorTemplateTest {
  /** Submit commands of HTCondor's condor_submit manual that the template may use. */
  private static final Set<String> KNOWN = Set.of("universe", "executable", "arguments", "transfer_input_files",
      "should_transfer_files", "when_to_transfer_output", "request_cpus", "request_memory", "request_disk",
      "kill_sig", "job_max_vacate_time", "on_exit_remove", "max_retries", "output", "error", "log", "environment",
      "requirements", "rank", "getenv");
  private static final Pattern COMMAND = Pattern.compile("([A-Za-z_+][A-Za-z0-9_.]*)\\s*=\\s*(.*)");

  @TempDir
  Path dir;

  static Map<String, String> commands(Path sub) throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    boolean queued = false;
    for (String raw : Files.readAllLines(sub)) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      if (line.toLowerCase(Locale.ROOT).startsWith("queue")) {
        assertTrue(line.matches("(?i)queue( \\d+)?"), "a queue statement: " + line);
        queued = true;
        continue;
      }
      assertTrue(!queued, "commands after the queue statement apply to no job: " + line);
      Matcher m = COMMAND.matcher(line);
      assertTrue(m.matches(), "not a submit command: " + line);
      String key = m.group(1).toLowerCase(Locale.ROOT);
      assertTrue(KNOWN.contains(key), "not a documented submit command: " + key);
      assertTrue(out.put(key, m.group(2)) == null, "given twice: " + key);
    }
    assertTrue(queued, "no queue statement");
    return out;
  }

  static Path template() {
    Path p = Path.of("htcondor/gleaner-worker.sub");
    return Files.exists(p) ? p : Path.of("deploy/htcondor/gleaner-worker.sub");
  }

  @Test
  void theTemplateIsASubmitDescriptionForADrainingWorker() throws Exception {
    Map<String, String> c = commands(template());
    assertEquals("vanilla", c.get("universe"));
    assertEquals("SIGTERM", c.get("kill_sig"));
    // new-style arguments: the whole list in double quotes
    assertTrue(c.get("arguments").matches("\"worker .*\""), c.get("arguments"));
    int vacate = Integer.parseInt(c.get("job_max_vacate_time"));
    assertTrue(vacate >= 30, "a drain needs up to its 20 s timeout and a margin: " + vacate);
    // the arguments are the worker's options: gleaner parses them (with HTCondor's macros filled in)
    String args = c.get("arguments").replace("\"", "").replace("$(Cluster)", "7").replace("$(Process)", "0")
        .replace("$(request_cpus)", c.get("request_cpus"));
    CommandLineTest.Run help = CommandLineTest.gleaner(args.replaceFirst("worker", "worker --help").split(" "));
    assertEquals(0, help.code(), help.err());
  }

  /** kill_sig, then SIGKILL after job_max_vacate_time: the worker drains before it, and nothing is lost. */
  @Test
  void aWorkerVacatedAsHtcondorDoesLosesNothing() throws Exception {
    int vacate = Integer.parseInt(commands(template()).get("job_max_vacate_time"));
    try (LocalCluster c = new LocalCluster(dir); WorkerProcesses workers = new WorkerProcesses(dir)) {
      Process condor = workers.start("condor-7.0", c.master.port(), c.secretFile(), 1, 1, "128m",
          List.of("--max-speed", "4000000"));
      workers.start("condor-7.1", c.master.port(), c.secretFile(), 1, 1, "128m", List.of("--max-speed", "4000000"));
      String id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("to", "100000000")
          .setStrategy("self").setChunkUnits(5_000_000).setCheckpoints(4).setMinWorkers(2).build());
      try {
        await().atMost(Duration.ofSeconds(60)).until(() -> c.workerStatus("condor-7.0").getUnitsDone() > 0);
        long t0 = System.nanoTime();
        assertTrue(Signals.send(condor.pid(), "TERM"));
        boolean drained = Signals.awaitExit(condor, vacate);
        if (!drained) {
          Signals.send(condor.pid(), "KILL");
        }
        assertTrue(drained, "drained within job_max_vacate_time (" + vacate + " s), "
            + (System.nanoTime() - t0) / 1_000_000 + " ms");
        JobStatus s = c.awaitEnd(id, Duration.ofSeconds(240));
        assertEquals("DONE", s.getState(), s.getMessage());
        assertEquals("5761455 primes", s.getResult());
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(e.getMessage() + "\nworker logs:\n" + workers.logs(), e);
      }
    }
  }
}
