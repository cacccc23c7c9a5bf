package dev.gleaner.deploy.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The chaos check maps the times a master stored under clock jumps back to the machine's clock. */
class ChaosClockTest {
  @Test
  void storedTimesMapBackThroughJumpsForwardAndBack() {
    String log = "12:00:01.000 WARN  FaultFile - fault injection: the wall clock jumps by 3600.0 s; from machine time"
        + " 1000000 ms it is 3600000 ms off\n"
        + "12:00:05.000 WARN  FaultFile - fault injection: the wall clock jumps by -4800.0 s; from machine time"
        + " 1005000 ms it is -1200000 ms off\n";
    List<long[]> shifts = ChaosRun.clockShifts(log);
    assertEquals(2, shifts.size());
    long now = 1_010_000;
    // before any jump: the machine's time
    assertEquals(999_000, ChaosRun.machineTime(999_000, shifts, now));
    // an hour ahead between the jumps
    assertEquals(1_002_000, ChaosRun.machineTime(1_002_000 + 3_600_000, shifts, now));
    // twenty minutes behind after the second: earlier on the master's clock than anything before
    assertEquals(1_007_000, ChaosRun.machineTime(1_007_000 - 1_200_000, shifts, now));
    assertEquals(List.of(), ChaosRun.clockShifts("no jumps here"));
  }
}
