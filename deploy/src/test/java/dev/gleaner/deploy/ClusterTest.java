package dev.gleaner.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.PrimeSieve;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.worker.WorkerDaemon;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real worker daemons against a real master, in one JVM, on loopback. */
class ClusterTest {
  @TempDir
  Path dir;

  @Test
  void workersComputeAPrimesJobExactlyOnSeveralCores() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      c.worker("w1", 2, Set.of());
      c.worker("w2", 1, Set.of());
      String id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("from", "1000000000")
          .putParams("to", "1040000000").setCheckpoints(2).setMinWorkers(2).build());
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(60));
      long expected = new PrimeSieve().count(1_000_000_000L, 1_040_000_000L, ChunkComputation.Cancellation.NEVER);
      assertEquals(expected + " primes", s.getResult());
      assertEquals(2, s.getSharesCount(), "both workers took part");
    }
  }

  @Test
  void grepAndWcStreamAFileThroughRealWorkersExactly() throws Exception {
    Path file = dir.resolve("reads.fa");
    StringBuilder text = new StringBuilder();
    long matching = 0;
    long lines = 0;
    java.util.SplittableRandom r = new java.util.SplittableRandom(5);
    while (text.length() < 12_000_000) {
      String line = r.nextInt(50) == 0 ? ">read" + lines + " motif TTAGGG" : "ACGT".repeat(r.nextInt(1, 40));
      if (line.contains("TTAGGG")) {
        matching++;
      }
      text.append(line).append('\n');
      lines++;
    }
    java.nio.file.Files.writeString(file, text);
    try (LocalCluster c = new LocalCluster(dir)) {
      c.worker("w1", 1, Set.of());
      c.worker("w2", 1, Set.of());
      String grep = c.submit(JobSpec.newBuilder().setWorkload("grep").putParams("file", file.toString())
          .putParams("pattern", "TTAGGG").putParams("max-lines", "0").setChunkUnits(1_500_000).setCheckpoints(2)
          .setMinWorkers(2).build());
      JobStatus g = c.awaitEnd(grep, Duration.ofSeconds(60));
      assertEquals(matching + " matching lines\n... (" + matching + " more)", g.getResult());
      String wc = c.submit(JobSpec.newBuilder().setWorkload("wc").putParams("file", file.toString())
          .setChunkUnits(1_000_000).setMinWorkers(2).build());
      assertEquals(lines + " lines, " + text.length() + " bytes", c.awaitEnd(wc, Duration.ofSeconds(60)).getResult());
    }
  }

  @Test
  void execRunsTheProgramPerPieceAndConcatenatesInUnitOrder() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      c.worker("w1", 1, Set.of("sh"));
      c.worker("w2", 1, Set.of("sh"));
      String id = c.submit(JobSpec.newBuilder().setWorkload("exec").putParams("command", "sh -c 'echo {start}-{end}'")
          .putParams("from", "0").putParams("to", "100").setStrategy("self").setChunkUnits(25).setCheckpoints(1)
          .setMinWorkers(2).build());
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(60));
      assertEquals("DONE", s.getState(), s.getMessage());
      StringBuilder expected = new StringBuilder();
      for (int lo = 0; lo < 100; lo += 25) {
        int mid = lo + 13;
        expected.append(lo).append('-').append(mid).append('\n').append(mid).append('-').append(lo + 25).append('\n');
      }
      assertEquals(expected.toString(), s.getResult());
    }
  }

  /** A piece's result over the 16 MiB frame limit travels as several frames; the job ends DONE, whole. */
  @Test
  void aPieceResultOverOneFrameArrivesWhole() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      c.worker("w1", 1, Set.of("sh"));
      // each of the two pieces prints 17 MiB: its start and a newline, again and again
      String id = c.submit(JobSpec.newBuilder().setWorkload("exec")
          .putParams("command", "sh -c 'yes {start} | head -c 17825792'")
          .putParams("from", "1").putParams("to", "3").setStrategy("self").setChunkUnits(1).setCheckpoints(0).build());
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(120));
      assertEquals("DONE", s.getState(), s.getMessage());
      java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
      try (MasterClient client = MasterClient.connect(new HostPort("127.0.0.1", c.master.port()), LocalCluster.SECRET)) {
        client.result(id, got);
      }
      byte[] all = got.toByteArray();
      int n = 17 * 1024 * 1024;
      assertEquals(2L * n, all.length);
      for (int i = 0; i < all.length; i++) {
        byte expected = i % 2 == 1 ? (byte) '\n' : (byte) (i < n ? '1' : '2');
        if (all[i] != expected) {
          throw new AssertionError("byte " + i + " is " + all[i] + ", not " + expected);
        }
      }
    }
  }

  /** A master that takes larger frames than its workers: pieces are cut to the smaller limit, not lost. */
  @Test
  void aMasterWithLargerFramesThanItsWorkersStillGetsEveryPiece() throws Exception {
    try (LocalCluster c = new LocalCluster(dir, m -> m.withMaxFrameBytes(32 * 1024 * 1024))) {
      c.worker("w1", 1, Set.of("sh"));
      String id = c.submit(JobSpec.newBuilder().setWorkload("exec").putParams("command", "sh -c 'yes {start} | head -c 20971520'")
          .putParams("from", "1").putParams("to", "2").setStrategy("self").setChunkUnits(1).setCheckpoints(0).build());
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(120));
      assertEquals("DONE", s.getState(), s.getMessage());
      assertEquals(20971520, s.getResultSize());
    }
  }

  @Test
  void aPieceThatFailsOnceIsTriedAgainAndTheResultIsExact() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      c.worker("w1", 1, Set.of("sh"));
      c.worker("w2", 1, Set.of("sh"));
      java.nio.file.Path marks = java.nio.file.Files.createDirectories(dir.resolve("marks"));
      // each piece's first run fails (mkdir succeeds), its second prints (the mark exists)
      String id = c.submit(JobSpec.newBuilder().setWorkload("exec").putParams("command",
              "sh -c 'if mkdir " + marks + "/{start} 2>/dev/null; then echo transient >&2; exit 3; fi; echo {start}-{end}'")
          .putParams("from", "0").putParams("to", "40").setStrategy("self").setChunkUnits(10).setCheckpoints(0)
          .setMinWorkers(2).build());
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(60));
      assertEquals("DONE", s.getState(), s.getMessage());
      StringBuilder expected = new StringBuilder();
      for (int lo = 0; lo < 40; lo += 10) {
        expected.append(lo).append('-').append(lo + 10).append('\n');
      }
      assertEquals(expected.toString(), s.getResult());
    }
  }

  @Test
  void aFailingProgramFailsTheJobWithItsStderr() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      c.worker("w1", 1, Set.of("sh"));
      String id = c.submit(JobSpec.newBuilder().setWorkload("exec").putParams("command", "sh -c 'echo disk full >&2; exit 3'")
          .putParams("to", "10").build());
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(60));
      assertEquals("FAILED", s.getState());
      assertTrue(s.getMessage().contains("exited with status 3") && s.getMessage().contains("disk full"), s.getMessage());
      assertTrue(s.getMessage().contains("failed 3 times"), "tried three times first: " + s.getMessage());
    }
  }

  @Test
  void execWaitsForAWorkerThatAllowsIt() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      c.worker("no-exec", 1, Set.of());
      String id = c.submit(JobSpec.newBuilder().setWorkload("exec").putParams("command", "sh -c 'echo hi'")
          .putParams("to", "1").build());
      await().atMost(Duration.ofSeconds(10)).until(() -> c.job(id).getMessage().contains("accept workload 'exec'"));
      assertEquals("QUEUED", c.job(id).getState());
      c.worker("yes-exec", 1, Set.of("sh"));
      assertEquals("hi\n", c.awaitEnd(id, Duration.ofSeconds(60)).getResult());
    }
  }

  @Test
  void aDrainingWorkerReportsItsWorkAndLeavesWithoutCountingAnInterruption() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      WorkerDaemon leaving = c.worker("leaving", 1, Set.of());
      String id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("to", "3000000000")
          .setChunkUnits(3_000_000_000L).build());
      await().atMost(Duration.ofSeconds(30)).until(() -> c.workerStatus("leaving").getCurrentChunk().length() > 0);
      leaving.drain("test");
      assertEquals(WorkerDaemon.State.STOPPED, leaving.state());
      await().atMost(Duration.ofSeconds(10)).until(() -> c.workerStatus("leaving").getState().equals("GONE"));
      assertEquals(0, c.workerStatus("leaving").getInterruptions());
      long reported = c.job(id).getUnitsDone();
      assertTrue(reported > 0, "the drain reported the units computed so far");
      c.worker("staying", 2, Set.of());
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(120));
      assertEquals(PrimeSieveReference.PI_3E9 + " primes", s.getResult());
      assertEquals(reported, s.getSharesList().stream().filter(x -> x.getWorkerId().equals("leaving")).findFirst()
          .orElseThrow().getUnits());
    }
  }

  /** Published prime counts used as references. */
  static final class PrimeSieveReference {
    static final long PI_3E9 = 144_449_537L;
  }
}
