package dev.gleaner.deploy.chaos;

import dev.gleaner.deploy.Gleaner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.gleaner.deploy.launch.Signals;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The long chaos suite, not run by default: {@code mvn -Pchaos -pl deploy verify} (20 runs of 4
 * worker JVMs, every fault kind, about 15 minutes here; {@code -Dgleaner.chaos.runs=N} and
 * {@code -Dgleaner.chaos.seed=S} change the series).
 */
@Tag("chaos")
class ChaosLongTest {
  private final List<Long> before = new ArrayList<>();

  @BeforeEach
  void noteChildren() {
    ProcessHandle.current().descendants().forEach(p -> before.add(p.pid()));
  }

  @AfterEach
  void noProcessLeft() {
    List<ProcessHandle> left = ProcessHandle.current().descendants()
        .filter(p -> !before.contains(p.pid()) && p.isAlive()).toList();
    for (ProcessHandle p : left) {
      Signals.send(p.pid(), "KILL");
    }
    assertEquals(List.of(), left.stream().map(ProcessHandle::pid).toList(), "processes left running");
  }

  @Test
  void everyRunOfTheSeriesGivesExactAnswersAndTiledStores() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Gleaner.run(new PrintWriter(out, true), new PrintWriter(err, true), "chaos",
        "--runs", System.getProperty("gleaner.chaos.runs", "20"), "--seed", System.getProperty("gleaner.chaos.seed", "100"),
        "--workers", "4", "--faults-per-run", "3");
    assertEquals(0, code, out + "\n" + err);
  }
}
