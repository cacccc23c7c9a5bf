package dev.gleaner.master.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.gleaner.common.control.Held;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A chunk's checkpoints are kept as data, and a store that kept them as text reads the same ones. */
class ChunkCheckpointsTest {
  @TempDir
  Path dir;

  /** The chunks table as a master that kept checkpoints as text wrote it, with {@code rows} in it. */
  private void oldStore(String... rows) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("gleaner.db"));
         Statement s = c.createStatement()) {
      s.execute("CREATE TABLE chunks(job_id TEXT, chunk_id INTEGER, start INTEGER, end INTEGER, worker_id TEXT,"
          + " state TEXT, PRIMARY KEY(job_id, chunk_id))");
      s.execute("ALTER TABLE chunks ADD COLUMN checkpoints TEXT");
      s.execute("ALTER TABLE chunks ADD COLUMN lease_ms INTEGER");
      s.execute("ALTER TABLE chunks ADD COLUMN assigned_at INTEGER");
      for (String row : rows) {
        s.execute("INSERT INTO chunks(job_id, chunk_id, start, end, worker_id, state, checkpoints, lease_ms,"
            + " assigned_at) VALUES " + row);
      }
    }
  }

  private static List<String> types(Store store) {
    return store.call(c -> c.query("SELECT typeof(checkpoints) FROM chunks ORDER BY chunk_id", r -> r.getString(1)));
  }

  @Test
  void checkpointsAreStoredAsBigEndianLongsAndReadBackWithinTheChunk() {
    try (Store store = new Store(dir)) {
      store.call(ChunkTable.assigned("job-1", 1, "w", 0, 1L << 41, new long[] {5, 9, 1L << 40}, 60_000, 1_000));
      store.call(ChunkTable.assigned("job-1", 2, "w", 100, 200, new long[0], 60_000, 1_000));
      byte[] data = store.call(c -> c.one("SELECT checkpoints FROM chunks WHERE chunk_id=1", r -> r.getBytes(1)));
      assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 1, 0, 0, 0, 0, 0}, data);
      // the chunk's tail went to another worker: the checkpoints past its new end are not its own
      store.call(ChunkTable.truncated("job-1", 1, 1L << 40));
      List<Held> held = store.call(ChunkTable.handedOut("job-1"));
      assertEquals(2, held.size());
      assertArrayEquals(new long[] {5, 9}, held.get(0).checkpoints());
      assertArrayEquals(new long[0], held.get(1).checkpoints());
      assertEquals(List.of("blob", "blob"), types(store));
    }
  }

  @Test
  void aStoreThatKeptCheckpointsAsTextOpensWithTheSameCheckpoints() throws SQLException {
    oldStore("('job-1', 1, 0, 100, 'w1', 'ASSIGNED', '12,40,77', 60000, 1000)",
        "('job-1', 2, 100, 200, 'w2', 'ASSIGNED', '', 60000, 1000)",
        "('job-1', 3, 200, 300, 'w3', 'DONE', '250', 60000, 1000)");
    // the second open finds nothing left to rewrite
    for (int open = 0; open < 2; open++) {
      try (Store store = new Store(dir)) {
        List<Held> held = store.call(ChunkTable.handedOut("job-1"));
        assertEquals(2, held.size(), "open " + open);
        assertEquals(List.of("w1", "w2"), held.stream().map(Held::worker).toList());
        assertArrayEquals(new long[] {12, 40, 77}, held.get(0).checkpoints(), "open " + open);
        assertArrayEquals(new long[0], held.get(1).checkpoints(), "open " + open);
        assertEquals(List.of("blob", "blob", "blob"), types(store), "every row rewritten, the ended ones too");
        assertArrayEquals(ChunkTable.checkpointBytes(new long[] {250}),
            store.call(c -> c.one("SELECT checkpoints FROM chunks WHERE chunk_id=3", r -> r.getBytes(1))));
      }
    }
  }

  @Test
  void checkpointsThatAreNoNumbersKeepTheStoreClosedNamingTheirChunk() throws SQLException {
    oldStore("('job-1', 1, 0, 100, 'w1', 'ASSIGNED', '12,40,77', 60000, 1000)",
        "('job-1', 2, 100, 200, 'w2', 'ASSIGNED', '150,x', 60000, 1000)");
    // the first refusal let go of the folder's lock: the second open says the same
    for (int open = 0; open < 2; open++) {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> new Store(dir).close());
      assertEquals("cannot open the store in " + dir + ": chunk 2 of job job-1 has the checkpoints '150,x' in the"
          + " store, which are not a list of numbers", e.getMessage(), "open " + open);
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("gleaner.db"));
         Statement s = c.createStatement()) {
      var r = s.executeQuery("SELECT typeof(checkpoints), checkpoints FROM chunks WHERE chunk_id=1");
      r.next();
      assertEquals("text", r.getString(1), "nothing of the store was changed");
      assertEquals("12,40,77", r.getString(2));
    }
  }
}
