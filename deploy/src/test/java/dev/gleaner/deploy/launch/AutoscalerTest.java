package dev.gleaner.deploy.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.launch.Autoscaler.Decision;
import dev.gleaner.deploy.launch.Autoscaler.Inputs;
import dev.gleaner.deploy.launch.Autoscaler.WorkerJob;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The autoscaler's decision on a table of cases: what it wants, what it submits, what it cancels. */
class AutoscalerTest {
  private static final double INF = Double.POSITIVE_INFINITY;
  private static final double NAN = Double.NaN;

  static WorkerJob pending(String id) {
    return new WorkerJob(id, true, false, false, 0);
  }

  static WorkerJob starting(String id) {
    return new WorkerJob(id, false, false, false, 0);
  }

  static WorkerJob busy(String id) {
    return new WorkerJob(id, false, true, true, 0);
  }

  static WorkerJob idle(String id, double seconds) {
    return new WorkerJob(id, false, true, false, seconds);
  }

  /** One row: min, max, units left, speed a worker, jobs, seconds since a submit; then target, submit, cancel. */
  record Case(String what, int min, int max, long units, double speed, List<WorkerJob> jobs, double since,
      int target, int submit, List<String> cancel) {}

  @Test
  void theDecisionTable() {
    // target time 100 s, cool-down 60 s, at most 5 submissions a decision
    List<Case> cases = List.of(
        new Case("no work, no jobs: min", 2, 50, 0, NAN, List.of(), INF, 2, 2, List.of()),
        new Case("no work, min 0: nothing", 0, 50, 0, NAN, List.of(), INF, 0, 0, List.of()),
        new Case("work, no speed yet: max, bounded per decision", 2, 50, 1_000, NAN, List.of(), INF, 50, 5, List.of()),
        new Case("work, no speed, some jobs: the rest up to max", 0, 3, 1_000, NAN,
            List.of(pending("1"), busy("2")), 1, 3, 1, List.of()),
        new Case("enough to finish in the target time", 1, 50, 10_000, 10, List.of(busy("1")), 200, 10, 5, List.of()),
        new Case("a fraction of a worker rounds up", 1, 50, 1_001, 10, List.of(busy("1")), 200, 2, 1, List.of()),
        new Case("more than max: max", 1, 4, 1_000_000, 10, List.of(busy("1"), busy("2")), 200, 4, 2, List.of()),
        new Case("less than min: min", 3, 50, 10, 10, List.of(busy("1"), busy("2"), busy("3")), 200, 3, 0, List.of()),
        new Case("as wanted: nothing", 1, 50, 2_000, 10, List.of(busy("1"), busy("2")), 200, 2, 0, List.of()),
        new Case("surplus within the cool-down of a submit: nothing", 1, 50, 0, 10,
            List.of(pending("1"), idle("2", 600)), 30, 1, 0, List.of()),
        new Case("surplus: pending jobs first, newest first", 1, 50, 0, 10,
            List.of(idle("1", 600), pending("2"), pending("3")), 200, 1, 0, List.of("3", "2")),
        new Case("surplus: then the longest idle, only idle past the cool-down", 0, 50, 0, 10,
            List.of(idle("1", 100), idle("2", 900), idle("3", 10)), 200, 0, 0, List.of("2", "1")),
        new Case("never a busy worker, never one starting", 0, 50, 0, 10,
            List.of(busy("1"), starting("2"), idle("3", 600)), 200, 0, 0, List.of("3")),
        new Case("surplus bounded by how many too many", 2, 50, 0, 10,
            List.of(pending("1"), pending("2"), idle("3", 600), idle("4", 600)), INF, 2, 0, List.of("2", "1")),
        new Case("work left but fewer needed: scale down idle ones", 1, 50, 500, 10,
            List.of(busy("1"), idle("2", 600), idle("3", 120)), 200, 1, 0, List.of("2", "3")));
    List<String> wrong = new ArrayList<>();
    for (Case c : cases) {
      Decision d = Autoscaler.decide(new Inputs(c.min(), c.max(), c.units(), c.speed(), 100, c.jobs(), c.since(), 60, 5));
      if (d.target() != c.target() || d.submit() != c.submit() || !d.cancel().equals(c.cancel())) {
        wrong.add(c.what() + ": got target " + d.target() + ", submit " + d.submit() + ", cancel " + d.cancel()
            + " (" + d.reason() + ")");
      }
    }
    assertTrue(wrong.isEmpty(), String.join("\n", wrong));
  }

  @Test
  void theReasonSaysWhy() {
    Decision d = Autoscaler.decide(new Inputs(0, 3, 1_000, NAN, 100, List.of(), INF, 60, 5));
    assertEquals("1000 units waiting at no measured speed: 0 -> 3 workers, submitting 3", d.reason());
  }

  @Test
  void badBoundsAreRefused() {
    assertEquals("--min and --max must be 0 <= min <= max and max >= 1, got min 5 and max 2",
        assertThrows(IllegalArgumentException.class,
            () -> new Inputs(5, 2, 0, NAN, 100, List.of(), INF, 60, 5)).getMessage());
    assertThrows(IllegalArgumentException.class, () -> new Inputs(0, 0, 0, NAN, 100, List.of(), INF, 60, 5));
    assertThrows(IllegalArgumentException.class, () -> new Inputs(0, 1, 0, NAN, 100, List.of(), INF, 60, 0));
  }
}
