package dev.gleaner.deploy.testbed;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gleaner.deploy.bench.TextFile;
import dev.gleaner.deploy.bench.links.LinksBench;
import dev.gleaner.deploy.launch.EntryPoint;
import dev.gleaner.deploy.launch.Signals;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The testbed on this machine's kernel (root only; skipped, naming what is missing, elsewhere): it is
 * built with its links shaped, a job runs across it with an exact answer, and afterwards nothing it
 * made is left (no namespace, veth, qdisc or process), also when the JVM that made it is stopped by
 * SIGTERM (Ctrl-C) or killed.
 */
class TestbedTest {
  @BeforeAll
  static void needsNamespaces() {
    String missing = Testbed.missing();
    assumeTrue(missing == null, () -> "no testbed here: " + missing);
  }

  @Test
  void linksAreShapedAndChangedAndTheRootNamespaceNeverSeesThem() {
    List<String> names;
    try (Testbed bed = Testbed.create(2)) {
      names = bed.namespaces();
      assertEquals(4, names.size());
      bed.shapeUplink(Rate.parse("80mbit"));
      bed.shapeDownlink(1, Rate.parse("40mbit"));
      bed.shapeDownlink(2, Rate.parse("10MB/s"));
      assertTrue(NetCommands.run("tc", "-n", bed.masterNamespace(), "qdisc", "show", "dev", "eth0")
          .contains("rate 80Mbit"));
      assertTrue(NetCommands.run("tc", "-n", bed.bridgeNamespace(), "qdisc", "show", "dev", "vw1")
          .contains("rate 40Mbit"));
      assertTrue(NetCommands.run("tc", "-n", bed.bridgeNamespace(), "qdisc", "show", "dev", "vw2")
          .contains("rate 80Mbit"));
      // changed while up, then taken off
      bed.shapeDownlink(1, Rate.parse("5mbit"));
      assertTrue(NetCommands.run("tc", "-n", bed.bridgeNamespace(), "qdisc", "show", "dev", "vw1")
          .contains("rate 5Mbit"));
      // and back, and again: each time one qdisc at the new rate (a new one, not the old one changed)
      bed.shapeDownlink(1, Rate.parse("40mbit"));
      String before = NetCommands.run("tc", "-n", bed.bridgeNamespace(), "qdisc", "show", "dev", "vw1");
      bed.shapeDownlink(1, Rate.parse("5mbit"));
      String vw1 = NetCommands.run("tc", "-n", bed.bridgeNamespace(), "qdisc", "show", "dev", "vw1");
      assertTrue(vw1.contains("rate 5Mbit"), vw1);
      assertEquals(1, vw1.split("qdisc tbf", -1).length - 1, vw1);
      assertNotEquals(before.split(" ")[2], vw1.split(" ")[2], "the handle: a new qdisc");
      bed.shapeDownlink(2, Rate.UNLIMITED);
      assertFalse(NetCommands.run("tc", "-n", bed.bridgeNamespace(), "qdisc", "show", "dev", "vw2").contains("tbf"));
      bed.shapeDownlink(2, Rate.parse("20mbit"));
      assertTrue(NetCommands.run("tc", "-n", bed.bridgeNamespace(), "qdisc", "show", "dev", "vw2")
          .contains("rate 20Mbit"));
      // the hosts reach each other, and only inside the testbed
      assertTrue(NetCommands.run("ip", "-n", bed.workerNamespace(1), "route", "get", bed.masterAddress())
          .contains("dev eth0"));
      assertFalse(NetCommands.run("ip", "addr").contains("10.213."));
      assertFalse(NetCommands.run("ip", "route").contains("10.213."));
      for (String link : NetCommands.run("ip", "-o", "link").split("\n")) {
        assertFalse(link.matches(".*: vw?[0-9m]*@.*"), "a testbed link in the root namespace: " + link);
      }
      assertThrows(IllegalArgumentException.class, () -> bed.shapeDownlink(3, Rate.parse("1mbit")));
    }
    List<String> all = NetCommands.namespaces();
    for (String n : names) {
      assertFalse(all.contains(n), n + " is left");
    }
  }

  @Test
  void aJobAcrossTheTestbedIsExactAndLeavesNothing(@TempDir Path dir) throws Exception {
    long bytes = 6L << 20;
    Map<String, Object> doc = new LinksBench(new LinksBench.Settings(Rate.parse("40mbit"),
        List.of(Rate.parse("40mbit"), Rate.parse("10mbit")), List.of(0.0, 0.0), bytes, List.of("distrib"), 1, 0, "fit", null),
        System.err).run();
    @SuppressWarnings("unchecked")
    Map<String, Object> run = ((List<Map<String, Object>>) doc.get("runs")).get(0);
    Path copy = dir.resolve("same.txt");
    TextFile.write(copy, bytes);
    long lines = 0;
    for (byte b : Files.readAllBytes(copy)) {
      lines += b == '\n' ? 1 : 0;
    }
    assertEquals(lines + " lines, " + bytes + " bytes", run.get("result"));
    assertEquals(List.of(), doc.get("left"));
    @SuppressWarnings("unchecked")
    List<Number> pids = (List<Number>) doc.get("pids");
    assertEquals(3, pids.size(), "the master and two workers");
    for (Number pid : pids) {
      assertFalse(ProcessHandle.of(pid.longValue()).map(ProcessHandle::isAlive).orElse(false), "pid " + pid);
    }
    assertFalse(NetCommands.run("tc", "qdisc", "show").contains("tbf"), "a tbf qdisc left in the root namespace");
  }

  @Test
  void workersInterruptedOnTheirSeededScheduleLoseNothingAndTheSimulatorMeetsTheSameOutages() throws Exception {
    // 8 MiB at 0.5 MB/s a worker: at least 8 s of computing, past every worker's first lifetime (at most 10 s)
    long bytes = 8L << 20;
    LinksBench.Settings settings = new LinksBench.Settings(Rate.parse("40mbit"),
        List.of(Rate.parse("40mbit"), Rate.parse("20mbit")), List.of(500_000.0, 500_000.0), bytes,
        List.of("distrib", "self"), 1, 0, "fit", null, null,
        new LinksBench.Interruptions(List.of(0.1, 0.1), 1), false);
    Map<String, Object> doc = new LinksBench(settings, System.err).run();
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> runs = (List<Map<String, Object>>) doc.get("runs");
    assertEquals(2, runs.size());
    int interruptions = 0;
    int simulated = 0;
    for (Map<String, Object> run : runs) {
      assertEquals(Boolean.TRUE, run.get("exact"), "the answer of " + run.get("asked"));
      assertEquals(bytes, ((Number) run.get("bytes")).longValue());
      interruptions += ((Number) run.get("interruptions")).intValue();
      @SuppressWarnings("unchecked")
      Map<String, Object> predicted = (Map<String, Object>) run.get("predicted");
      assertTrue(predicted != null, "the simulator's figure beside " + run.get("asked"));
      simulated += ((Number) predicted.get("outagesMet")).intValue();
      // the same job, outages and speeds: of the same order as the real run (no timing asserted)
      double ratio = ((Number) predicted.get("simulated")).doubleValue() / ((Number) run.get("seconds")).doubleValue();
      assertTrue(ratio > 0.3 && ratio < 3, "simulated / real for " + run.get("asked") + ": " + ratio);
    }
    assertTrue(interruptions > 0, "the workers' seeded interruptions met the jobs");
    assertTrue(simulated > 0, "the simulator met the same workers' outages");
    assertEquals(List.of(), doc.get("left"));
    @SuppressWarnings("unchecked")
    List<Number> pids = (List<Number>) doc.get("pids");
    assertEquals(1 + 2 + 2 * 2, pids.size(), "the master, two workers, and both started again before each run");
    for (Number pid : pids) {
      assertFalse(ProcessHandle.of(pid.longValue()).map(ProcessHandle::isAlive).orElse(false), "pid " + pid);
    }
  }

  @Test
  void aBenchStoppedBySigtermRemovesItsTestbed(@TempDir Path dir) throws Exception {
    Process bench = startLongBench(dir);
    try {
      List<Long> inside = awaitBuilt(bench);
      Signals.send(bench.pid(), "TERM");
      assertTrue(Signals.awaitExit(bench, 60), "the bench did not end on SIGTERM");
      assertGone(bench.pid(), inside);
      try (Stream<Path> left = Files.list(dir.resolve("tmp"))) {
        assertEquals(List.of(), left.toList(), "the bench's temporary folder (its 64 MiB file) is removed too");
      }
    } finally {
      cleanUp(bench);
    }
  }

  @Test
  void aTestbedLeftByAKilledJvmIsSweptByTheNextOne(@TempDir Path dir) throws Exception {
    Process bench = startLongBench(dir);
    try {
      List<Long> inside = awaitBuilt(bench);
      Signals.end(bench);
      List<String> left = namesOf(bench.pid());
      assertEquals(3, left.size(), "a killed JVM cannot remove its testbed");
      assertTrue(Testbed.sweep().containsAll(left));
      assertGone(bench.pid(), inside);
    } finally {
      cleanUp(bench);
    }
  }

  /** Whatever a failed test left: the bench ended by its pid, then its testbed swept (its maker is gone). */
  private static void cleanUp(Process bench) {
    Signals.end(bench);
    Testbed.sweep();
  }

  /** A links bench whose job lasts minutes: one worker computing 100 kB/s over a 64 MiB file. */
  private static Process startLongBench(Path dir) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Files.createDirectories(dir.resolve("tmp"));
    return new ProcessBuilder(java, "-Xmx256m", "-Djava.io.tmpdir=" + dir.resolve("tmp"), "-cp",
        System.getProperty("java.class.path"), EntryPoint.NAME,
        "bench", "--links", "20mbit", "--link-speeds", "100000", "--link-file-mib", "64")
        .redirectErrorStream(true).redirectOutput(dir.resolve("bench.log").toFile()).start();
  }

  /** Waits until the bench's testbed is built and its master and worker run in it; their pids. */
  private static List<Long> awaitBuilt(Process bench) {
    List<Long> pids = new ArrayList<>();
    await().atMost(Duration.ofSeconds(120)).until(() -> {
      if (!bench.isAlive()) {
        throw new IllegalStateException("the bench exited with status " + bench.exitValue());
      }
      pids.clear();
      List<String> names = namesOf(bench.pid());
      for (String n : names) {
        pids.addAll(NetCommands.pids(n));
      }
      // the bridge, the master and one worker; a process in the master's and in the worker's
      return names.size() == 3 && pids.size() >= 2;
    });
    return pids;
  }

  private static List<String> namesOf(long pid) {
    List<String> names = new ArrayList<>();
    for (String n : NetCommands.namespaces()) {
      if (n.startsWith("gltb-" + pid + "-")) {
        names.add(n);
      }
    }
    return names;
  }

  private static void assertGone(long benchPid, List<Long> inside) {
    assertEquals(List.of(), namesOf(benchPid), "namespaces left");
    for (long pid : inside) {
      ProcessHandle.of(pid).ifPresent(h -> h.onExit().orTimeout(10, java.util.concurrent.TimeUnit.SECONDS)
          .exceptionally(e -> h).join());
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " is left");
    }
  }
}
