package dev.gleaner.master.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The hour of computed units per second the web page's chart starts from. */
class ComputedHistoryTest {
  @Test
  void aPointEveryStepFromTheWorkersCounts() {
    ComputedHistory h = new ComputedHistory();
    h.sample(0, Map.of("a", 0L, "b", 500L));
    assertFalse(h.due(9_999));
    h.sample(9_999, Map.of("a", 1_000_000L, "b", 500L));
    assertEquals(List.of(), h.points(), "not a step yet");
    h.sample(10_000, Map.of("a", 1_000_000L, "b", 200_500L));
    assertEquals(List.of(new ComputedHistory.Point(10_000, 120_000)), h.points(), "(1,000,000 + 200,000) / 10 s");
    // a worker that joins adds nothing in its first step; one whose count went down (restarted) neither
    h.sample(20_000, Map.of("a", 5L, "b", 300_500L, "c", 999_999L));
    assertEquals(new ComputedHistory.Point(20_000, 10_000), h.points().get(1));
    h.sample(30_000, Map.of("a", 100_005L, "b", 300_500L, "c", 1_099_999L));
    assertEquals(new ComputedHistory.Point(30_000, 20_000), h.points().get(2));
  }

  @Test
  void itKeepsAnHour() {
    ComputedHistory h = new ComputedHistory();
    for (int i = 0; i <= ComputedHistory.POINTS + 50; i++) {
      h.sample(i * ComputedHistory.STEP_MILLIS, Map.of("a", i * 1000L));
    }
    List<ComputedHistory.Point> p = h.points();
    assertEquals(ComputedHistory.POINTS, p.size());
    assertEquals((ComputedHistory.POINTS + 50) * ComputedHistory.STEP_MILLIS, p.get(p.size() - 1).atMillis());
    assertTrue(p.stream().allMatch(x -> x.unitsPerSecond() == 100));
  }
}
