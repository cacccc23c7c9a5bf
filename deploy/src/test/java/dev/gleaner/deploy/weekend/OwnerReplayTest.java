package dev.gleaner.deploy.weekend;

import dev.gleaner.deploy.CommandLineTest;

import static dev.gleaner.deploy.CommandLineTest.gleaner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.time.FakeTicker;
import dev.gleaner.common.trace.AvailabilityTrace;
import dev.gleaner.common.trace.OwnerSchedule;
import dev.gleaner.common.trace.OwnerSchedule.Change;
import dev.gleaner.common.trace.TraceEvent;
import dev.gleaner.deploy.weekend.OwnerFiles;
import dev.gleaner.deploy.weekend.OwnerReplay;
import dev.gleaner.deploy.weekend.TraceFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The replay harness's driving logic on a fake clock, its owner files, and the command on the shipped trace. */
class OwnerReplayTest {
  @TempDir
  Path dir;

  private static final AvailabilityTrace TRACE = AvailabilityTrace.of(List.of(
      new TraceEvent("a", true, 0, 3600, 1), new TraceEvent("a", false, 3600, 5400, 2),
      new TraceEvent("a", true, 5400, 7200, 3), new TraceEvent("b", false, 0, 1800, 4),
      new TraceEvent("b", true, 1800, 7200, 5)), "t");

  @Test
  void changesFallDueAtTraceTimeOverSpeedup() {
    FakeTicker clock = new FakeTicker();
    clock.advance(Duration.ofSeconds(1000));
    List<Change> seen = new ArrayList<>();
    // 3600x: trace hour h is wall second h
    OwnerReplay replay = new OwnerReplay(OwnerSchedule.changes(TRACE, 7200), 3600, seen::add, clock);
    replay.start();
    assertEquals(List.of(new Change(0, "a", false), new Change(0, "b", true)), seen);
    assertEquals(500_000_000L, replay.nanosToNext());
    clock.advance(Duration.ofMillis(499));
    assertEquals(0, replay.applyDue());
    clock.advance(Duration.ofMillis(1));
    assertEquals(1, replay.applyDue());
    assertEquals(new Change(1800, "b", false), seen.get(2));
    clock.advance(Duration.ofSeconds(5));
    // two due at once come in trace order
    assertEquals(2, replay.applyDue());
    assertEquals(List.of(new Change(3600, "a", true), new Change(5400, "a", false)), seen.subList(3, 5));
    assertTrue(replay.done());
    assertEquals(-1, replay.nanosToNext());
  }

  @Test
  void refusesANonPositiveSpeedupAndApplyingBeforeStart() {
    assertEquals("--speedup must be a positive number, got 0.0", assertThrows(IllegalArgumentException.class,
        () -> new OwnerReplay(List.of(), 0, c -> { }, new FakeTicker())).getMessage());
    OwnerReplay r = new OwnerReplay(List.of(), 1, c -> { }, new FakeTicker());
    assertThrows(IllegalStateException.class, r::applyDue);
  }

  @Test
  void ownerFileHoldsBusyWhilePresentAndIsGoneOtherwise() throws Exception {
    OwnerFiles files = new OwnerFiles(dir);
    files.set("n1", true);
    assertEquals("busy\n", Files.readString(dir.resolve("n1.owner")));
    files.set("n1", true);
    assertEquals("busy\n", Files.readString(dir.resolve("n1.owner")));
    files.set("n1", false);
    assertFalse(Files.exists(dir.resolve("n1.owner")));
    files.set("n1", false);
    try (var s = Files.list(dir)) {
      assertEquals(0, s.count(), "no temporary file left behind");
    }
    assertThrows(IllegalArgumentException.class, () -> files.path("../x"));
  }

  /** The whole shipped trace at a speed where it plays in a few milliseconds: files end in the trace's final state. */
  @Test
  void replayCommandLeavesEachOwnerAsTheTraceEnds() throws Exception {
    CommandLineTest.Run r = gleaner("replay", "--trace", TraceCommandTest.TRACE, "--speedup", "1e9", "--owner-dir",
        dir.toString(), "--platform", TraceCommandTest.DESKTOPS, "--eps", "1", "--quiet");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("omniscient bound over 60.00 trace hours: 12035207 units"), r.out());
    AvailabilityTrace trace = TraceFile.read(Path.of(TraceCommandTest.TRACE));
    Map<String, Boolean> last = new LinkedHashMap<>();
    OwnerSchedule.changes(trace, trace.length()).forEach(c -> last.put(c.node(), c.present()));
    for (Map.Entry<String, Boolean> e : last.entrySet()) {
      assertEquals(e.getValue(), Files.exists(dir.resolve(e.getKey() + ".owner")), "node " + e.getKey());
    }
  }
}
