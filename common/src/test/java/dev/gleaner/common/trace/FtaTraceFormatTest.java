package dev.gleaner.common.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class FtaTraceFormatTest {
  private static final String HEADER = String.join("\t", FtaTraceFormat.COLUMNS) + "\n";

  private static String row(String node, int type, String start, String stop) {
    return "7\t3\t" + node + "\t1\thost-" + node + "\t" + type + "\t" + start + "\t" + stop + "\t0\n";
  }

  private static String message(String text) {
    return assertThrows(IllegalArgumentException.class, () -> FtaTraceFormat.parse(text, "t.tab")).getMessage();
  }

  @Test
  void readsNodeTypeAndTimesFromEpochOrigin() {
    String text = "# a comment\n" + HEADER + row("5", 1, "1000", "1100") + row("5", 0, "1100", "1300")
        + row("5", 1, "1300", "1400.5") + "\n" + row("9", 0, "1050", "1200") + row("9", 1, "1200", "1500");
    AvailabilityTrace t = FtaTraceFormat.parse(text, "t.tab");
    assertEquals(1000, t.origin());
    assertEquals(500, t.length());
    assertEquals(List.of("5", "9"), List.copyOf(t.nodes().keySet()));
    assertEquals(List.of(new AvailabilityTrace.Period(0, 100), new AvailabilityTrace.Period(300, 400.5)), t.up("5"));
    assertEquals(List.of(new AvailabilityTrace.Period(200, 500)), t.up("9"));
  }

  @Test
  void headerIsOptionalButMustMatchWhenGiven() {
    assertEquals(1, FtaTraceFormat.parse(row("1", 1, "0", "10"), "t.tab").nodes().size());
    String bad = HEADER.replace("node_name", "hostname");
    assertEquals("t.tab line 1: header column 5 is 'hostname', expected 'node_name' (columns: "
        + String.join(" ", FtaTraceFormat.COLUMNS) + ")", message(bad + row("1", 1, "0", "10")));
  }

  @Test
  void refusesMalformedRowsNamingTheLine() {
    assertTrue(message(HEADER + row("1", 1, "0", "10") + "1\t2\t3\n").startsWith(
        "t.tab line 3: expected 9 tab-separated fields"), message(HEADER + "1\t2\t3\n"));
    assertEquals("t.tab line 2: event_type must be 1 (available) or 0 (not), got '2'",
        message(HEADER + row("1", 2, "0", "10")));
    assertEquals("t.tab line 2: event_start_time must be a number of seconds, got 'noon'",
        message(HEADER + row("1", 1, "noon", "10")));
    assertEquals("t.tab line 2: event_stop_time must be a number of seconds, got 'NaN'",
        message(HEADER + row("1", 1, "0", "NaN")));
    assertEquals("t.tab line 2: event_stop_time 10 is not after event_start_time 10",
        message(HEADER + row("1", 1, "10", "10")));
    assertEquals("t.tab line 2: node_id is empty", message(HEADER + row("", 1, "0", "10")));
    assertEquals("t.tab: the trace has no events", message(HEADER));
    // space-separated text is not the tab format
    assertTrue(message("1 0 1 0 h 1 0 10 0\n").startsWith("t.tab line 1: expected 9 tab-separated fields"));
  }

  @Test
  void refusesOverlappingEventsOfOneNode() {
    assertEquals("t.tab: node 1 has overlapping events at lines 2 and 3 ([0.0, 10.0) and [5.0, 20.0); keep one"
        + " component's rows per node)", message(HEADER + row("1", 1, "0", "10") + row("1", 0, "5", "20")));
  }

  @Test
  void gapsAreUnavailableAndTouchingUpPeriodsMerge() {
    AvailabilityTrace t = FtaTraceFormat.parse(row("1", 1, "0", "10") + row("1", 1, "10", "20")
        + row("1", 1, "30", "40") + row("2", 0, "0", "50"), "t.tab");
    assertEquals(List.of(new AvailabilityTrace.Period(0, 20), new AvailabilityTrace.Period(30, 40)), t.up("1"));
    assertEquals(List.of(), t.up("2"));
    assertEquals(2, t.outages("1").size());
    assertEquals(20, t.outages("1").get(0)[0]);
    assertEquals(30, t.outages("1").get(0)[1]);
    assertEquals(Double.POSITIVE_INFINITY, t.outages("1").get(1)[1]);
    assertEquals(25, t.upSeconds("1", 35));
  }

  @Test
  void formatThenParseGivesTheSameEvents() {
    List<TraceEvent> events = DesktopTraceGenerator.generate(3, 20 * 3600, 7, DesktopTraceGenerator.NOTRE_DAME_UP,
        DesktopTraceGenerator.NOTRE_DAME_DOWN);
    List<TraceEvent> back = FtaTraceFormat.events(FtaTraceFormat.format(events, List.of("made by a test")), "t.tab");
    assertEquals(events.size(), back.size());
    for (int i = 0; i < events.size(); i++) {
      TraceEvent a = events.get(i);
      TraceEvent b = back.get(i);
      assertEquals(List.of(a.node(), a.available(), a.start(), a.stop()),
          List.of(b.node(), b.available(), b.start(), b.stop()));
    }
  }
}
