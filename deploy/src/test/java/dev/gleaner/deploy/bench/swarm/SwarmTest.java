package dev.gleaner.deploy.bench.swarm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.workload.Workloads;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import java.io.PrintStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Admission at scale, with the swarm's simulated workers: a burst from distinct loopback addresses is
 * welcomed whole and the master closes none of the sessions it welcomed; and the swarm bench itself
 * runs end to end on a small size and reports an exact job.
 */
class SwarmTest {
  private static final byte[] SECRET = "swarm-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;

  @Test
  void aBurstOfWorkersFromDistinctAddressesIsAllWelcomedAndTheMasterClosesNoneOfThem() throws Exception {
    int n = 400;
    MasterConfig config = MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0), dir.resolve("data"), SECRET,
        Workloads.of());
    try (MasterServer master = new MasterServer(config).start();
        SwarmFleet swarm = new SwarmFleet(new InetSocketAddress("127.0.0.1", master.port()), SECRET, 1e6, 2, 1)) {
      swarm.start(n, 7);
      Awaitility.await().atMost(Duration.ofMinutes(3)).until(() -> swarm.welcomed.get() == n);
      // every one is a live session of the master, and stays one
      Awaitility.await().atMost(Duration.ofMinutes(3)).until(() -> master.liveWorkers().size() == n);
      assertEquals(Map.of(), swarm.closedAfterWelcome(), "sessions the master closed after their Welcome");
      assertEquals(List.of(), swarm.problems());
      swarm.stop();
    }
  }

  @Test
  void theBenchRunsASmallSwarmAgainstAMasterJvmAndItsJobIsExact() throws Exception {
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8);
    SwarmBench bench = new SwarmBench(List.of("-Xmx256m"), 1, quiet);
    Map<String, Object> r = bench.run(dir.resolve("run"), new SwarmBench.Scenario(20, 1e6, 300, 1000, "self", 0, 300),
        SwarmBench.fdLimit());
    assertEquals(true, r.get("exact"), r.toString());
    assertEquals(bruteForcePrimesBelow(300 * 1000) + " primes", r.get("result"));
    assertEquals(20, r.get("workers"));
    assertEquals(0, r.get("closedAfterWelcome"), r.toString());
    assertEquals(0, r.get("falseDowns"), r.toString());
    assertTrue(r.get("sigtermSeconds") instanceof Double, "the master stopped on SIGTERM: " + r.get("sigtermSeconds"));
  }

  /** The reference: trial division by every odd number up to the square root. */
  private static long bruteForcePrimesBelow(long n) {
    long count = 0;
    for (long x = 2; x < n; x++) {
      boolean prime = x == 2 || x % 2 != 0;
      for (long d = 3; prime && d * d <= x; d += 2) {
        prime = x % d != 0;
      }
      if (prime) {
        count++;
      }
    }
    return count;
  }
}
