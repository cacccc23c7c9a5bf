package dev.gleaner.master.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreSessionsTest {
  @TempDir
  Path dir;

  /** The hours-of-the-week risk is learned from recent ended sessions only, and from none a clock jump reversed. */
  @Test
  void sessionsSinceATimeAreTheEndedOnesEndingThenOrLater() {
    try (Store store = new Store(dir)) {
      long old = store.call(WorkerTable.sessionStarted("pc", 1_000));
      store.call(WorkerTable.sessionEnded(old, 5_000, true));
      long recent = store.call(WorkerTable.sessionStarted("pc", 10_000));
      store.call(WorkerTable.sessionEnded(recent, 20_000, false));
      long backwards = store.call(WorkerTable.sessionStarted("pc", 30_000));
      store.call(WorkerTable.sessionEnded(backwards, 25_000, true));
      store.call(WorkerTable.sessionStarted("pc", 40_000));
      assertEquals(List.of(new WorkerTable.Session("pc", 10_000, 20_000, false)),
          store.call(WorkerTable.sessions(6_000)));
      assertEquals(2, store.call(WorkerTable.sessions(0)).size());
    }
  }
}
