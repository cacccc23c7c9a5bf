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
      long old = store.call(Store.sessionStarted("pc", 1_000));
      store.call(Store.sessionEnded(old, 5_000, true));
      long recent = store.call(Store.sessionStarted("pc", 10_000));
      store.call(Store.sessionEnded(recent, 20_000, false));
      long backwards = store.call(Store.sessionStarted("pc", 30_000));
      store.call(Store.sessionEnded(backwards, 25_000, true));
      store.call(Store.sessionStarted("pc", 40_000));
      assertEquals(List.of(new Store.Session("pc", 10_000, 20_000, false)), store.call(Store.sessions(6_000)));
      assertEquals(2, store.call(Store.sessions(0)).size());
    }
  }
}
