package dev.gleaner.deploy;

import static dev.gleaner.deploy.CommandLineTest.gleaner;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.CommandLineTest.Run;
import dev.gleaner.deploy.testing.LocalCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every file of {@code deploy/examples/} runs as shipped, as its comments and the docs say: the
 * platform files plan, the trace shows, and each job file, submitted with {@code gleaner submit} to
 * a master serving {@code deploy/examples/data} and workers started from the repository's root,
 * ends DONE with the right result. A file of a kind this test does not know fails it, so that a new
 * example comes with its check.
 */
class ExamplesTest {
  /** The repository's root: tests run in the {@code deploy} module's folder. */
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path EXAMPLES = ROOT.resolve("deploy/examples");

  @TempDir
  Path dir;

  @Test
  void everyExampleIsOfAKindThisTestRuns() throws IOException {
    List<String> unknown = new ArrayList<>();
    try (Stream<Path> files = Files.walk(EXAMPLES)) {
      files.filter(Files::isRegularFile).forEach(f -> {
        String name = EXAMPLES.relativize(f).toString();
        boolean known = name.endsWith(".json") || name.endsWith(".tab")
            || Set.of("primes.yaml", "grep.yaml", "exec.yaml", "simulate.py", "data/sample.fa").contains(name);
        if (!known) {
          unknown.add(name);
        }
      });
    }
    assertEquals(List.of(), unknown, "examples without a check in this test");
  }

  @Test
  void everyPlatformFilePlansAndTheTraceShows() throws IOException {
    try (Stream<Path> files = Files.list(EXAMPLES)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
        Run r = gleaner("plan", "--platform", f.toString(), "--work", "1000000");
        assertEquals(0, r.code(), f + ": " + r.err());
        assertTrue(r.out().contains("expected"), f + ": " + r.out());
      }
    }
    Run show = gleaner("trace", "show", EXAMPLES.resolve("desktops-6x60h-seed1.tab").toString());
    assertEquals(0, show.code(), show.err());
    assertTrue(show.out().contains("6 nodes over 60.00 h"), show.out());
  }

  @Test
  void theJobFilesRunAsShipped() throws Exception {
    try (LocalCluster c = new LocalCluster(dir, m -> m.withServe(EXAMPLES.resolve("data")))) {
      for (int i = 1; i <= 2; i++) {
        c.worker("w" + i, 1, Set.of());
      }
      Run primes = submit(c, "primes.yaml");
      assertEquals(0, primes.code(), primes.err());
      assertEquals("455052511 primes", primes.out().strip());

      Run grep = submit(c, "grep.yaml");
      assertEquals(0, grep.code(), grep.err());
      List<String> matching = Files.readAllLines(EXAMPLES.resolve("data/sample.fa"), StandardCharsets.US_ASCII)
          .stream().filter(l -> l.toUpperCase(Locale.ROOT).contains("GATTACA")).toList();
      assertTrue(grep.out().startsWith(matching.size() + " matching lines"), grep.out());
      for (String line : matching) {
        assertTrue(grep.out().contains(line), line + " in " + grep.out());
      }
    }
  }

  @Test
  void theExecJobRunsItsScriptFromTheRepositorysRoot() throws Exception {
    Assumptions.assumeTrue(onPath("python3"), "python3 is not on the PATH: the exec example needs it");
    try (LocalCluster c = new LocalCluster(dir)) {
      for (int i = 1; i <= 2; i++) {
        c.worker("w" + i, 1, Set.of("python3"), ROOT);
      }
      Run exec = submit(c, "exec.yaml");
      assertEquals(0, exec.code(), exec.err());
      // one line a piece, "first count above", in index order, tiling [0, 20000)
      long next = 0;
      for (String line : exec.out().strip().split("\n")) {
        String[] f = line.trim().split(" ");
        assertEquals(3, f.length, line);
        assertEquals(next, Long.parseLong(f[0]), exec.out());
        long count = Long.parseLong(f[1]);
        long above = Long.parseLong(f[2]);
        assertTrue(above >= 0 && above <= count, line);
        next += count;
      }
      assertEquals(20_000, next, exec.out());
    }
  }

  private Run submit(LocalCluster c, String file) throws IOException {
    return gleaner("submit", EXAMPLES.resolve(file).toString(), "--master", "127.0.0.1:" + c.master.port(),
        "--secret-file", c.secretFile().toString());
  }

  private static boolean onPath(String program) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
        return true;
      }
    }
    return false;
  }
}
