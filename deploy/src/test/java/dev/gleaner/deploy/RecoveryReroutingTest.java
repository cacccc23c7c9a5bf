package dev.gleaner.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.protocol.RecoveryList;
import dev.gleaner.protocol.Reroute;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Six worker JVMs share a job planned per worker; one is SIGKILLed, then two at once. Each lost
 * worker's unfinished work must end with the first live worker on its own recovery list, and the
 * count must stay exact. Every process started here is ended here.
 */
class RecoveryReroutingTest {
  @TempDir
  Path dir;

  @Test
  void lostWorkFollowsTheRecoveryLists() throws Exception {
    List<String> ids = List.of("w0", "w1", "w2", "w3", "w4", "w5");
    try (LocalCluster c = new LocalCluster(dir); WorkerProcesses workers = new WorkerProcesses(dir)) {
      for (String id : ids) {
        // a speed of its own, whatever the machine's: each share takes some 14 s, so a worker killed
        // a few seconds in surely holds unfinished work (slowed by a factor, a fast machine had none left)
        workers.start(id, c.master.port(), c.secretFile(), 1, 1, "128m", List.of("--max-speed", "12000000"));
      }
      // pi(10^9) = 50,847,534; equal shares, each going out in 4 chunks of about 3.5 s
      String job = c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("to", "1000000000")
          .setStrategy("equal").setChunkUnits(1_000_000_000L / 24).setCheckpoints(3).setMinWorkers(6).build());
      try {
        await().atMost(Duration.ofSeconds(60)).until(() -> c.job(job).getRecoveryCount() == 6);
        Map<String, List<String>> lists = new HashMap<>();
        for (RecoveryList r : c.job(job).getRecoveryList()) {
          lists.put(r.getWorkerId(), r.getListList());
        }
        assertEquals(Set.copyOf(ids), lists.keySet());

        // one worker lost: its work goes to the first worker on its list
        String a = "w0";
        await().atMost(Duration.ofSeconds(60)).until(() -> c.workerStatus(a).getUnitsDone() > 0);
        kill(workers, a);
        await().atMost(Duration.ofSeconds(30)).until(() -> rerouted(c.job(job), a));
        // work keeps its home: a's own share follows a's list; a piece a had taken from another
        // worker's queue follows that worker's list
        for (Reroute r : c.job(job).getReroutesList()) {
          String expected = lists.get(r.getOrigin()).stream().filter(x -> !x.equals(a)).findFirst().orElseThrow();
          assertEquals(expected, r.getToWorker(), r.toString());
        }
        assertTrue(c.job(job).getReroutesList().stream().anyMatch(r -> r.getOrigin().equals(a)));
        int firstWave = c.job(job).getReroutesCount();

        // two at once: the one that took a's work, and one more
        String b = lists.get(a).get(0);
        String d = ids.stream().filter(x -> !x.equals(a) && !x.equals(b)).findFirst().orElseThrow();
        kill(workers, b, d);
        // b holds its own work at least; d may already have finished its share
        await().atMost(Duration.ofSeconds(30)).until(() -> rerouted(c.job(job), b)
            && c.workerStatus(d).getState().equals("GONE"));

        // each reroute goes to the first worker on its origin's list that the master knew up when it
        // handled the loss: b and d die together, and either may be handled first
        List<Reroute> secondWave = c.job(job).getReroutesList().subList(firstWave, c.job(job).getReroutesCount());
        for (Reroute r : secondWave) {
          List<String> list = lists.get(r.getOrigin());
          Set<String> allowed = new java.util.HashSet<>();
          for (Set<String> known : List.of(Set.of(a), Set.of(a, b), Set.of(a, d), Set.of(a, b, d))) {
            list.stream().filter(x -> !known.contains(x)).findFirst().ifPresent(allowed::add);
          }
          assertFalse(r.getToWorker().isEmpty(), "three workers are up, so every list has a live one");
          assertTrue(allowed.contains(r.getToWorker()), r + " must go where " + r.getOrigin() + "'s list " + list
              + " says");
        }
        assertTrue(secondWave.stream().anyMatch(r -> r.getFromWorker().equals(b)), "b's unfinished work was rerouted");

        JobStatus s = c.awaitEnd(job, Duration.ofSeconds(300));
        assertEquals("DONE", s.getState(), s.getMessage());
        assertEquals("50847534 primes", s.getResult());
        assertEquals(1_000_000_000L, s.getUnitsDone());
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(e.getMessage() + "\nstatus: " + c.job(job) + "\nworker logs:\n" + workers.logs(), e);
      }
    }
  }

  private static boolean rerouted(JobStatus s, String from) {
    return s.getReroutesList().stream().anyMatch(r -> r.getFromWorker().equals(from));
  }

  private static void kill(WorkerProcesses workers, String... ids) throws InterruptedException {
    for (String id : ids) {
      workers.process(id).destroyForcibly();
    }
    for (String id : ids) {
      assertTrue(workers.process(id).waitFor(10, TimeUnit.SECONDS));
    }
  }
}
