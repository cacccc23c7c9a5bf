package dev.gleaner.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.PrimeSieve;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.testing.GleanerJvms;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.StatusReply;
import dev.gleaner.protocol.WorkerStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two worker processes reach the master through a relay process, which is killed with SIGKILL while
 * they compute: they connect to the master directly (the next upstream on their list), the master
 * takes up the chunks they kept computing, and the job ends exact with every unit computed once.
 * Every process started here is ended here, by its PID.
 */
class RelayProcessesTest {
  private static final long UNITS = 60_000_000;

  @TempDir
  Path dir;





  private static String log(Path dir) throws IOException {
    return Files.readString(dir.resolve("master.log"));
  }

  /** The chunk ids ({@code job-1#5}) in the lists that {@code line}'s group matches, over the whole log. */
  private static Set<String> chunks(String log, String line) {
    Set<String> ids = new HashSet<>();
    Matcher m = Pattern.compile(line).matcher(log);
    while (m.find()) {
      Matcher id = Pattern.compile("job-\\d+#\\d+").matcher(m.group(1));
      while (id.find()) {
        ids.add(id.group());
      }
    }
    return ids;
  }

  private static double metric(StatusReply s, String name) {
    return s.getMetricsOrDefault(name, Double.NaN);
  }

  @Test
  void workersGoOnThroughTheMasterWhenTheirRelayIsKilledAndNothingIsComputedTwice() throws Exception {
    byte[] secret = "relay-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);
    Path secretFile = dir.resolve("secret");
    Files.write(secretFile, secret);
    int masterPort = GleanerJvms.freePort();
    int relayPort = GleanerJvms.freePort();
    try (GleanerJvms jvms = new GleanerJvms(dir); WorkerProcesses workers = new WorkerProcesses(dir)) {
      try {
        jvms.start("master.log", "master", "--port", Integer.toString(masterPort), "--bind", "127.0.0.1", "--data",
            dir.resolve("data").toString(), "--secret-file", secretFile.toString());
        await().atMost(Duration.ofSeconds(60)).until(() -> GleanerJvms.status(masterPort, secret, "") != null);
        Process relay = jvms.start("relay.log", "relay", "--id", "r1", "--port", Integer.toString(relayPort), "--bind",
            "127.0.0.1", "--master", "127.0.0.1:" + masterPort, "--secret-file", secretFile.toString());
        await().atMost(Duration.ofSeconds(60)).until(() -> {
          StatusReply s = GleanerJvms.status(masterPort, secret, "");
          return s != null && s.getRelaysCount() == 1;
        });
        String upstreams = "127.0.0.1:" + relayPort + ",127.0.0.1:" + masterPort;
        for (String id : List.of("w1", "w2")) {
          // 2M units/s each: the job takes about 15 s, its pieces half a second
          workers.start(id, List.of(), upstreams, secretFile, 1, 1, "128m", List.of("--max-speed", "2000000"));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> {
          StatusReply s = GleanerJvms.status(masterPort, secret, "");
          return s != null && s.getWorkersCount() == 2
              && s.getWorkersList().stream().allMatch(w -> w.getVia().equals("r1"));
        });
        Path jobFile = dir.resolve("job.yaml");
        Files.writeString(jobFile, "workload: primes\nparams: {to: " + UNITS + "}\nchunk-units: 5000000\n"
            + "checkpoints: 5\nmin-workers: 2\n");
        Process submit = jvms.client("submit.out", "submit.err", List.of("submit", jobFile.toString(),
            "--master", "127.0.0.1:" + masterPort, "--secret-file", secretFile.toString(), "--poll-ms", "200"));
        await().atMost(Duration.ofSeconds(120)).until(() -> {
          StatusReply s = GleanerJvms.status(masterPort, secret, "job-1");
          return s != null && s.getJobsCount() == 1 && s.getJobs(0).getUnitsDone() >= UNITS / 4;
        });
        relay.destroyForcibly();
        assertTrue(relay.waitFor(10, TimeUnit.SECONDS), "the relay process ended");

        assertTrue(submit.waitFor(240, TimeUnit.SECONDS), "gleaner submit should have ended");
        String err = Files.readString(dir.resolve("submit.err"));
        assertEquals(0, submit.exitValue(), err);
        long expected = new PrimeSieve().count(0, UNITS, ChunkComputation.Cancellation.NEVER);
        assertEquals(expected + " primes", Files.readString(dir.resolve("submit.out")).strip(), err);
        StatusReply end = GleanerJvms.status(masterPort, secret, "job-1");
        JobStatus job = end.getJobs(0);
        assertEquals("DONE", job.getState(), job.getMessage());
        // every worker on the master directly now, the relay gone from the status
        await().atMost(Duration.ofSeconds(30)).until(() -> {
          StatusReply s = GleanerJvms.status(masterPort, secret, "");
          return s != null && s.getRelaysCount() == 0 && s.getWorkersList().stream()
              .allMatch(w -> w.getState().equals("READY") && w.getVia().isEmpty());
        });
        // no piece came in vain (the work queued for them and not started may have moved: it was computed
        // nowhere yet); one may come twice: a piece the master made durable while its acknowledgement died
        // with the relay is sent again and dropped: here a piece every half second, so one per worker at most
        // (it was computed once: the workers' counts below)
        assertTrue(log(dir).contains("kept computing"), "the workers claimed the chunks they computed on");
        assertTrue(metric(end, "gleaner.pieces.duplicate") <= 2, "duplicate pieces: "
            + metric(end, "gleaner.pieces.duplicate"));
        assertEquals(0.0, metric(end, "gleaner.pieces.discarded"), "discarded pieces");
        // the workers' own counts (their heartbeats): every unit computed once, nothing done again
        await().atMost(Duration.ofSeconds(30)).until(() -> {
          StatusReply s = GleanerJvms.status(masterPort, secret, "");
          return s != null && s.getWorkersList().stream().mapToLong(WorkerStatus::getUnitsComputed).sum() >= UNITS;
        });
        assertEquals(UNITS, GleanerJvms.status(masterPort, secret, "").getWorkersList().stream()
            .mapToLong(WorkerStatus::getUnitsComputed).sum(), "units computed by the two worker processes");
        assertTrue(!log(dir).contains("did not come back"), "no chunk waited for its worker in vain");
        // the store: no chunk of theirs was withdrawn (its unsaved units sent to be computed again) but one the
        // worker never had: the master may hand one worker's work to the other in the milliseconds between the
        // relay's end and its seeing the other's connection end; that chunk is held and not claimed back
        dev.gleaner.deploy.bench.tree.ChunkLedger.Counts ledger = dev.gleaner.deploy.bench.tree.ChunkLedger.of(
            dir.resolve("data"), "job-1");
        String masterLog = log(dir);
        Set<String> unclaimed = chunks(masterLog, "is down: connection closed; it held \\[(.*)\\]");
        unclaimed.removeAll(chunks(masterLog, "kept computing \\d+ chunk\\(s\\) while away: \\[(.*)\\]"));
        assertTrue(ledger.withdrawn() <= unclaimed.size(), ledger + "; held and not claimed back: " + unclaimed);
        assertTrue(ledger.done() > 0, "the store holds the job's chunks: " + ledger);
        for (String id : List.of("w1", "w2")) {
          String wlog = Files.readString(workers.log(id));
          assertTrue(wlog.contains("connected to upstream 127.0.0.1:" + masterPort), "worker " + id
              + " moved on to the master:\n" + wlog);
        }
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(e.getMessage() + "\nrelay log:\n" + WorkerProcesses.tail(dir.resolve("relay.log"), 30)
            + "\nmaster log:\n" + WorkerProcesses.tail(dir.resolve("master.log"), 40) + "\nworker logs:\n"
            + workers.logs(), e);
      }
    }
  }
}
