package dev.gleaner.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.workload.ChunkComputation;
import dev.gleaner.common.workload.PrimeSieve;
import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.WorkerStatus;
import dev.gleaner.worker.WorkerDaemon;
import dev.gleaner.worker.owner.OwnerConfig;
import dev.gleaner.worker.owner.OwnerFile;
import dev.gleaner.worker.owner.OwnerPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An owner comes back to a lent computer in the middle of a job: real worker daemons, a real master. */
class OwnerReturnsTest {
  private static final Duration GRACE = Duration.ofSeconds(5);

  @TempDir
  Path dir;

  @Test
  void theWorkerVacatesWithinItsGraceStaysConnectedAndWorksAgainOnceTheOwnerLeaves() throws Exception {
    Path owner = dir.resolve("owner-w1");
    OwnerConfig policy = OwnerConfig.defaults(null, List.of(new OwnerFile(owner))).withIdleBeforeStart(Duration.ZERO)
        .withVacateGrace(GRACE).withPoll(Duration.ofMillis(100));
    long from = 1_000_000_000L;
    long to = from + 6_000_000L;
    try (LocalCluster c = new LocalCluster(dir)) {
      WorkerDaemon w1 = c.worker("w1", 1, Set.of(), w -> w.withMaxSpeed(250_000).withOwner(policy));
      c.worker("w2", 1, Set.of(), w -> w.withMaxSpeed(250_000));
      String id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("from", Long.toString(from))
          .putParams("to", Long.toString(to)).setCheckpoints(4).setMinWorkers(2).build());
      await().atMost(Duration.ofSeconds(60)).until(() -> c.workerStatus("w1").getUnitsDone() > 0
          && !c.workerStatus("w1").getCurrentChunk().isEmpty());

      Files.writeString(owner, "busy\n");
      await().atMost(Duration.ofSeconds(30)).until(() -> c.workerStatus("w1").getState().equals("AWAY"));
      assertEquals(OwnerPolicy.State.AWAY, w1.ownerState());
      assertTrue(w1.lastVacate().compareTo(GRACE) <= 0, "vacated in " + w1.lastVacate() + ", grace " + GRACE);
      WorkerStatus away = c.workerStatus("w1");
      assertTrue(away.getAwayReason().contains("the owner is back"), away.getAwayReason());
      assertTrue(away.getCurrentChunk().isEmpty(), "its chunks were taken back: " + away.getCurrentChunk());
      assertTrue(away.getRiskInterruptions() >= 1, "the vacate is an interruption in its history");
      assertEquals(WorkerDaemon.State.CONNECTED, w1.state(), "it stays connected");
      long before = away.getUnitsDone();

      Files.delete(owner);
      await().atMost(Duration.ofSeconds(30)).until(() -> c.workerStatus("w1").getState().equals("READY"));
      await().atMost(Duration.ofSeconds(60)).until(() -> c.workerStatus("w1").getUnitsDone() > before
          || c.job(id).getState().startsWith("DONE"));
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(120));
      long expected = new PrimeSieve().count(from, to, ChunkComputation.Cancellation.NEVER);
      assertEquals("DONE", s.getState(), s.getMessage());
      assertEquals(expected + " primes", s.getResult());
      assertTrue(c.workerStatus("w1").getUnitsDone() > before, "w1 took work again once its owner left");
    }
  }

  @Test
  void aVacateDuringAStreamedGrepLosesNoLineAndCountsNoneTwice() throws Exception {
    Path file = dir.resolve("reads.fa");
    StringBuilder text = new StringBuilder();
    long matching = 0;
    java.util.SplittableRandom r = new java.util.SplittableRandom(13);
    while (text.length() < 8_000_000) {
      String line = r.nextInt(40) == 0 ? ">read motif TTAGGG" : "ACGT".repeat(r.nextInt(1, 40));
      matching += line.contains("TTAGGG") ? 1 : 0;
      text.append(line).append('\n');
    }
    Files.writeString(file, text);
    Path owner = dir.resolve("owner-w1");
    OwnerConfig policy = OwnerConfig.defaults(null, List.of(new OwnerFile(owner))).withIdleBeforeStart(Duration.ZERO)
        .withVacateGrace(GRACE).withPoll(Duration.ofMillis(100));
    try (LocalCluster c = new LocalCluster(dir)) {
      WorkerDaemon w1 = c.worker("w1", 1, Set.of(), w -> w.withMaxSpeed(1_000_000).withOwner(policy));
      c.worker("w2", 1, Set.of(), w -> w.withMaxSpeed(1_000_000));
      String id = c.submit(JobSpec.newBuilder().setWorkload("grep").putParams("file", file.toString())
          .putParams("pattern", "TTAGGG").putParams("max-lines", "0").setChunkUnits(1_000_000).setCheckpoints(3)
          .setMinWorkers(2).build());
      await().atMost(Duration.ofSeconds(60)).until(() -> c.workerStatus("w1").getUnitsDone() > 0
          && !c.workerStatus("w1").getCurrentChunk().isEmpty());
      Files.writeString(owner, "busy\n");
      await().atMost(Duration.ofSeconds(30)).until(() -> c.workerStatus("w1").getState().equals("AWAY"));
      assertTrue(w1.lastVacate().compareTo(GRACE) <= 0, "vacated in " + w1.lastVacate() + ", grace " + GRACE);
      Files.writeString(owner, "idle\n");
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(120));
      assertEquals("DONE", s.getState(), s.getMessage());
      assertEquals(matching + " matching lines\n... (" + matching + " more)", s.getResult());
      assertEquals(text.length(), s.getUnitsDone());
    }
  }

  @Test
  void aShortVisitSuspendsTheWorkerWithItsChunksAndItGoesOnWithoutAnInterruption() throws Exception {
    Path owner = dir.resolve("owner-w1");
    OwnerConfig policy = OwnerConfig.defaults(null, List.of(new OwnerFile(owner))).withIdleBeforeStart(Duration.ZERO)
        .withIdleBeforeResume(Duration.ZERO).withOnOwner(OwnerConfig.OnOwner.SUSPEND, Duration.ofHours(1))
        .withPoll(Duration.ofMillis(100));
    long from = 1_000_000_000L;
    long to = from + 4_000_000L;
    try (LocalCluster c = new LocalCluster(dir)) {
      WorkerDaemon w1 = c.worker("w1", 1, Set.of(), w -> w.withMaxSpeed(250_000).withOwner(policy));
      c.worker("w2", 1, Set.of(), w -> w.withMaxSpeed(250_000));
      String id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("from", Long.toString(from))
          .putParams("to", Long.toString(to)).setCheckpoints(4).setMinWorkers(2).build());
      await().atMost(Duration.ofSeconds(60)).until(() -> c.workerStatus("w1").getUnitsDone() > 0
          && !c.workerStatus("w1").getCurrentChunk().isEmpty());
      Files.writeString(owner, "busy\n");
      await().atMost(Duration.ofSeconds(30)).until(() -> w1.ownerState() == OwnerPolicy.State.SUSPENDED);
      assertEquals("READY", c.workerStatus("w1").getState(), "a suspended worker keeps its place");
      Files.delete(owner);
      await().atMost(Duration.ofSeconds(30)).until(() -> w1.ownerState() == OwnerPolicy.State.WORKING);
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(120));
      assertEquals("DONE", s.getState(), s.getMessage());
      assertEquals(new PrimeSieve().count(from, to, ChunkComputation.Cancellation.NEVER) + " primes", s.getResult());
      assertEquals(0, c.workerStatus("w1").getRiskInterruptions(), "a short visit is no interruption");
      assertEquals(null, w1.lastVacate(), "it never vacated");
    }
  }
}
