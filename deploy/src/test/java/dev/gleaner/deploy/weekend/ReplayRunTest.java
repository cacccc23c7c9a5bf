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

  /**
   * {@code gleaner replay --run} at 1200x on 3 desktops over 3 hours (seed 3: the owners of nodes 1
   * and 3 come back twice each, node 2 stays up), with these options too.
   */
  private CommandLineTest.Run replay(String... options) throws Exception {
    Path trace = dir.resolve("t.tab");
    assertEquals(0, gleaner("trace", "generate", "--nodes", "3", "--hours", "3", "--seed", "3", "-o",
        trace.toString()).code());
    Path platform = dir.resolve("p.json");
    Files.writeString(platform, "{\"workers\":[{\"id\":\"1\",\"speed\":10},{\"id\":\"2\",\"speed\":10},"
        + "{\"id\":\"3\",\"speed\":10}]}");
    List<String> args = new java.util.ArrayList<>(List.of("replay", "--run", "--trace", trace.toString(),
        "--platform", platform.toString(), "--speedup", "1200"));
    args.addAll(List.of(options));
    return gleaner(args.toArray(String[]::new));
  }

  @Test
  void aShortCompressedWeekendIsExactAndEndsEveryProcess() throws Exception {
    CommandLineTest.Run r = replay("--vacate-grace", "5s", "--strategy", "equal");

    String why = r.out() + r.err();
    assertEquals(0, r.code(), why);
    assertTrue(r.out().contains("DONE_PARTIAL"), why);
    assertTrue(r.out().contains("(strategy equal, the trace's outages played as owners' visits)"), why);
    // the JVMs warm up on a job of their own first, and what follows is the weekend's job alone
    assertTrue(r.out().contains("on the 3 workers up at the start, done in"), why);
    assertTrue(r.out().contains("(not counted)"), why);
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
    // the master's forecast, read from a quarter of the run, against what the run saved (or none)
    assertTrue(r.out().contains("forecast from a quarter of the run"), why);
    // the command ended every process it started, by pid
    List<ProcessHandle> left = ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList();
    assertTrue(left.isEmpty(), "processes left running: " + left);
  }

  /**
   * The same short trace played as node failures: each outage is a crash of its worker (down without
   * draining, through its crash file), and the outcome is exact all the same.
   */
  @Test
  void aShortWeekendOfCrashesIsExactAndEndsEveryProcess() throws Exception {
    CommandLineTest.Run r = replay("--interruptions", "crash", "--strategy", "self");

    String why = r.out() + r.err();
    assertEquals(0, r.code(), why);
    assertTrue(r.out().contains("(strategy self, the trace's outages played as crashes)"), why);
    assertTrue(r.out().contains("exact, no gap, no overlap"), why);
    assertTrue(r.out().contains("nothing lost, nothing counted twice"), why);
    // 4 failures, all nodes up at the start: each is a crash its worker's log shows, but two outages last
    // 157 and 330 ms of real time, which a worker starved of the CPU on a busy machine may not see
    Matcher m = Pattern.compile("crashes: (\\d+) \\(the trace has 4 node failures, and 0 of its nodes down at its start\\)")
        .matcher(r.out());
    assertTrue(m.find(), why);
    int crashes = Integer.parseInt(m.group(1));
    assertTrue(crashes >= 2 && crashes <= 4, why);
    assertFalse(r.out().contains("vacates:"), why);
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
    r = gleaner("replay", "--trace", TraceCommandTest.TRACE, "--speedup", "3600", "--strategy", "self");
    assertEquals(1, r.code());
    assertTrue(r.err().contains("--strategy goes with --run"), r.err());
    r = gleaner("replay", "--run", "--trace", TraceCommandTest.TRACE, "--speedup", "3600", "--strategy", "fastest",
        "--platform", TraceCommandTest.DESKTOPS);
    assertEquals(1, r.code());
    assertTrue(r.err().contains("unknown strategy 'fastest'; known: "), r.err());
    r = gleaner("replay", "--run", "--trace", TraceCommandTest.TRACE, "--speedup", "3600", "--interruptions", "crash",
        "--owner-poll", "50ms", "--platform", TraceCommandTest.DESKTOPS);
    assertEquals(1, r.code());
    assertTrue(r.err().contains("--owner-poll applies to owners' visits"), r.err());
  }
}
