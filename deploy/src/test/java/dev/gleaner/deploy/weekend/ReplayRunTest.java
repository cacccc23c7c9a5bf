package dev.gleaner.deploy.weekend;

import dev.gleaner.deploy.CommandLineTest;

import static dev.gleaner.deploy.CommandLineTest.gleaner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gleaner replay --run} through the command line: a short compressed weekend on a master and
 * three worker JVMs whose owners come back and leave as the trace says. What is asserted is the
 * outcome's exactness (the store's pieces and the not-done ranges tile the range, the count is the
 * reference sieve's) and that no process is left behind, not how much was saved.
 */
class ReplayRunTest {
  private static final Pattern SAVED = Pattern.compile("saved: (\\d+) units of (\\d+) \\((\\d+) pieces\\); not done: (\\d+) units");

  @TempDir
  Path dir;

  @Test
  void aShortCompressedWeekendIsExactAndEndsEveryProcess() throws Exception {
    // 3 desktops over 3 hours: the owners of nodes 1 and 3 come back twice each, node 2 stays up
    Path trace = dir.resolve("t.tab");
    assertEquals(0, gleaner("trace", "generate", "--nodes", "3", "--hours", "3", "--seed", "3", "-o",
        trace.toString()).code());
    Path platform = dir.resolve("p.json");
    Files.writeString(platform, "{\"workers\":[{\"id\":\"1\",\"speed\":10},{\"id\":\"2\",\"speed\":10},"
        + "{\"id\":\"3\",\"speed\":10}]}");

    CommandLineTest.Run r = gleaner("replay", "--run", "--trace", trace.toString(), "--platform", platform.toString(),
        "--speedup", "1200", "--vacate-grace", "5s");

    String why = r.out() + r.err();
    assertEquals(0, r.code(), why);
    assertTrue(r.out().contains("DONE_PARTIAL"), why);
    assertTrue(r.out().contains("exact, no gap, no overlap"), why);
    assertTrue(r.out().contains("), exact"), why);
    assertTrue(r.out().contains("nothing lost, nothing counted twice"), why);
    Matcher m = SAVED.matcher(r.out());
    assertTrue(m.find(), why);
    long saved = Long.parseLong(m.group(1));
    long work = Long.parseLong(m.group(2));
    long notDone = Long.parseLong(m.group(4));
    // the default work is every worker at full speed for the whole trace: 3 x 10 units/s x 3 h
    assertEquals(324_000, work);
    assertTrue(saved > 0, why);
    assertTrue(notDone > 0, "the trace has owners present, so not everything fits: " + why);
    assertEquals(work, saved + notDone, why);
    assertTrue(r.out().contains("(the trace has 4 owner returns)"), why);
    // the command ended every process it started, by pid
    List<ProcessHandle> left = ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList();
    assertTrue(left.isEmpty(), "processes left running: " + left);
  }

  @Test
  void runOnlyOptionsWithoutRunAndEpsWithRunAreOneLineErrors() {
    CommandLineTest.Run r = gleaner("replay", "--trace", TraceCommandTest.TRACE, "--speedup", "3600", "--work", "10");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("--work goes with --run"), r.err());
    r = gleaner("replay", "--run", "--trace", TraceCommandTest.TRACE, "--speedup", "3600", "--eps", "1",
        "--platform", TraceCommandTest.DESKTOPS);
    assertEquals(1, r.code());
    assertTrue(r.err().contains("--eps goes without --run"), r.err());
    r = gleaner("replay", "--run", "--trace", TraceCommandTest.TRACE, "--speedup", "3600");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("--run needs --platform"), r.err());
    assertFalse(r.err().contains("Exception"), r.err());
  }
}
