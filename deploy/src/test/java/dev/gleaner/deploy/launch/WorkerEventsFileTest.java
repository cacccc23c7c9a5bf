package dev.gleaner.deploy.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.launch.WorkerEventsFile.Event;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A worker's events file: one JSON line an event, appended, read back in order; bad lines named. */
class WorkerEventsFileTest {
  @TempDir
  Path dir;

  @Test
  void eventsAreAppendedOneLineEachAndReadBackInOrder() throws Exception {
    Path file = dir.resolve("w1.events");
    WorkerEventsFile events = WorkerEventsFile.appendingTo(file);
    events.failureClockStarted(1_000);
    events.wentDown(2_000);
    events.vacated(3_000, Duration.ofMillis(250), false);
    // a worker started again under the same file adds to what its earlier life wrote
    WorkerEventsFile.appendingTo(file).wentDown(4_000);

    assertEquals(List.of("{\"event\":\"failure-clock\",\"atMillis\":1000}", "{\"event\":\"down\",\"atMillis\":2000}",
        "{\"event\":\"vacated\",\"atMillis\":3000,\"tookMillis\":250,\"late\":false}",
        "{\"event\":\"down\",\"atMillis\":4000}"), Files.readAllLines(file));
    assertEquals(List.of(new Event("failure-clock", 1_000, 0), new Event("down", 2_000, 0),
        new Event("vacated", 3_000, 250), new Event("down", 4_000, 0)), WorkerEventsFile.read(file));
    assertEquals(List.of(new Event("down", 2_000, 0), new Event("down", 4_000, 0)),
        WorkerEventsFile.read(file, WorkerEventsFile.DOWN));
  }

  @Test
  void noFileHoldsNoEvent() throws Exception {
    assertEquals(List.of(), WorkerEventsFile.read(dir.resolve("none.events")));
  }

  @Test
  void aLineThatIsNoEventIsRefusedNamingTheFileAndTheLine() throws Exception {
    Path file = Files.writeString(dir.resolve("w1.events"), "{\"event\":\"down\",\"atMillis\":1}\nvacated in 20 ms\n");
    IOException e = assertThrows(IOException.class, () -> WorkerEventsFile.read(file));
    assertTrue(e.getMessage().startsWith(file + " line 2: not JSON ("), e.getMessage());
    Files.writeString(file, "{\"event\":\"down\",\"atMillis\":\"soon\"}\n");
    e = assertThrows(IOException.class, () -> WorkerEventsFile.read(file));
    assertEquals(file + " line 1: not an event {\"event\": KIND, \"atMillis\": E}:"
        + " {\"event\":\"down\",\"atMillis\":\"soon\"}", e.getMessage());
  }

  @Test
  void aFileThatCannotBeWrittenIsOneLine() {
    Path file = dir.resolve("none").resolve("w1.events");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> WorkerEventsFile.appendingTo(file));
    assertEquals("--events-file " + file + ": cannot write it (no such folder)", e.getMessage());
  }
}
