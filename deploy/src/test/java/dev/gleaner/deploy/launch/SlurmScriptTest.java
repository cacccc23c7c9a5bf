package dev.gleaner.deploy.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.CommandLineTest;
import dev.gleaner.deploy.Gleaner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Slurm batch script and the checks before it, without Slurm. */
class SlurmScriptTest {
  @TempDir
  Path dir;

  @Test
  void timeLimitsInSlurmsSyntax() {
    Map<String, Long> ok = Map.of("90", 5400L, "8:00:00", 28_800L, "10:30", 630L, "1-12", 129_600L,
        "1-12:30", 131_400L, "2-00:00:01", 172_801L);
    ok.forEach((text, seconds) -> assertEquals(seconds, SlurmScript.timeLimitSeconds(text), text));
    for (String bad : List.of("8h", "", "1:2:3:4", "-5", "1-", "abc", "1-24:00", "10:61")) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SlurmScript.timeLimitSeconds(bad));
      assertTrue(e.getMessage().startsWith("--time '" + bad + "' is not a Slurm time limit"), e.getMessage());
    }
    assertEquals("--time '0' is no time at all",
        assertThrows(IllegalArgumentException.class, () -> SlurmScript.timeLimitSeconds("0")).getMessage());
  }

  static SlurmScript script(int nodes, String partition, Integer cores, String comment, boolean idPerNode) {
    return new SlurmScript("gleaner-worker", nodes, "8:00:00", partition, cores, comment, 120,
        List.of("/opt/java/bin/java", "-cp", "/opt/gleaner/it's here.jar", "dev.gleaner.deploy.Gleaner"),
        List.of("--master", "head:7070", "--secret-file", "/home/a/.gleaner/secret"), idPerNode);
  }

  @Test
  void theScriptAsksForOneTaskANodeAndSignalsBeforeTheEnd() {
    String s = script(4, "short", 8, "gleaner-autoscale:head:7070", true).text();
    List<String> directives = s.lines().filter(l -> l.startsWith("#SBATCH")).toList();
    assertEquals(List.of("#SBATCH --job-name=gleaner-worker", "#SBATCH --nodes=4", "#SBATCH --ntasks-per-node=1",
        "#SBATCH --time=8:00:00", "#SBATCH --signal=TERM@60", "#SBATCH --partition=short",
        "#SBATCH --cpus-per-task=8", "#SBATCH --comment=gleaner-autoscale:head:7070"), directives);
    assertTrue(s.startsWith("#!/bin/sh\n"));
    // the end from squeue, less the drain margin, in UTC
    assertTrue(s.contains("squeue -h -j \"$SLURM_JOB_ID\" -o %e"), s);
    assertTrue(s.contains("until=$(date -u -d \"@$((end_s - 120))\" +%Y-%m-%dT%H:%M:%SZ)"), s);
    // the class path with a quote in it survives the shell
    assertTrue(s.contains("set -- /opt/java/bin/java -cp '/opt/gleaner/it'\\''s here.jar' dev.gleaner.deploy.Gleaner"
        + " worker --master head:7070 --secret-file /home/a/.gleaner/secret --cores 8\n"), s);
    assertTrue(s.contains("exec srun --ntasks-per-node=1 --kill-on-bad-exit=0 --cpus-per-task=8 /bin/sh -c"
        + " 'exec \"$@\" --id \"slurm-$SLURM_JOB_ID-$SLURMD_NODENAME\"' gleaner-worker \"$@\"\n"), s);
    String plain = script(1, null, null, null, false).text();
    assertTrue(!plain.contains("--partition") && !plain.contains("--cpus-per-task") && !plain.contains("--comment"),
        plain);
    assertTrue(plain.contains("exec srun --ntasks-per-node=1 --kill-on-bad-exit=0 \"$@\"\n"), plain);
  }

  /** The script runs in the shell: with squeue and srun stubbed, the worker gets its id and its end. */
  @Test
  void theScriptRunsTheWorkerWithItsIdAndItsEnd() throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    stub(bin.resolve("squeue"), "echo 2030-01-02T03:04:05");
    // srun runs its command once, as the task on node n7
    stub(bin.resolve("srun"), "while [ \"${1#--}\" != \"$1\" ]; do shift; done; SLURMD_NODENAME=n7 exec \"$@\"");
    String s = new SlurmScript("gleaner-worker", 1, "10", null, null, null, 120, List.of("echo"),
        List.of("--master", "h:1", "--secret-file", "/s p/secret"), true).text();
    Path file = Files.writeString(dir.resolve("job.sh"), s);
    ProcessBuilder pb = new ProcessBuilder("/bin/sh", file.toString()).redirectErrorStream(true);
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    pb.environment().put("SLURM_JOB_ID", "42");
    pb.environment().put("TZ", "UTC");
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes()).strip();
    assertEquals(0, p.waitFor());
    assertEquals("worker --master h:1 --secret-file /s p/secret --available-until 2030-01-02T03:02:05Z --id slurm-42-n7",
        out);
  }

  private static void stub(Path file, String body) throws Exception {
    Files.writeString(file, "#!/bin/sh\n" + body + "\n");
    assertTrue(file.toFile().setExecutable(true));
  }

  @Test
  void badInputIsOneClearLine() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "0123456789abcdef0123");
    String[][] cases = {
        {"--time", "8h", "--nodes", "1", "gleaner: --time '8h' is not a Slurm time limit; write MINUTES, MM:SS,"
            + " HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS (8:00:00 is 8 hours)"},
        {"--time", "2", "--nodes", "1", "gleaner: --time 2 is too short: the workers drain 120 s before the end; give"
            + " more than 180 s"},
        {"--time", "10", "--nodes", "0", "gleaner: --nodes must be at least 1, got 0"},
        {"--time", "10", "--nodes", "2", "--token-file", dir.resolve("t").toString(), "gleaner: --token-file names one"
            + " worker, so it runs on one node only; give --nodes 1, or --secret-file for several"},
    };
    for (String[] c : cases) {
      List<String> args = new java.util.ArrayList<>(List.of("slurm", "--master", "head:7070", "--secret-file",
          secret.toString(), "--dry-run"));
      args.addAll(List.of(c).subList(0, c.length - 1));
      CommandLineTest.Run r = CommandLineTest.gleaner(args.toArray(String[]::new));
      assertEquals(1, r.code(), r.err());
      assertEquals(c[c.length - 1], r.err().strip());
    }
    CommandLineTest.Run missing = CommandLineTest.gleaner("slurm", "--master", "head:7070", "--nodes", "1");
    assertEquals(2, missing.code());
    assertEquals("gleaner slurm: Missing required option: '--time=LIMIT'", missing.err().lines().findFirst().get());
  }

  /** Without Slurm's commands on the PATH, one line says so (in a JVM of its own, whose PATH has no sbatch). */
  @Test
  void aMissingSbatchIsOneClearLine() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "0123456789abcdef0123");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(java, "-Xmx64m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
        Gleaner.class.getName(), "slurm", "--nodes", "1", "--time", "10", "--master", "head:7070", "--secret-file",
        secret.toString()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    pb.environment().put("PATH", dir.resolve("empty").toString());
    Process p = pb.start();
    String err = new String(p.getErrorStream().readAllBytes()).strip();
    assertEquals(1, p.waitFor());
    assertTrue(err.startsWith("gleaner: cannot run sbatch: it is not on the PATH (")
        && err.endsWith("); run this on a Slurm login node, where Slurm's commands are"), err);
    assertEquals(1, err.lines().count(), err);
  }

  @Test
  void dryRunPrintsTheScriptThatWouldBeSubmitted() throws Exception {
    Path secret = Files.writeString(dir.resolve("secret"), "0123456789abcdef0123");
    CommandLineTest.Run r = CommandLineTest.gleaner("slurm", "--nodes", "3", "--time", "8:00:00", "--master",
        "head:7070", "--secret-file", secret.toString(), "--sbatch-arg=--account=lab", "--dry-run");
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("#!/bin/sh\n") && r.out().contains("#SBATCH --nodes=3\n"), r.out());
    assertTrue(r.out().contains(" worker --master head:7070 --secret-file " + secret.toAbsolutePath()), r.out());
    assertTrue(r.out().strip().endsWith("# submit with: sbatch --parsable --account=lab < THIS-SCRIPT"), r.out());
  }
}
