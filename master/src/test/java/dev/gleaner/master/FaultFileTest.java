package dev.gleaner.master;

import static dev.gleaner.master.testing.MasterFixture.SECRET;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.time.Ticker;
import dev.gleaner.master.testing.MasterFixture;
import dev.gleaner.master.testing.ScriptedWorker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultFileTest {
  @TempDir
  Path dir;

  @Test
  void theFileNamesFaultsOnePerLineAndAnythingElseIsAnErrorNamingTheLine() {
    assertEquals(FaultFile.Faults.NONE, FaultFile.Faults.parse(List.of("", "# nothing yet")));
    assertEquals(new FaultFile.Faults(true, -3_600_000), FaultFile.Faults.parse(List.of("store-full",
        "  clock-offset -3600  ")));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> FaultFile.Faults.parse(List.of("store-full", "disk-full")));
    assertEquals("line 2: 'disk-full' is not a fault (known: store-full, clock-offset SECONDS)", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> FaultFile.Faults.parse(List.of("clock-offset soon")));
    assertEquals("line 1: 'soon' is not a number of seconds", e.getMessage());
  }

  /** What a chaos run does to a live master: its clock jumps, its store fills up and frees again; the job is exact. */
  @Test
  void aRunningMasterTakesClockJumpsAndAFullStoreFromTheFile() throws Exception {
    Path input = dir.resolve("lines.txt");
    MasterFixture.writeGattacaLines(input, 20_000, " and some more text to make the results big");
    Path faults = dir.resolve("faults");
    FaultFile.ShiftedTicker clock = new FaultFile.ShiftedTicker(Ticker.SYSTEM);
    try (MasterFixture m = MasterFixture.start(dir.resolve("data"), c -> c.withServe(dir).withTicker(clock));
        FaultFile watch = FaultFile.watch(faults, m.server, clock)) {
      Files.writeString(faults, "clock-offset -3600\n");
      await().atMost(Duration.ofSeconds(10)).until(() -> clock.epochMillis() < System.currentTimeMillis() - 3_500_000);
      String id = m.submit(MasterFixture.grepGattaca(input, 100_000));
      Files.writeString(faults, "store-full\nclock-offset 7200\n");
      await().atMost(Duration.ofSeconds(10)).until(() -> clock.epochMillis() > System.currentTimeMillis() + 7_000_000);
      try (ScriptedWorker w = new ScriptedWorker(m.port, SECRET, "w")) {
        await().atMost(Duration.ofSeconds(30)).until(() -> m.server.status(id).getMetricsOrDefault(
            "gleaner.store.failures", 0) > 0);
        assertEquals("RUNNING", m.job(id).getState());
        Files.delete(faults);
        var status = m.awaitEnd(id);
        assertEquals("DONE", status.getState(), status.getMessage());
        assertTrue(status.getResult().startsWith("20000 matching lines"), status.getResult().lines().findFirst().orElse(""));
      }
      assertTrue(Math.abs(clock.epochMillis() - System.currentTimeMillis()) < 60_000, "the offset is gone with the file");
      // each jump, one JSON line beside the fault file: from which machine time the clock is how far off
      Path shifts = FaultFile.shiftsFile(faults);
      assertEquals(dir.resolve("faults.shifts"), shifts);
      await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(shifts) && Files.readAllLines(shifts).size() == 3);
      List<String> lines = Files.readAllLines(shifts);
      long previous = 0;
      long[] offsets = {-3_600_000, 7_200_000, 0};
      for (int i = 0; i < 3; i++) {
        var shift = new com.fasterxml.jackson.databind.ObjectMapper().readTree(lines.get(i));
        assertEquals(offsets[i], shift.get("offsetMillis").asLong(), lines.get(i));
        assertTrue(shift.get("machineMillis").asLong() >= previous, "machine times in order: " + lines);
        previous = shift.get("machineMillis").asLong();
      }
    }
  }
}
