package dev.gleaner.master.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.testing.MasterFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One master per data directory: a second one is refused with a line that says why, not run beside it. */
class DataDirLockTest {
  @TempDir
  Path dir;

  @Test
  void aSecondMasterOnOneDataDirIsRefusedAndTheFirstKeepsItsJobs() throws Exception {
    try (MasterFixture first = MasterFixture.start(dir)) {
      String job = first.submit(MasterFixture.primes(0, 1000, "self", 100, 0));
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> MasterFixture.start(dir));
      assertTrue(e.getMessage().contains("is in use by another master"), e.getMessage());
      assertTrue(e.getMessage().contains("pid " + ProcessHandle.current().pid()), e.getMessage());
      // the refused master touched nothing: the first still numbers its jobs and still holds the lock
      assertEquals("job-2", first.submit(MasterFixture.primes(0, 1000, "self", 100, 0)));
      assertEquals("job-1", job);
      assertThrows(IllegalStateException.class, () -> MasterFixture.start(dir));
    }
    // once the first has stopped, a master may take the directory over
    try (MasterFixture next = MasterFixture.start(dir)) {
      assertEquals("job-3", next.submit(MasterFixture.primes(0, 1000, "self", 100, 0)));
    }
  }

  @Test
  void aMasterThatCannotListenLeavesNoDataFolderOfItsOwnBehind() throws Exception {
    try (MasterFixture first = MasterFixture.start(dir.resolve("first"))) {
      java.net.InetSocketAddress taken = new java.net.InetSocketAddress("127.0.0.1", first.port);
      Path fresh = dir.resolve("fresh");
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> MasterFixture.start(taken, fresh, c -> c));
      assertTrue(e.getMessage().startsWith("cannot listen on "), e.getMessage());
      assertTrue(!java.nio.file.Files.exists(fresh), "the folder it made is gone");
      // one that was there before stays, with what it held
      Path existing = java.nio.file.Files.createDirectories(dir.resolve("existing"));
      java.nio.file.Files.writeString(existing.resolve("notes.txt"), "mine");
      assertThrows(IllegalStateException.class, () -> MasterFixture.start(taken, existing, c -> c));
      assertEquals("mine", java.nio.file.Files.readString(existing.resolve("notes.txt")));
    }
  }
}
