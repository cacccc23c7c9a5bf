package dev.gleaner.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gleaner.deploy.testing.LocalCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import dev.gleaner.protocol.JobStatus;
import dev.gleaner.worker.WorkerDaemon;
import java.util.ArrayList;
import java.nio.file.Files;
import java.time.Duration;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import org.junit.jupiter.api.io.TempDir;

public class CommandLineTest {
  @TempDir
  Path dir;

  public record Run(int code, String out, String err) {}

  public static Run gleaner(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Gleaner.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Run(code, out.toString(), err.toString());
  }

  /** A missing secret: the master is told how to make one, a worker or client to copy the master's. */
  @Test
  void aMissingSecretSaysWhatToDoForEachRole() throws Exception {
    Path missing = dir.resolve("keys").resolve("secret");
    Run master = gleaner("master", "--port", "0", "--bind", "127.0.0.1", "--data", dir.resolve("data").toString(),
        "--secret-file", missing.toString());
    assertEquals(1, master.code());
    assertEquals("gleaner: secret file " + missing + " does not exist; make one with: mkdir -p " + missing.getParent()
        + " && (umask 077 && head -c 32 /dev/urandom | base64 > " + missing + "), then copy it to every worker and"
        + " client", master.err().strip());
    Run client = gleaner("status", "--master", "127.0.0.1:1", "--secret-file", missing.toString());
    assertEquals(1, client.code());
    assertEquals("gleaner: secret file " + missing + " does not exist; copy the master's secret file there (the same"
        + " bytes; chmod 600; its folder first: mkdir -p " + missing.getParent() + "), or name it with --secret-file",
        client.err().strip());
    // with its folder there, no mkdir
    Files.createDirectories(missing.getParent());
    Run inFolder = gleaner("status", "--master", "127.0.0.1:1", "--secret-file", missing.toString());
    assertEquals("gleaner: secret file " + missing + " does not exist; copy the master's secret file there (the same"
        + " bytes; chmod 600), or name it with --secret-file", inFolder.err().strip());
  }

  /** A result limit below one frame is refused at start: a one-frame result is taken whole, so it could not be held to. */
  @Test
  void aResultLimitBelowTheFrameSizeIsRefusedAtStart() {
    Run master = gleaner("master", "--port", "0", "--bind", "127.0.0.1", "--data", dir.resolve("data").toString(),
        "--secret-file", dir.resolve("secret").toString(), "--max-result-mib", "1");
    assertEquals(1, master.code());
    assertEquals("gleaner: --max-result-mib 1 is below --max-frame-mib 16: a piece's result of one frame could be"
        + " larger than the limit; give --max-result-mib 16 or more, or a smaller --max-frame-mib", master.err().strip());
    assertFalse(java.nio.file.Files.exists(dir.resolve("data")), "nothing made for a master that did not start");
  }

  @Test
  void privateJobsWithoutTokensIsRefusedAtStart() {
    Run master = gleaner("master", "--port", "0", "--bind", "127.0.0.1", "--data", dir.resolve("data").toString(),
        "--secret-file", dir.resolve("secret").toString(), "--private-jobs");
    assertEquals(1, master.code());
    assertEquals("gleaner: --private-jobs keeps clients' jobs from each other, and under the shared secret alone"
        + " everybody is one client: give the master tokens (--tls DIR or --cluster-key FILE)", master.err().strip());
    assertFalse(java.nio.file.Files.exists(dir.resolve("data")), "nothing made for a master that did not start");
  }

  @Test
  void helpListsTheCommands() {
    Run r = gleaner("--help");
    assertEquals(0, r.code());
    for (String cmd : new String[] {"master", "worker", "submit", "status", "demo"}) {
      assertTrue(r.out().contains(cmd), "help should list " + cmd + ":\n" + r.out());
    }
    assertEquals(0, gleaner("submit", "--help").code());
  }

  /** Every command's summary in `gleaner --help` is a whole sentence on its own (none cut mid-sentence). */
  @Test
  void theCommandListHasAWholeSentenceForEachCommand() {
    Run r = gleaner("--help");
    String list = r.out().substring(r.out().indexOf("Commands:"), r.out().indexOf("Start with"));
    // a summary may wrap onto an indented line; joined, each ends a sentence
    String joined = list.replaceAll("\\n {10,}", " ");
    for (String line : joined.lines().skip(1).filter(l -> l.startsWith("  ")).toList()) {
      assertTrue(line.strip().endsWith("."), "cut short: " + line);
    }
  }

  /**
   * No help text breaks a sentence across lines: picocli wraps each paragraph to the terminal, so a
   * paragraph is one string (examples and list items, indented, are lines of their own).
   */
  @Test
  void noHelpTextBreaksASentenceAcrossLines() {
    CommandLine cl = new CommandLine(new Gleaner());
    for (String name : Gleaner.COMMANDS) {
      cl.addSubcommand(name, Gleaner.command(name));
    }
    List<String> broken = new ArrayList<>();
    java.util.ArrayDeque<CommandLine> todo = new java.util.ArrayDeque<>(List.of(cl));
    while (!todo.isEmpty()) {
      CommandLine c = todo.poll();
      todo.addAll(c.getSubcommands().values());
      String[] d = c.getCommandSpec().usageMessage().description();
      for (int i = 0; i + 1 < d.length; i++) {
        boolean prose = !d[i].isBlank() && !d[i].startsWith("  ");
        boolean continues = !d[i + 1].isBlank() && !d[i + 1].startsWith("  ");
        if (prose && continues && !d[i].strip().matches("(?s).*[.:!?)]")) {
          broken.add(c.getCommandSpec().qualifiedName() + ": '" + d[i] + "' / '" + d[i + 1] + "'");
        }
      }
    }
    assertEquals(List.of(), broken);
  }

  /** Every file of the repository an example in a command's help names is there (run from the repository's root). */
  @Test
  void everyExampleFileAHelpNamesExists() {
    CommandLine cl = new CommandLine(new Gleaner());
    for (String name : Gleaner.COMMANDS) {
      cl.addSubcommand(name, Gleaner.command(name));
    }
    Path root = Path.of("").toAbsolutePath().getParent();
    List<String> missing = new ArrayList<>();
    int named = 0;
    java.util.ArrayDeque<CommandLine> todo = new java.util.ArrayDeque<>(List.of(cl));
    while (!todo.isEmpty()) {
      CommandLine c = todo.poll();
      todo.addAll(c.getSubcommands().values());
      for (String line : c.getCommandSpec().usageMessage().description()) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?<![\\w/.])((?:deploy/)?examples/[\\w./-]+)")
            .matcher(line);
        while (m.find()) {
          named++;
          if (!Files.exists(root.resolve(m.group(1)))) {
            missing.add(c.getCommandSpec().qualifiedName() + ": " + m.group(1));
          }
        }
      }
    }
    assertTrue(named > 0, "no help names an example file");
    assertEquals(List.of(), missing);
  }

  @Test
  void anUnknownJobStateListsTheStatesInTheOrderOfAJobsLife() {
    Run r = gleaner("jobs", "--state", "bogus", "--master", "127.0.0.1:1", "--secret-file", "/nonexistent");
    assertEquals(1, r.code());
    assertEquals("gleaner: --state bogus is not a state; known: QUEUED, RUNNING, ENDING, DONE, DONE_PARTIAL, FAILED,"
        + " CANCELLED, running, ended", r.err().strip());
  }

  @Test
  void aMistypedOptionOrCommandGetsTheNearestNames() {
    Run option = gleaner("status", "--mastr", "127.0.0.1:1");
    assertEquals(2, option.code());
    assertTrue(option.err().lines().findFirst().orElse("").endsWith("; did you mean --master?"), option.err());
    // the words after a mistyped option (an address, a job file) are not called unknown options
    Run file = gleaner("submit", "--maste", "127.0.0.1:1", "g3.yaml");
    assertEquals(2, file.code());
    assertEquals("gleaner submit: unknown option '--maste' ('g3.yaml' after it went unread); did you mean --master?",
        file.err().lines().findFirst().orElse(""));
    Run command = gleaner("sttaus");
    assertEquals(2, command.code());
    assertTrue(command.err().contains("did you mean status"), command.err());
  }

  @Test
  void anArgumentErrorIsOneLineAndWhereTheOptionsAre() {
    Run r = gleaner("submit", dir.resolve("job.yaml").toString(), "--bogus");
    assertEquals(2, r.code());
    assertEquals(List.of("gleaner submit: unknown option '--bogus'", "see `gleaner submit --help`"),
        r.err().strip().lines().toList());
    assertTrue(gleaner("--version").out().contains("protocol " + dev.gleaner.protocol.ProtocolVersion.CURRENT));
  }

  @Test
  void bashCompletionKnowsTheCommandsAndTheirOptions() {
    Run r = gleaner("generate-completion");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().contains("complete -F"), "a bash completion script");
    assertTrue(r.out().contains("--expected-up") && r.out().contains("--job-key"), "options of master and submit");
  }

  @Test
  void aMissingJobFileIsOneClearLine() {
    Run r = gleaner("submit", dir.resolve("nope.yaml").toString(), "--secret-file", dir.resolve("s").toString());
    assertEquals(1, r.code());
    assertEquals(1, r.err().strip().lines().count(), r.err());
    assertTrue(r.err().startsWith("gleaner: job file") && r.err().contains("does not exist"), r.err());
  }

  @Test
  void badOwnerPolicyOptionsAreOneClearLineEachBeforeTheWorkerStarts() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "0123456789abcdef0123");
    String[][] cases = {
        {"--available", "Fry 18:00-Mon 08:00", "'Fry' in the window 'Fry 18:00-Mon 08:00' is not a day of the week"},
        {"--available", "weekends", "'weekends' is not an availability window: expected 'DAY HH:MM-DAY HH:MM'"},
        {"--owner", "keyboard", "'keyboard' is not an owner activity source; known: input"},
        {"--vacate-grace", "10s", "--vacate-grace applies to an owner policy"},
        {"--owner-file", "f", "--idle-before-start", "15 minutes", "--idle-before-start: cannot read '15 minutes'"},
        {"--owner-file", "f", "--on-owner", "pause", "--on-owner must be vacate or suspend, got 'pause'"},
    };
    for (String[] c : cases) {
      java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("worker", "--master", "127.0.0.1:1",
          "--secret-file", secret.toString()));
      args.addAll(java.util.List.of(c).subList(0, c.length - 1));
      Run r = gleaner(args.toArray(String[]::new));
      assertEquals(1, r.code(), r.err());
      assertEquals(1, r.err().strip().lines().count(), r.err());
      assertTrue(r.err().contains(c[c.length - 1]), r.err());
    }
  }

  @Test
  void drainAsksAConnectedWorkerToLeaveAndNamesAnUnknownOne() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      dev.gleaner.worker.WorkerDaemon w = c.worker("w1", 1, Set.of());
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
          .until(() -> c.workerStatus("w1").getState().equals("READY"));
      String master = "127.0.0.1:" + c.master.port();
      Run unknown = gleaner("drain", "nobody", "--master", master, "--secret-file", c.secretFile().toString());
      assertEquals(1, unknown.code());
      assertEquals("gleaner: no worker 'nobody' is connected (gleaner status lists them)", unknown.err().strip());
      Run r = gleaner("drain", "w1", "--reason", "maintenance", "--json", "--master", master, "--secret-file",
          c.secretFile().toString());
      assertEquals(0, r.code(), r.err());
      assertEquals("w1", new ObjectMapper().readTree(r.out()).get("worker").asText());
      assertTrue(w.awaitStop(java.time.Duration.ofSeconds(30)), "the worker drained and stopped");
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
          .until(() -> c.workerStatus("w1").getState().equals("GONE"));
      assertEquals(0, c.workerStatus("w1").getInterruptions(), "leaving when asked is no interruption");
    }
  }

  @Test
  void anUnreachableMasterIsOneClearLine() throws Exception {
    Path job = Files.writeString(dir.resolve("job.yaml"), "workload: primes\nparams: {to: 100}\n");
    Path secret = Files.writeString(dir.resolve("secret"), "0123456789abcdef0123");
    Run r = gleaner("submit", job.toString(), "--master", "127.0.0.1:1", "--secret-file", secret.toString());
    assertEquals(1, r.code());
    assertTrue(r.err().startsWith("gleaner: cannot reach the master at 127.0.0.1:1"), r.err());
  }

  @Test
  void submitFollowsTheJobAndStatusPrintsJsonOnly() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      c.worker("w1", 1, Set.of());
      Path job = Files.writeString(dir.resolve("job.yaml"), "workload: primes\nparams: {to: 1000000}\n");
      String master = "127.0.0.1:" + c.master.port();
      Run submitted = gleaner("submit", job.toString(), "--master", master, "--secret-file", c.secretFile().toString(), "--json");
      assertEquals(0, submitted.code(), submitted.err());
      JsonNode doc = new ObjectMapper().readTree(submitted.out());
      assertEquals("DONE", doc.get("state").asText());
      assertEquals("78498 primes", doc.get("result").asText());

      Run status = gleaner("status", "--master", master, "--secret-file", c.secretFile().toString(), "--json");
      assertEquals(0, status.code(), status.err());
      JsonNode all = new ObjectMapper().readTree(status.out());
      assertEquals("w1", all.get("workers").get(0).get("id").asText());
      assertEquals(1, all.get("jobs").size());
      assertEquals(1_000_000, all.get("metrics").get("gleaner.units.committed").asLong());
      assertTrue(all.get("metrics").get("gleaner.chunks.completed").asLong() > 0);

      Run table = gleaner("status", "--master", master, "--secret-file", c.secretFile().toString());
      assertTrue(table.out().contains("JOBS") && table.out().contains("78498 primes"), table.out());
    }
  }

  /** The job commands people expect: list, follow, cancel (keeping what is saved), forget. */
  /**
   * A cancel keeps what the workers computed since their last checkpoints (here: everything, as no
   * checkpoint comes for hours), and the result says on stdout and in its exit code that it is partial.
   */
  @Test
  void aCancelKeepsWhatTheWorkersComputedAndItsResultSaysItIsPartial() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      List<WorkerDaemon> workers = new ArrayList<>();
      for (int i = 1; i <= 3; i++) {
        workers.add(c.worker("w" + i, 1, Set.of(), w -> w.withMaxSpeed(100_000)));
      }
      String master = "127.0.0.1:" + c.master.port();
      String secret = c.secretFile().toString();
      // chunks of 10^9 units at 10^5 units/s: no piece for hours
      Path job = Files.writeString(dir.resolve("long.yaml"), "workload: primes\nparams: {to: 100000000000}\n"
          + "strategy: self\nchunk-units: 1000000000\ncheckpoints: 1\n");
      Run detached = gleaner("submit", job.toString(), "--master", master, "--secret-file", secret, "--detach");
      assertEquals(0, detached.code(), detached.err());
      String id = detached.out().strip();
      await().atMost(Duration.ofSeconds(60)).until(() -> workers.stream().allMatch(w -> w.counters().unitsComputed() > 0));
      long computed = workers.stream().mapToLong(w -> w.counters().unitsComputed()).sum();
      assertEquals(0, c.job(id).getUnitsDone(), "nothing saved before the cancel");

      // a grace no busy machine runs out of: the job ends as soon as the three last pieces are in
      Run cancelled = gleaner("cancel", id, "--master", master, "--secret-file", secret, "--grace", "10m");
      assertEquals(0, cancelled.code(), cancelled.err());
      Run waited = gleaner("wait", id, "--master", master, "--secret-file", secret, "--quiet");
      assertEquals(3, waited.code(), waited.out() + waited.err());
      JobStatus s = c.job(id);
      assertEquals("CANCELLED", s.getState());
      assertTrue(s.getUnitsDone() >= computed, "kept " + s.getUnitsDone() + " units, computed " + computed
          + " before the cancel");

      Run result = gleaner("result", id, "--master", master, "--secret-file", secret);
      assertEquals(3, result.code(), result.err());
      List<String> lines = result.out().lines().toList();
      assertEquals(s.getResult(), lines.get(0));
      assertTrue(lines.get(lines.size() - 1).startsWith("# partial result (CANCELLED): cancelled (gleaner cancel): "
          + s.getUnitsDone() + " of 100000000000 units done"), result.out());

      Run now = gleaner("cancel", id, "--master", master, "--secret-file", secret, "--now");
      assertEquals(1, now.code());
      assertTrue(now.err().contains("has already ended (CANCELLED)"), now.err());
      Run badGrace = gleaner("cancel", id, "--master", master, "--secret-file", secret, "--grace", "soon");
      assertEquals(1, badGrace.code());
      assertEquals("gleaner: --grace: cannot read 'soon' as a length of time; write 30s, 15m, 1h30m, 500ms or 0",
          badGrace.err().strip());
    }
  }

  @Test
  void jobsCanBeListedFollowedCancelledAndForgotten() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      // slow enough that the job is still running when it is cancelled
      c.worker("w1", 1, Set.of(), w -> w.withMaxSpeed(200_000));
      String master = "127.0.0.1:" + c.master.port();
      String secret = c.secretFile().toString();
      Path job = Files.writeString(dir.resolve("long.yaml"), "workload: primes\nparams: {to: 1000000000}\n"
          + "strategy: self\nchunk-units: 100000\nname: a long count\n");
      Run detached = gleaner("submit", job.toString(), "--master", master, "--secret-file", secret, "--detach");
      assertEquals(0, detached.code(), detached.err());
      String id = detached.out().strip();
      await().atMost(Duration.ofSeconds(30)).until(() -> c.job(id).getUnitsDone() > 0);

      Run running = gleaner("jobs", "--master", master, "--secret-file", secret, "--state", "running");
      assertEquals(0, running.code(), running.err());
      assertTrue(running.out().startsWith(id) && running.out().contains("RUNNING") && running.out().contains("a long count"),
          running.out());
      Run early = gleaner("forget", id, "--master", master, "--secret-file", secret);
      assertEquals(1, early.code());
      assertTrue(early.err().contains("has not ended; `gleaner cancel " + id + "` first"), early.err());
      Run notYet = gleaner("result", id, "--master", master, "--secret-file", secret);
      assertEquals(1, notYet.code());
      assertTrue(notYet.err().contains("job " + id + " has not ended yet: `gleaner wait " + id + "` follows it to its"
          + " end, `gleaner status --job " + id + "` shows it now"), notYet.err());
      // the command it names works as written
      Run shown = gleaner("status", "--job", id, "--master", master, "--secret-file", secret);
      assertEquals(0, shown.code(), shown.err());
      assertTrue(shown.out().contains(id), shown.out());

      Run cancelled = gleaner("cancel", id, "--master", master, "--secret-file", secret, "--reason", "owner needs it");
      assertEquals(0, cancelled.code(), cancelled.err());
      assertTrue(cancelled.out().startsWith(id + " is being cancelled: its workers report what they computed")
          || cancelled.out().startsWith(id + " cancelled: "), cancelled.out());
      Run waited = gleaner("wait", id, "--master", master, "--secret-file", secret, "--quiet");
      assertEquals(3, waited.code(), waited.err());
      assertTrue(waited.out().startsWith(id + " CANCELLED: cancelled (owner needs it)"), waited.out());
      JobStatus s = c.job(id);
      assertEquals("CANCELLED", s.getState());
      // what was saved is the result, exact for the units done; the rest is listed as not done
      long done = s.getUnitsDone();
      assertTrue(done > 0 && done < 1_000_000_000L, "units saved: " + done);
      assertEquals(1_000_000_000L - done, s.getNotDoneList().stream().mapToLong(r -> r.getEnd() - r.getStart()).sum());
      long expected = 0;
      long at = 0;
      for (var notDone : s.getNotDoneList()) {
        expected += new dev.gleaner.common.workload.PrimeSieve().count(at, notDone.getStart(),
            dev.gleaner.common.workload.ChunkComputation.Cancellation.NEVER);
        at = notDone.getEnd();
      }
      expected += new dev.gleaner.common.workload.PrimeSieve().count(at, 1_000_000_000L,
          dev.gleaner.common.workload.ChunkComputation.Cancellation.NEVER);
      assertEquals(expected + " primes", s.getResult());
      Run again = gleaner("cancel", id, "--master", master, "--secret-file", secret);
      assertEquals(1, again.code());
      assertTrue(again.err().contains("has already ended (CANCELLED)"), again.err());

      Run forgotten = gleaner("forget", id, "--master", master, "--secret-file", secret);
      assertEquals(0, forgotten.code(), forgotten.err());
      assertFalse(gleaner("jobs", "--master", master, "--secret-file", secret).out().contains(id + " "));
      Run unknown = gleaner("wait", id, "--master", master, "--secret-file", secret, "--quiet");
      assertEquals(1, unknown.code());
      assertEquals(1, unknown.err().strip().lines().count(), unknown.err());
    }
  }

  @Test
  void aResultTooLongForAStatusIsPrintedWholeBySubmitAndByResult() throws Exception {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < 20_000; i++) {
      // multi-byte characters, so parts cut inside one
      text.append("ligne ").append(i).append(" café GATTACA\n");
    }
    Path input = Files.writeString(dir.resolve("input.txt"), text);
    try (LocalCluster c = new LocalCluster(dir)) {
      c.worker("w1", 1, Set.of());
      Path job = Files.writeString(dir.resolve("job.yaml"), "workload: grep\nparams: {file: " + input
          + ", pattern: GATTACA, max-lines: 1000000}\n");
      String master = "127.0.0.1:" + c.master.port();
      String whole = "20000 matching lines\n" + String.join("\n", text.toString().lines().toList());
      Run submitted = gleaner("submit", job.toString(), "--master", master, "--secret-file", c.secretFile().toString());
      assertEquals(0, submitted.code(), submitted.err());
      assertEquals(whole, submitted.out().strip());

      Run printed = gleaner("result", "job-1", "--master", master, "--secret-file", c.secretFile().toString());
      assertEquals(0, printed.code(), printed.err());
      assertEquals(whole, printed.out().strip());
      Path file = dir.resolve("result.txt");
      Run saved = gleaner("result", "job-1", "-o", file.toString(), "--master", master, "--secret-file",
          c.secretFile().toString());
      assertEquals(0, saved.code(), saved.err());
      assertEquals(whole, Files.readString(file));

      Run table = gleaner("status", "--master", master, "--secret-file", c.secretFile().toString());
      assertTrue(table.out().contains("(gleaner result job-1)"), table.out());
      Run unknown = gleaner("result", "job-7", "--master", master, "--secret-file", c.secretFile().toString());
      assertEquals(1, unknown.code());
      assertTrue(unknown.err().contains("the master knows no job 'job-7'"), unknown.err());
    }
  }

  @Test
  void aWrongSecretIsRefusedWithTheReason() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      Path wrong = Files.writeString(dir.resolve("wrong"), "not-the-cluster-secret-at-all");
      Run r = gleaner("status", "--master", "127.0.0.1:" + c.master.port(), "--secret-file", wrong.toString());
      assertEquals(1, r.code());
      assertTrue(r.err().contains("authentication failed"), r.err());
    }
  }

}
