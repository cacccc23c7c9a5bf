package dev.gleaner.deploy.command;

import static dev.gleaner.deploy.CommandLineTest.gleaner;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.CommandLineTest;
import dev.gleaner.deploy.Gleaner;
import dev.gleaner.deploy.client.MasterClient;
import dev.gleaner.deploy.format.HostPort;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gleaner master --port-file FILE}: once the master listens, FILE holds its port as its only
 * line, written whole over what was there; a file that cannot be written is one line, and the
 * master does not stay up.
 */
class MasterPortFileTest {
  private static final byte[] SECRET = "port-file-test-secret-0123456789".getBytes(StandardCharsets.UTF_8);

  @TempDir
  Path dir;

  @Test
  void theMasterWritesThePortItListensOnOverAnEarlierFile() throws Exception {
    Path secret = Files.write(dir.resolve("secret"), SECRET);
    Path ports = Files.createDirectories(dir.resolve("ports"));
    Path file = Files.writeString(ports.resolve("master.port"), "1\n");
    Path log = dir.resolve("master.log");
    String java = ProcessHandle.current().info().command().orElse("java");
    Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
        Gleaner.class.getName(), "master", "--port", "0", "--bind", "127.0.0.1", "--data",
        dir.resolve("data").toString(), "--secret-file", secret.toString(), "--port-file", file.toString()))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      // the line for people comes after the file
      await().atMost(Duration.ofSeconds(60))
          .until(() -> !p.isAlive() || Files.readString(log).contains("gleaner master listening on port"));
      String said = Files.readString(log);
      assertTrue(p.isAlive(), said);
      Matcher m = Pattern.compile("gleaner master listening on port (\\d+)").matcher(said);
      assertTrue(m.find(), said);
      int port = Integer.parseInt(m.group(1));
      assertEquals(port + "\n", Files.readString(file), "the port it listens on, as the file's only line");
      try (Stream<Path> beside = Files.list(ports)) {
        assertEquals(List.of(file), beside.toList(), "nothing is left beside the file");
      }
      try (MasterClient c = MasterClient.connect(new HostPort("127.0.0.1", port), SECRET)) {
        assertEquals(0, c.status(null).getJobsCount(), "the master answers on that port");
      }
    } finally {
      p.destroyForcibly();
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the master ended");
    }
  }

  @Test
  void aPortFileInAMissingFolderIsOneLineBeforeAnythingStarts() throws Exception {
    Path secret = Files.write(dir.resolve("secret"), SECRET);
    Path file = dir.resolve("none").resolve("master.port");
    CommandLineTest.Run r = gleaner("master", "--port", "0", "--bind", "127.0.0.1", "--data",
        dir.resolve("data").toString(), "--secret-file", secret.toString(), "--port-file", file.toString());
    assertEquals(1, r.code(), r.err());
    assertEquals("gleaner: --port-file " + file + ": there is no folder " + file.getParent() + " to write it in",
        r.err().strip());
    assertFalse(Files.exists(dir.resolve("data")), "nothing made for a master that did not start");
  }

  /**
   * A folder where the file should be: the master has listened, cannot write the file, says so in one
   * line and stops, letting go of its data folder (a second try finds it free and fails the same way).
   */
  @Test
  void aPortFileThatCannotBeWrittenStopsTheMasterWithOneLine() throws Exception {
    Path secret = Files.write(dir.resolve("secret"), SECRET);
    Path taken = Files.createDirectories(dir.resolve("taken"));
    for (int attempt = 0; attempt < 2; attempt++) {
      CommandLineTest.Run r = gleaner("master", "--port", "0", "--bind", "127.0.0.1", "--data",
          dir.resolve("data").toString(), "--secret-file", secret.toString(), "--port-file", taken.toString());
      String err = r.err().strip();
      assertEquals(1, r.code(), err);
      assertEquals(1, err.lines().count(), err);
      assertTrue(err.startsWith("gleaner: --port-file " + taken + ": cannot write the port there ("), err);
      assertTrue(err.endsWith("); the master stopped"), err);
    }
    assertTrue(Files.isDirectory(taken), "the folder in the file's place is untouched");
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(List.of("data", "secret", "taken"), files.map(f -> f.getFileName().toString()).sorted().toList(),
          "no half-written file is left");
    }
  }
}
