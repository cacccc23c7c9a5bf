package dev.gleaner.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.protocol.Assign;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exec allow-list compares real paths: a namesake elsewhere is not the allowed program. */
class ExecAllowListTest {
  @TempDir
  Path dir;

  private Path script(Path folder, String name) throws IOException {
    Files.createDirectories(folder);
    Path p = folder.resolve(name);
    Files.writeString(p, "#!/bin/sh\necho impostor\n");
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
    return p;
  }

  @Test
  void aProgramWithTheSameBasenameElsewhereIsRefused() throws Exception {
    Path impostor = script(dir.resolve("evil"), "sh");
    ExecAllowList list = ExecAllowList.resolve(Set.of("sh"), System.getenv("PATH"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> list.check(impostor.toString()));
    assertTrue(e.getMessage().contains("'" + impostor + "' is not allowed on this worker")
        && e.getMessage().contains("real path"), e.getMessage());
    // and first on a PATH, a namesake is still not the program allowed at startup
    IllegalArgumentException onPath = assertThrows(IllegalArgumentException.class,
        () -> ExecAllowList.resolve(Set.of("/bin/sh"), dir.resolve("evil") + ":" + System.getenv("PATH")).check("sh"));
    assertTrue(onPath.getMessage().contains(impostor.toRealPath().toString()), onPath.getMessage());
  }

  @Test
  void theAllowedProgramRunsByNameByPathAndThroughALink() throws Exception {
    ExecAllowList list = ExecAllowList.resolve(Set.of("sh"), System.getenv("PATH"));
    Path real = list.check("sh").toRealPath();
    assertEquals(real, list.check(real.toString()).toRealPath());
    Path link = Files.createSymbolicLink(dir.resolve("my-shell"), real);
    assertEquals(link, list.check(link.toString()));
  }

  @Test
  void aFullPathEntryAllowsThatFileOnly() throws Exception {
    Path tool = script(dir.resolve("bin"), "tool");
    Path other = script(dir.resolve("other"), "tool");
    ExecAllowList list = ExecAllowList.resolve(Set.of(tool.toString()), dir.resolve("other").toString());
    assertEquals(tool, list.check(tool.toString()));
    assertThrows(IllegalArgumentException.class, () -> list.check("tool"));
    assertThrows(IllegalArgumentException.class, () -> list.check(other.toString()));
  }

  @Test
  void anEntryThatNamesNoProgramStopsTheWorkerWithOneLine() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ExecAllowList.resolve(Set.of("no-such-program-here"), System.getenv("PATH")));
    assertEquals("--allow-exec no-such-program-here: no such executable program on PATH", e.getMessage());
  }

  @Test
  void aChunkAskingForANamesakeFailsWithTheReason() throws Exception {
    Path impostor = script(dir.resolve("evil"), "sh");
    ChunkRunnerTest.RecordingReporter r = new ChunkRunnerTest.RecordingReporter();
    try (ChunkRunner runner = new ChunkRunner(Workers.workloads(getClass().getClassLoader(), Set.of("sh")), 1, 1, 0, Map.of())) {
      runner.assign(Assign.newBuilder().setJobId("j").setChunkId(1).setWorkload("exec")
          .putParams("command", impostor + " -c true").putParams("to", "1").setStart(0).setEnd(1).build(),
          ChunkRunnerTest.NO_FLOW, r);
      await().atMost(Duration.ofSeconds(10)).until(() -> !r.failures.isEmpty());
    }
    assertTrue(r.failures.get(0).contains("is not allowed on this worker"), r.failures.get(0));
    assertTrue(r.pieces.isEmpty());
  }
}
