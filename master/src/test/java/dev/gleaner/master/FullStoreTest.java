package dev.gleaner.master;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.testing.LogLines;
import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.ScriptedWorker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A master whose disk is full (its store capped by the fault injection's {@code capPages}): pieces
 * are queued again, not lost, the job goes on, failures are counted and folded in the log, the WAL
 * gives its space back, and once the store can write the count is exact.
 */
class FullStoreTest {
  @TempDir
  Path dir;

  @Test
  void aFullStoreQueuesPiecesAgainAndTheJobGoesOnOnceItCanWrite() throws Exception {
    Path file = dir.resolve("lines.txt");
    MasterFixture.writeGattacaLines(file, 20_000, " and some more text to make the results big");
    try (MasterFixture m = MasterFixture.start(dir.resolve("data"), c -> c.withServe(dir))) {
      String id = m.submit(MasterFixture.grepGattaca(file, 100_000));
      LogLines lines = LogLines.of(dev.gleaner.master.store.Store.class);
      LogLines loopLines = LogLines.of(dev.gleaner.master.loop.ControlLoop.class);
      // the disk is full: no page may be added to the store
      long fullSince = System.nanoTime();
      m.server.store().call(FaultFile.capPages(1));
      try (ScriptedWorker w = new ScriptedWorker(m.port, SECRET, "w")) {
        await().atMost(Duration.ofSeconds(30)).until(() -> m.server.status(id).getMetricsOrDefault(
            "gleaner.store.failures", 0) > 3);
        var stuck = m.job(id);
        assertEquals("RUNNING", stuck.getState(), "a full disk does not fail the job: " + stuck.getMessage());
        assertTrue(stuck.getMessage().startsWith("the store could not save a piece (the disk of the data folder is full"
            + " ([SQLITE_FULL]"), stuck.getMessage());
        // the WAL gives back the space it holds, so that a write can succeed again on a small disk
        await().atMost(Duration.ofSeconds(30)).until(() -> m.server.store().walTruncations() > 0);
        // every failed write is counted, not each logged with its stack trace: the first of a window is
        // a line, the rest are folded into the next one
        List<String> failed = lines.messages().stream().filter(l -> l.startsWith("store operation failed")).toList();
        double failures = m.server.status(id).getMetricsOrDefault("gleaner.store.failures", 0);
        assertTrue(!failed.isEmpty() && failed.size() < failures, failed.size() + " lines for " + failures
            + " failures: " + failed);
        lines.close();
        // space again: the queued units are saved and the count is exact
        m.server.store().call(FaultFile.capPages(0));
        double fullSeconds = (System.nanoTime() - fullSince) / 1e9;
        loopLines.close();
        // the control loop's store failures are folded too: a line of each kind per window at most
        for (String kind : List.of("cannot store its plan and checks", "cannot save piece", "cannot record chunk")) {
          long n = loopLines.messages().stream().filter(l -> l.contains(kind)).count();
          assertTrue(n >= (kind.equals("cannot save piece") ? 1 : 0), "the full disk was said: " + kind);
          assertTrue(n <= 2 + fullSeconds / dev.gleaner.master.store.ProblemLog.WINDOW_SECONDS, n + " lines of \""
              + kind + "\" in " + fullSeconds + " s");
        }
        var status = m.awaitEnd(id);
        assertEquals("DONE", status.getState(), status.getMessage());
        assertTrue(status.getResult().startsWith("20000 matching lines"), status.getResult().lines().findFirst().orElse(""));
        // a chunk whose record could not be written was never sent: every chunk the worker got is in the store
        java.util.Set<Long> recorded = new java.util.HashSet<>(m.server.store().call(tx -> tx.query(
            "SELECT chunk_id FROM chunks WHERE job_id=?", r -> r.getLong(1), id)));
        List<Long> sent = List.copyOf(w.assigned).stream().map(dev.gleaner.protocol.Assign::getChunkId).toList();
        assertTrue(!sent.isEmpty() && recorded.containsAll(sent), "sent " + sent + ", recorded " + recorded);
      }
    }
  }

  @Test
  void aChunkWhoseRecordFailsIsNotSentAndItsUnitsAreQueuedAgain() throws Exception {
    try (MasterFixture m = MasterFixture.start(dir.resolve("data"))) {
      // the store refuses every new chunk row, as it would a write that needs a page on a full disk
      m.server.store().call(tx -> tx.update("CREATE TEMP TRIGGER no_chunks BEFORE INSERT ON main.chunks"
          + " BEGIN SELECT RAISE(ABORT, 'no room for a chunk'); END"));
      String id = m.submit(MasterFixture.primes(0, 300_000, "self", 50_000, 2));
      try (ScriptedWorker w = new ScriptedWorker(m.port, SECRET, "w")) {
        await().atMost(Duration.ofSeconds(30)).until(() -> m.server.status(id).getMetricsOrDefault(
            "gleaner.store.failures", 0) >= 2);
        var stuck = m.job(id);
        assertEquals("RUNNING", stuck.getState(), stuck.getMessage());
        assertEquals("the store could not record a chunk ([SQLITE_CONSTRAINT_TRIGGER] A RAISE function within a trigger"
            + " fired, causing the SQL statement to abort (no room for a chunk)); its units are queued again",
            stuck.getMessage());
        assertTrue(w.assigned.isEmpty(), "sent without a record: " + w.assigned);
        m.server.store().call(tx -> tx.update("DROP TRIGGER temp.no_chunks"));
        var status = m.awaitEnd(id);
        assertEquals("DONE", status.getState(), status.getMessage());
        assertEquals("25997 primes", status.getResult());
        assertFalse(w.assigned.isEmpty());
      }
    }
  }
}
