package dev.gleaner.deploy.command.tool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.launch.EntryPoint;
import dev.gleaner.deploy.launch.Signals;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gleaner demo} on real processes: an exact count, and the logs folder it names gone after a good run. */
class DemoCommandTest {
  @TempDir
  Path dir;

  @Test
  void aSmallDemoCountsExactlyAndRemovesTheLogsItNamed() throws Exception {
    Path tmp = Files.createDirectories(dir.resolve("tmp"));
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process demo = new ProcessBuilder(java, "-Xmx256m", "-Djava.io.tmpdir=" + tmp, "-cp",
        System.getProperty("java.class.path"), EntryPoint.NAME, "demo", "--to", "10000000", "--workers", "2")
        .redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile()).start();
    try {
      assertTrue(Signals.awaitExit(demo, 300), "the demo did not end within 5 minutes");
    } finally {
      Signals.end(demo);
    }
    String out = Files.readString(dir.resolve("out.txt"));
    String err = Files.readString(dir.resolve("err.txt"));
    assertEquals(0, demo.exitValue(), out + err);
    assertTrue(out.contains("primes below 10,000,000: 664,579  (matches the published pi(x))"), out);
    String first = err.lines().findFirst().orElse("");
    assertTrue(first.contains("; logs in " + tmp.resolve("gleaner-demo-")) && first.endsWith(
        " (removed after a good run, kept otherwise)"), first);
    try (Stream<Path> left = Files.list(tmp)) {
      assertEquals(List.of(), left.filter(p -> p.getFileName().toString().startsWith("gleaner-demo-")).toList(),
          "the logs folder goes after a good run, as the first line says");
    }
  }
}
