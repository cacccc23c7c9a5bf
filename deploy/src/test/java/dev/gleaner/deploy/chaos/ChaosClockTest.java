package dev.gleaner.deploy.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.master.FaultFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The chaos check maps the times a master stored under clock jumps back to the machine's clock. */
class ChaosClockTest {
  @TempDir
  Path dir;

  @Test
  void storedTimesMapBackThroughJumpsForwardAndBack() throws Exception {
    Path shiftsFile = FaultFile.shiftsFile(dir.resolve("faults"));
    Files.writeString(shiftsFile, "{\"machineMillis\":1000000,\"offsetMillis\":3600000}\n"
        + "{\"machineMillis\":1005000,\"offsetMillis\":-1200000}\n");
    List<ClockShifts.Shift> shifts = ClockShifts.read(shiftsFile);
    assertEquals(2, shifts.size());
    long now = 1_010_000;
    // before any jump: the machine's time
    assertEquals(999_000, ClockShifts.machineTime(999_000, shifts, now));
    // an hour ahead between the jumps
    assertEquals(1_002_000, ClockShifts.machineTime(1_002_000 + 3_600_000, shifts, now));
    // twenty minutes behind after the second: earlier on the master's clock than anything before
    assertEquals(1_007_000, ClockShifts.machineTime(1_007_000 - 1_200_000, shifts, now));
    assertEquals(List.of(), ClockShifts.read(dir.resolve("no-jumps.shifts")));
  }

  @Test
  void theShiftFileIsReadLineByLineAndALineThatIsNoJumpNamesItself() throws Exception {
    Path file = dir.resolve("faults.shifts");
    Files.writeString(file, "{\"machineMillis\":1700000000000,\"offsetMillis\":-7200000}\n\n"
        + "{\"offsetMillis\":0,\"machineMillis\":1700000001000}\n");
    assertEquals(List.of(new ClockShifts.Shift(1_700_000_000_000L, -7_200_000),
        new ClockShifts.Shift(1_700_000_001_000L, 0)), ClockShifts.read(file));

    Files.writeString(file, "{\"machineMillis\":1,\"offsetMillis\":2}\n{\"machineMillis\":\"soon\",\"offsetMillis\":2}\n");
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> ClockShifts.read(file));
    assertTrue(e.getMessage().startsWith(file + " line 2: not a clock jump"), e.getMessage());

    Files.writeString(file, "the wall clock jumps by 3600.0 s\n");
    e = assertThrows(IllegalStateException.class, () -> ClockShifts.read(file));
    assertTrue(e.getMessage().startsWith(file + " line 1: not JSON"), e.getMessage());
  }
}
