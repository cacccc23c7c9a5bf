package dev.gleaner.deploy;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.launch.WorkerProcesses;
import dev.gleaner.deploy.testing.GleanerJvms;
import dev.gleaner.protocol.StatusReply;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Input held at a relay ({@code gleaner relay --serve}), on real processes: a relay holding a copy of
 * the job's input sends it to the worker behind it, and only assignments cross its uplink; a relay
 * holding a file of the same name and size but other bytes is not trusted with it (the master sends
 * that worker its input itself). The answer is exact either way. Every process started here is ended
 * here, by its PID.
 */
class RelayInputTest {
  @TempDir
  Path dir;





  /** A text of {@code lines} numbered lines. */
  private static byte[] text(int lines) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < lines; i++) {
      sb.append("line ").append(i).append(" of the input held at the relay\n");
    }
    return sb.toString().getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void aRelayHoldingTheInputSendsItAndOneHoldingOtherBytesDoesNot() throws Exception {
    byte[] secret = "relay-input-secret-0123456789".getBytes(StandardCharsets.UTF_8);
    Path secretFile = dir.resolve("secret");
    Files.write(secretFile, secret);
    byte[] input = text(100_000);
    Path served = Files.createDirectories(dir.resolve("served"));
    Files.write(served.resolve("input.txt"), input);
    // r1 holds the same bytes under another name; r2 the same name and size, one newline made a space
    Path copy = Files.createDirectories(dir.resolve("r1-files/sub"));
    Files.write(copy.resolve("copy.txt"), input);
    byte[] other = input.clone();
    int newline = other.length / 2;
    while (other[newline] != '\n') {
      newline--;
    }
    other[newline] = ' ';
    Path altered = Files.createDirectories(dir.resolve("r2-files"));
    Files.write(altered.resolve("input.txt"), other);
    long lines = count(input);
    assertEquals(lines - 1, count(other));

    int masterPort = GleanerJvms.freePort();
    try (GleanerJvms jvms = new GleanerJvms(dir); WorkerProcesses workers = new WorkerProcesses(dir)) {
      try {
        jvms.start("master.log", "master", "--port", Integer.toString(masterPort), "--bind", "127.0.0.1", "--data",
            dir.resolve("data").toString(), "--secret-file", secretFile.toString(), "--serve", served.toString());
        await().atMost(Duration.ofSeconds(60)).until(() -> GleanerJvms.status(masterPort, secret, "") != null);
        List<Integer> relayPorts = new ArrayList<>();
        for (String r : List.of("r1", "r2")) {
          int port = GleanerJvms.freePort();
          relayPorts.add(port);
          jvms.start(r + ".log", "relay", "--id", r, "--port", Integer.toString(port), "--bind", "127.0.0.1",
              "--master", "127.0.0.1:" + masterPort, "--secret-file", secretFile.toString(), "--serve",
              dir.resolve(r + "-files").toString());
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> {
          StatusReply s = GleanerJvms.status(masterPort, secret, "");
          return s != null && s.getRelaysCount() == 2;
        });
        for (int i = 0; i < 2; i++) {
          workers.start("w" + (i + 1), List.of(), "127.0.0.1:" + relayPorts.get(i), secretFile, 1, 1, "128m",
              List.of());
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> {
          StatusReply s = GleanerJvms.status(masterPort, secret, "");
          return s != null && s.getWorkersCount() == 2;
        });
        Path jobFile = dir.resolve("job.yaml");
        // small chunks, many of them: both workers get some, after the master's digest is known
        Files.writeString(jobFile, "workload: wc\nparams: {file: input.txt}\nchunk-units: 65536\nmin-workers: 2\n");
        Process submit = jvms.client("submit.out", "submit.err", List.of("submit", jobFile.toString(),
            "--master", "127.0.0.1:" + masterPort, "--secret-file", secretFile.toString(), "--poll-ms", "200"));
        assertTrue(submit.waitFor(120, TimeUnit.SECONDS), "gleaner submit should have ended");
        String err = Files.readString(dir.resolve("submit.err"));
        assertEquals(0, submit.exitValue(), err);
        String out = Files.readString(dir.resolve("submit.out")).strip();
        assertTrue(out.startsWith(lines + " lines"), out + " (expected " + lines + " lines)");
        assertTrue(out.contains(input.length + " bytes"), out);

        StatusReply end = GleanerJvms.status(masterPort, secret, "job-1");
        double fromRelays = end.getMetricsOrDefault("gleaner.bytes.from.relays", Double.NaN);
        double streamed = end.getMetricsOrDefault("gleaner.bytes.streamed", Double.NaN);
        // every byte at least once (a chunk split at the end has its tail sent again, to its new worker):
        // w1's from r1, w2's from the master
        String bytes = "bytes from relays " + fromRelays + ", streamed " + streamed;
        assertTrue(fromRelays + streamed >= input.length, bytes);
        assertTrue(fromRelays > 0 && streamed > 0, bytes);
        String r1 = Files.readString(dir.resolve("r1.log"));
        assertTrue(r1.contains("relay holds 1 file") && r1.contains("sends job job-1's input from its copy"
            + " 'sub/copy.txt'"), r1);
        String r2 = Files.readString(dir.resolve("r2.log"));
        assertTrue(r2.contains("relay holds 1 file") && !r2.contains("from its copy"), r2);
        String master = Files.readString(dir.resolve("master.log"));
        assertTrue(master.contains("relay r1 holds 1 input file") && master.contains("relay r2 holds 1 input file"),
            master);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(e.getMessage() + "\nmaster log:\n"
            + WorkerProcesses.tail(dir.resolve("master.log"), 40)
            + "\nr1 log:\n" + WorkerProcesses.tail(dir.resolve("r1.log"), 20) + "\nworker logs:\n" + workers.logs(), e);
      }
    }
  }

  private static long count(byte[] b) {
    long n = 0;
    for (byte x : b) {
      if (x == '\n') {
        n++;
      }
    }
    return n;
  }
}
