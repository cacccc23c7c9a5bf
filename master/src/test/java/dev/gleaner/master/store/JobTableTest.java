package dev.gleaner.master.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.gleaner.common.control.JobPhase;
import java.nio.file.Path;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A job's state column holds the names of {@link JobPhase}, and reads back as one. */
class JobTableTest {
  @TempDir
  Path dir;

  private static JobTable.JobRecord queued(String id) {
    return new JobTable.JobRecord(id, 1, "primes", "primes", new byte[0], JobPhase.QUEUED, 0, 100, "auto", 1_000, 0,
        null, null, null);
  }

  @Test
  void everyPhaseIsStoredAsItsNameAndReadBack() {
    try (Store store = new Store(dir)) {
      store.call(JobTable.insertJob(queued("job-1")));
      for (JobPhase phase : JobPhase.values()) {
        store.call(JobTable.updateJob("job-1", phase, null, null, null, null));
        assertEquals(phase, store.call(JobTable.job("job-1")).state());
        assertEquals(phase.name(), store.call(c -> c.one("SELECT state FROM jobs WHERE id=?", r -> r.getString(1),
            "job-1")));
      }
    }
  }

  @Test
  void aStoredWordThatIsNoPhaseIsRefusedNamingTheJobAndTheWord() {
    try (Store store = new Store(dir)) {
      store.call(JobTable.insertJob(queued("job-1")));
      store.call(c -> c.update("UPDATE jobs SET state='WAITING' WHERE id=?", "job-1"));
      CompletionException e = assertThrows(CompletionException.class, () -> store.call(JobTable.jobs()));
      IllegalStateException cause = assertInstanceOf(IllegalStateException.class, e.getCause());
      assertEquals("job job-1 has the state 'WAITING' in the store, which is not a job phase (one of [QUEUED,"
          + " RUNNING, ENDING, DONE, DONE_PARTIAL, FAILED, CANCELLED])", cause.getMessage());
    }
  }
}
