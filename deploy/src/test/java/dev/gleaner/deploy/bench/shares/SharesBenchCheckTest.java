package dev.gleaner.deploy.bench.shares;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shares bench's two checks: the sieve its primes answers are held to (known counts), and the
 * store check, which must see a unit missing, a unit saved twice and a done chunk whose pieces stop
 * short, each where it is, and nothing in a store without them.
 */
class SharesBenchCheckTest {
  @TempDir
  Path dir;

  @Test
  void theSieveCountsThePrimesBelowN() {
    assertEquals(0, Sieve.primesBelow(2));
    assertEquals(1, Sieve.primesBelow(3));
    assertEquals(4, Sieve.primesBelow(10));
    assertEquals(4, Sieve.primesBelow(11));
    assertEquals(25, Sieve.primesBelow(100));
    assertEquals(148_933, Sieve.primesBelow(2_000_000));
  }

  private Path store(String... rows) throws Exception {
    Path db = dir.resolve("gleaner.db");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE jobs(id TEXT PRIMARY KEY, range_start INTEGER, range_end INTEGER)");
      s.execute("CREATE TABLE chunks(job_id TEXT, chunk_id INTEGER, start INTEGER, end INTEGER, worker_id TEXT,"
          + " state TEXT)");
      s.execute("CREATE TABLE pieces(job_id TEXT, chunk_id INTEGER, start INTEGER, end INTEGER, worker_id TEXT)");
      s.execute("INSERT INTO jobs VALUES ('j', 0, 100)");
      for (String r : rows) {
        s.execute(r);
      }
    }
    return db;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> job(Map<String, Object> r) {
    return (Map<String, Object>) r.get("j");
  }

  @Test
  void aStoreWithEveryUnitOnceInChunksThatReachTheirEndsIsClean() throws Exception {
    Path db = store("INSERT INTO chunks VALUES ('j', 1, 0, 60, 'w1', 'DONE')",
        "INSERT INTO chunks VALUES ('j', 2, 60, 100, 'w2', 'DONE')",
        "INSERT INTO pieces VALUES ('j', 1, 0, 30, 'w1')", "INSERT INTO pieces VALUES ('j', 1, 30, 60, 'w1')",
        "INSERT INTO pieces VALUES ('j', 2, 60, 100, 'w2')");
    Map<String, Object> r = StoreCheck.check(db, List.of("j"));
    assertEquals(true, r.get("ok"));
    assertEquals(3L, job(r).get("pieces"));
  }

  @Test
  void unitsMissingOrTwiceAndAChunkStoppingShortAreSeen() throws Exception {
    Path db = store("INSERT INTO chunks VALUES ('j', 1, 0, 60, 'w1', 'DONE')",
        "INSERT INTO chunks VALUES ('j', 2, 50, 100, 'w2', 'DONE')",
        "INSERT INTO pieces VALUES ('j', 1, 0, 40, 'w1')", "INSERT INTO pieces VALUES ('j', 2, 50, 70, 'w2')",
        "INSERT INTO pieces VALUES ('j', 2, 65, 90, 'w2')");
    Map<String, Object> r = StoreCheck.check(db, List.of("j"));
    assertEquals(false, r.get("ok"));
    // [40, 50) and [90, 100) missing; [65, 70) twice; chunk 1 stops at 40 of 60, chunk 2 at 90 of 100
    assertEquals(20L, job(r).get("unitsMissing"));
    assertEquals(5L, job(r).get("unitsTwice"));
    assertEquals(2L, job(r).get("doneChunksNotReachingTheirEnd"));
  }
}
