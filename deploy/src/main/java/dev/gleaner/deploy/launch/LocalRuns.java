package dev.gleaner.deploy.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** What the commands that run a whole cluster on this machine (demo, bench) share. */
public final class LocalRuns {
  private LocalRuns() {}

  /** Keeps the in-process master's routine log lines from breaking the command's own output. */
  public static void quietLogs() {
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("dev.gleaner"))
        .setLevel(ch.qos.logback.classic.Level.WARN);
  }

  /** Removes a temporary folder and everything in it; a failure is reported, not thrown. */
  public static void deleteTree(Path dir, String command) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.err.println("gleaner " + command + ": could not remove " + dir + ": " + e.getMessage());
    }
  }
}
