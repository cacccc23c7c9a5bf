package dev.gleaner.deploy.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
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
    if (dir == null) {
      return;
    }
    try {
      removeTree(dir);
    } catch (IOException e) {
      System.err.println("gleaner " + command + ": could not remove " + dir + ": " + e.getMessage());
    }
  }

  /** Walks of a folder to remove while something may still write in it, and the pause between them. */
  private static final int REMOVE_TRIES = 20;
  private static final long REMOVE_PAUSE_MILLIS = 50;

  /**
   * Removes the folder and all in it, if it exists. Something may still make a file in it while this
   * walks (on the way out of a SIGTERM, a run's own thread starting a log): the walk then goes again,
   * at most {@link #REMOVE_TRIES} times, {@link #REMOVE_PAUSE_MILLIS} apart.
   *
   * @throws IOException if it cannot, naming what was left
   */
  public static void removeTree(Path dir) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        if (!Files.exists(dir)) {
          return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
          for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        }
        return;
      } catch (java.nio.file.DirectoryNotEmptyException | java.nio.file.NoSuchFileException e) {
        if (attempt >= REMOVE_TRIES) {
          throw e;
        }
        try {
          TimeUnit.MILLISECONDS.sleep(REMOVE_PAUSE_MILLIS);
        } catch (InterruptedException stop) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }
}
