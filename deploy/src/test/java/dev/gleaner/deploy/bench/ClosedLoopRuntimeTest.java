package dev.gleaner.deploy.bench;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.sim.FailureSchedule;
import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.WorkerShare;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The closed loop on real worker daemons: late joiners work, blips do not pile work on one worker. */
class ClosedLoopRuntimeTest {
  /** pi(4e9) - pi(1e9) = 189,961,812 - 50,847,534. */
  private static final long PRIMES_1E9_TO_4E9 = 189_961_812L - 50_847_534L;
  /** pi(1e10) - pi(1e9) = 455,052,511 - 50,847,534. */
  private static final long PRIMES_1E9_TO_1E10 = 455_052_511L - 50_847_534L;

  @TempDir
  Path dir;

  private static long share(JobStatus s, String worker) {
    return s.getSharesList().stream().filter(x -> x.getWorkerId().equals(worker)).mapToLong(WorkerShare::getUnits)
        .sum();
  }

  @Test
  void aWorkerThatJoinsLateTakesARealShareAndTheCountStaysExact() throws Exception {
    // regression: static plans left nothing for a worker joining after planning, which sat idle
    try (LocalCluster c = new LocalCluster(dir)) {
      c.worker("early", 1, Set.of(), w -> w.withSlowdown(3));
      String id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("from", "1000000000")
          .putParams("to", "4000000000").setStrategy("distrib").build());
      await().atMost(Duration.ofSeconds(30)).until(() -> c.job(id).getUnitsDone() > 0);
      c.worker("late", 1, Set.of());
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(180));
      assertEquals("DONE", s.getState(), s.getMessage());
      assertEquals(PRIMES_1E9_TO_4E9 + " primes", s.getResult());
      assertTrue(share(s, "late") > 1_000_000_000L, "the late joiner, 3x faster, does most of it: " + s.getSharesList());
    }
  }

  @Test
  void aWorkerBackFromABlipWorksAgainAndNobodyCarriesItsShareAlone() throws Exception {
    // regression: a 10-second blip moved a worker's whole share to the back of one successor's queue
    try (LocalCluster c = new LocalCluster(dir)) {
      // the pace is capped, not slowed by a factor: a quiet machine once ran the job out before the blip
      // was over (nothing was left to give the returning worker), and a capped pace is the same on any
      // machine faster than the cap: about 22 s of work for four, the blip 5 s of it
      long pace = 100_000_000L;
      c.worker("a", 1, Set.of(), w -> w.withMaxSpeed(pace));
      c.worker("b", 1, Set.of(), w -> w.withMaxSpeed(pace));
      c.worker("c", 1, Set.of(), w -> w.withMaxSpeed(pace));
      c.worker("blip", 1, Set.of(), w -> w.withMaxSpeed(pace)
          .withInterruptions(FailureSchedule.trace("4 9", "a blip from 4 s to 9 s"), 0));
      String id = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("from", "1000000000")
          .putParams("to", "10000000000").setStrategy("equal").setMinWorkers(4).build());
      await().atMost(Duration.ofSeconds(60)).until(() -> c.workerStatus("blip").getState().equals("GONE"));
      long before = c.workerStatus("blip").getUnitsDone();
      await().atMost(Duration.ofSeconds(60)).until(() -> c.workerStatus("blip").getState().equals("READY"));
      JobStatus s = c.awaitEnd(id, Duration.ofSeconds(300));
      assertEquals("DONE", s.getState(), s.getMessage());
      assertEquals(PRIMES_1E9_TO_1E10 + " primes", s.getResult());
      assertEquals(2, c.workerStatus("blip").getSessions());
      assertEquals(1, c.workerStatus("blip").getInterruptions());
      assertTrue(c.workerStatus("blip").getUnitsDone() > before, "back from its blip, it computes again");
      long max = s.getSharesList().stream().mapToLong(WorkerShare::getUnits).max().orElseThrow();
      assertTrue(max < 3_000_000_000L, "nobody carries the lost share alone (an even share is 2,250,000,000): "
          + s.getSharesList());
    }
  }
  @Test
  void aThinLinkIsMeasuredAtItsSpeedNotAtTheSpeedOfTheBuffersOnTheWay() throws Exception {
    Path file = dir.resolve("reads.txt");
    ClosedLoopBench.writeInput(file, 24L << 20);
    try (LocalCluster c = new LocalCluster(dir)) {
      c.worker("thin", 1, Set.of(), w -> w.withReceiveRate(4_000_000));
      String id = c.submit(JobSpec.newBuilder().setWorkload("grep").putParams("file", file.toString())
          .putParams("pattern", "GATTACA").putParams("max-lines", "0").setStrategy("self").setChunkUnits(3L << 20)
          .build());
      assertEquals("DONE", c.awaitEnd(id, Duration.ofSeconds(120)).getState());
      var bw = c.workerStatus("thin").getBandwidth();
      assertTrue(bw.getObservations() >= 4, bw.toString());
      assertEquals(4e6, bw.getValue(), 1.2e6, "bytes/s of a worker reading at 4 MB/s");
    }
  }
}
