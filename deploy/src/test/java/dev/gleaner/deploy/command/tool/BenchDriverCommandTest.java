package dev.gleaner.deploy.command.tool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.deploy.Gleaner;
import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.testing.LocalCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gleaner bench driver}: each side-by-side workload, run with tiny sizes against a master
 * on loopback, prints one JSON document whose answer is the exact one (checked here against a
 * brute-force count, not the drivers' own check). No timing is asserted: only that the figures
 * are there and sane.
 */
class BenchDriverCommandTest {
  @TempDir
  Path dir;

  @Test
  void smallChunksCountsThePrimesOfItsUnitsInOneUnitChunks() throws Exception {
    try (LocalCluster c = cluster(2)) {
      JsonNode d = driver(c, "small-chunks", "--units", "300", "--workers", "2");
      assertEquals(primesBelow(300) + " primes", d.get("result").asText());
      assertEquals(300, d.get("chunks").asLong());
      assertTrue(d.get("chunksPerSecond").asDouble() > 0);
    }
  }

  @Test
  void latencyTimesEachJobOverOneConnectionAndOverNewOnes() throws Exception {
    try (LocalCluster c = cluster(2)) {
      JsonNode d = driver(c, "latency", "--jobs", "3");
      assertEquals(primesBelow(1000) + " primes", d.get("result").asText());
      assertEquals(3, d.get("connectedMillis").size());
      assertEquals(3, d.get("newConnectionMillis").size());
      assertTrue(d.get("connectedMedianMillis").asDouble() > 0);
      assertTrue(d.get("newConnectionP90Millis").asDouble() >= d.get("newConnectionMedianMillis").asDouble());
    }
  }

  @Test
  void inputsCountsEveryFileOfTheFolderAndTheMastersCpu() throws Exception {
    Path inputs = Files.createDirectories(dir.resolve("inputs"));
    long bytes = 0;
    for (int i = 0; i < 3; i++) {
      byte[] text = ("file " + i + "\n").repeat(1000 + 37 * i).getBytes(StandardCharsets.US_ASCII);
      Files.write(inputs.resolve("in-" + i + ".txt"), text);
      bytes += text.length;
    }
    try (LocalCluster c = cluster(2)) {
      JsonNode d = driver(c, "inputs", "--dir", inputs.toString(), "--master-pid",
          Long.toString(ProcessHandle.current().pid()));
      assertEquals(3, d.get("files").asInt());
      assertEquals(bytes, d.get("bytes").asLong());
      assertTrue(d.get("exact").asBoolean());
      assertTrue(d.get("masterCpuSeconds").asDouble() >= 0);
    }
  }

  @Test
  void streamCountsTheLinesAndBytesOfTheWholeFileInChunks() throws Exception {
    Path file = dir.resolve("stream.txt");
    StringBuilder sb = new StringBuilder();
    long lines = 0;
    while (sb.length() < 2_600_000) {
      sb.append("line ").append(lines++).append(" of the streamed file\n");
    }
    Files.writeString(file, sb, StandardCharsets.US_ASCII);
    try (LocalCluster c = cluster(2)) {
      JsonNode d = driver(c, "stream", "--file", file.toString(), "--chunk-mib", "1", "--workers", "2", "--no-warm-up");
      assertEquals(lines + " lines, " + sb.length() + " bytes", d.get("result").asText());
      assertEquals(1L << 20, d.get("chunkBytes").asLong());
    }
  }

  @Test
  void killLosesAWorkerProcessMidJobAndTheAnswerStaysExact() throws Exception {
    try (LocalCluster c = new LocalCluster(dir); WorkerProcesses workers = new WorkerProcesses(dir)) {
      workers.start("k1", c.master.port(), c.secretFile(), 1, 1, "128m");
      workers.start("k2", c.master.port(), c.secretFile(), 1, 1, "128m");
      Process victim = workers.process("k1");
      JsonNode d = driver(c, "kill", "--from", "0", "--units", "3000000", "--workers", "2",
          "--kill-pid", Long.toString(victim.pid()));
      assertEquals(primesBelow(3_000_000) + " primes", d.get("result").asText());
      assertTrue(d.get("exact").asBoolean());
      assertEquals(victim.pid(), d.get("killedPid").asLong());
      await().atMost(Duration.ofSeconds(30)).until(() -> !victim.isAlive());
      assertTrue(d.get("referenceSeconds").asDouble() > 0);
      assertTrue(d.get("floorSeconds").asDouble() >= 0);
    }
  }

  @Test
  void limitsMeasureTheDataDirectorysDurableWrites() throws Exception {
    JsonNode d = run("bench", "driver", "limits", "--data-dir", dir.resolve("data").toString(), "--json");
    assertTrue(d.get("limitFsyncMillisMedian").asDouble() > 0);
    assertTrue(d.get("limitSqliteCommitMillisP90").asDouble() >= d.get("limitSqliteCommitMillisMedian").asDouble());
    // iperf3 is measured where installed, else null with a note saying why
    assertEquals(d.get("limitIperf3SingleStreamMBps").isNull(), d.get("limitNotes").size() == 1);
  }

  @Test
  void anUnknownWorkloadIsOneLineNamingTheKnownOnes() {
    StringWriter err = new StringWriter();
    int code = Gleaner.run(new PrintWriter(new StringWriter()), new PrintWriter(err, true),
        "bench", "driver", "sleep", "--master", "127.0.0.1:1");
    assertEquals(1, code);
    assertTrue(err.toString().contains("unknown workload 'sleep'"), err.toString());
    assertFalse(err.toString().contains("Exception"), err.toString());
  }

  private LocalCluster cluster(int workers) throws Exception {
    LocalCluster c = new LocalCluster(dir);
    for (int i = 0; i < workers; i++) {
      c.worker("w" + i, 1, Set.of());
    }
    return c;
  }

  private JsonNode driver(LocalCluster c, String workload, String... options) throws Exception {
    List<String> args = new ArrayList<>(List.of("bench", "driver", workload, "--master", "127.0.0.1:" + c.master.port(),
        "--secret-file", c.secretFile().toString(), "--json"));
    args.addAll(List.of(options));
    JsonNode d = run(args.toArray(String[]::new));
    assertEquals(workload, d.get("workload").asText());
    assertTrue(d.get("exact").asBoolean());
    return d;
  }

  private static JsonNode run(String... args) throws Exception {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Gleaner.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    assertEquals(0, code, "gleaner " + String.join(" ", args) + " failed: " + err);
    return new ObjectMapper().readTree(out.toString());
  }

  /** pi(n - 1) by trial division: the brute-force reference. */
  private static long primesBelow(long n) {
    return LongStream.range(2, n).filter(BenchDriverCommandTest::isPrime).count();
  }

  private static boolean isPrime(long k) {
    for (long d = 2; d * d <= k; d++) {
      if (k % d == 0) {
        return false;
      }
    }
    return true;
  }
}
