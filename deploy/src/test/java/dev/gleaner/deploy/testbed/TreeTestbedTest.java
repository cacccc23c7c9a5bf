package dev.gleaner.deploy.testbed;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.gleaner.deploy.bench.tree.TreeBench;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A relay on the namespace testbed: a job through it (the tree) and without it (the star), each
 * exact, the tree's workers' connections passed up by the relay, and nothing left after: no
 * namespace, no process it started. Skipped, naming why, where namespaces cannot be made.
 */
class TreeTestbedTest {
  @BeforeAll
  static void needsNamespaces() {
    String missing = Testbed.missing();
    assumeTrue(missing == null, () -> "no testbed here: " + missing);
  }

  /** The relay holds the input (its own copy): the tree run's workers get it from there, exact. */
  @Test
  @SuppressWarnings("unchecked")
  void aJobThroughARelayAndWithoutItIsExactAndLeavesNothing() throws Exception {
    long bytes = 4L << 20;
    TreeBench.Settings settings = new TreeBench.Settings(Rate.parse("80mbit"), List.of(Rate.parse("80mbit")),
        List.of(Rate.parse("40mbit"), Rate.parse("40mbit")), List.of(1, 1), bytes, 1 << 20, 1, "fit", "1M", true);
    Map<String, Object> doc = new TreeBench(settings, System.err).run();
    List<Map<String, Object>> runs = (List<Map<String, Object>>) doc.get("runs");
    assertEquals(List.of("tree", "star"), runs.stream().map(r -> r.get("shape")).toList());
    for (Map<String, Object> run : runs) {
      assertEquals(Boolean.TRUE, run.get("exact"), "the answer of the " + run.get("shape"));
      assertEquals(bytes, ((Number) run.get("bytes")).longValue());
    }
    assertTrue(((Number) runs.get(0).get("relayed")).longValue() >= 2, "both workers came through the relay");
    assertEquals(0L, ((Number) runs.get(1).get("relayed")).longValue(), "in the star nobody did");
    assertTrue(((Number) runs.get(0).get("fedByRelays")).longValue() >= 1, "the relay sent the input");
    assertEquals(0L, ((Number) runs.get(1).get("fedByRelays")).longValue(), "in the star the master did");
    assertEquals(List.of(), doc.get("left"));
    List<Number> pids = (List<Number>) doc.get("pids");
    assertEquals(1 + 1 + 2 * 2, pids.size(), "the master, the relay, and the two workers of each run");
    for (Number pid : pids) {
      assertFalse(ProcessHandle.of(pid.longValue()).map(ProcessHandle::isAlive).orElse(false), "pid " + pid);
    }
  }
}
