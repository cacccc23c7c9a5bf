package dev.gleaner.deploy.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.Gleaner;
import dev.gleaner.deploy.testing.LocalCluster;
import dev.gleaner.protocol.JobSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A second master process on a running master's data directory says so and exits, touching nothing. */
class OneMasterPerDataDirTest {
  @TempDir
  Path dir;

  @Test
  void aSecondMasterProcessIsRefused() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      String java = ProcessHandle.current().info().command().orElse("java");
      Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
          Gleaner.class.getName(), "master", "--port", "0", "--bind", "127.0.0.1",
          "--data", dir.resolve("data").toString(), "--secret-file", c.secretFile().toString()))
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      try {
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the second master should have exited");
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(1, p.exitValue(), err);
        assertTrue(err.contains("is in use by another master (pid " + ProcessHandle.current().pid() + ")"), err);
        assertEquals(1, err.strip().lines().filter(l -> l.startsWith("gleaner: ")).count(), err);
      } finally {
        p.destroyForcibly();
      }
      // the first master still serves its directory
      assertEquals("job-1", c.submit(JobSpec.newBuilder().setWorkload("primes").putParams("from", "0")
          .putParams("to", "1000").build()));
    }
  }

  /** SIGTERM stops a master, and its log says so: what it does, then that it has stopped. */
  @Test
  void aMasterStoppedBySigtermSaysSoInItsLog() throws Exception {
    Path secret = Files.write(dir.resolve("secret"), "a-secret-of-thirty-two-bytes-000".getBytes(StandardCharsets.UTF_8));
    Path log = dir.resolve("master.log");
    String java = ProcessHandle.current().info().command().orElse("java");
    Process p = new ProcessBuilder(List.of(java, "-cp", System.getProperty("java.class.path"),
        Gleaner.class.getName(), "master", "--port", "0", "--bind", "127.0.0.1",
        "--data", dir.resolve("data").toString(), "--secret-file", secret.toString()))
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60))
          .until(() -> Files.readString(log).contains("gleaner master listening on port"));
      p.destroy();
      assertTrue(p.waitFor(30, TimeUnit.SECONDS), "SIGTERM stops it");
      List<String> lines = Files.readAllLines(log);
      int stopping = -1;
      int stopped = -1;
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).contains("stopping (SIGTERM or Ctrl-C): what is saved stays in the store; running jobs resume"
            + " at the next start (those being cancelled end there)")) {
          stopping = i;
        } else if (lines.get(i).endsWith("MasterCommand - stopped")) {
          stopped = i;
        }
      }
      assertTrue(stopping >= 0 && stopped > stopping, "says it stops, then that it has: " + String.join("\n", lines));
    } finally {
      p.destroyForcibly();
    }
  }
}
