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
    assertTrue(r.out().contains("on 3 of 3 workers (those up at the start)"), why);
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
    assertEquals(saved, perWorker(r.out()), "the workers' lines count this job's units alone: " + why);
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

  /**
   * A desktop whose owner is present at the trace's start sits the warm-up out (away from its join,
   * without an interruption), and is not taken away after it: the report sees no vacate.
   */
  @Test
  void aDesktopAwayAtTheStartSitsTheWarmUpOut() throws Exception {
    Path trace = dir.resolve("away.tab");
    Files.writeString(trace, String.join("\n",
        "event_id\tcomponent_id\tnode_id\tplatform_id\tnode_name\tevent_type\tevent_start_time\tevent_stop_time"
            + "\tevent_end_reason",
        "1\t0\t1\t0\t1\t1\t0\t3600\t0",
        "2\t0\t2\t0\t2\t0\t0\t900\t0",
        "3\t0\t2\t0\t2\t1\t900\t3600\t0", ""));
    Path platform = dir.resolve("two.json");
    Files.writeString(platform, "{\"workers\":[{\"id\":\"1\",\"speed\":10},{\"id\":\"2\",\"speed\":10}]}");

    CommandLineTest.Run r = gleaner("replay", "--run", "--trace", trace.toString(), "--platform", platform.toString(),
        "--speedup", "600", "--strategy", "self");

    String why = r.out() + r.err();
    assertEquals(0, r.code(), why);
    assertTrue(r.out().contains("on 1 of 2 workers (those up at the start)"), why);
    assertTrue(r.out().contains("vacates: 0 (the trace has 0 owner returns)"), why);
    assertTrue(r.out().contains("nothing lost, nothing counted twice"), why);
    Matcher m = SAVED.matcher(r.out());
    assertTrue(m.find(), why);
    assertEquals(Long.parseLong(m.group(1)), perWorker(r.out()), why);
    List<ProcessHandle> left = ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList();
    assertTrue(left.isEmpty(), "processes left running: " + left);
  }

  /** The units of the report's worker lines, summed. */
  private static long perWorker(String out) {
    Matcher w = Pattern.compile("(?m)^  worker \\S+\\s+\\S+\\s+(\\d+) units").matcher(out);
    long sum = 0;
    while (w.find()) {
      sum += Long.parseLong(w.group(1));
    }
    return sum;
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
