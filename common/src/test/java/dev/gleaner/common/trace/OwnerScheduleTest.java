package dev.gleaner.common.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.gleaner.common.trace.OwnerSchedule.Change;
import java.util.List;
import org.junit.jupiter.api.Test;

class OwnerScheduleTest {
  @Test
  void ownerIsPresentWheneverTheNodeIsNotUp() {
    AvailabilityTrace trace = AvailabilityTrace.of(List.of(
        new TraceEvent("a", true, 0, 10, 1), new TraceEvent("a", false, 10, 15, 2), new TraceEvent("a", true, 15, 40, 3),
        new TraceEvent("b", false, 0, 5, 4), new TraceEvent("b", true, 5, 10, 5)), "t");
    assertEquals(List.of(new Change(0, "a", false), new Change(0, "b", true), new Change(5, "b", false),
        new Change(10, "a", true), new Change(10, "b", true), new Change(15, "a", false)),
        OwnerSchedule.changes(trace, 30));
  }
}
