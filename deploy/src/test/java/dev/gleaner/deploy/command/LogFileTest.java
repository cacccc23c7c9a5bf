package dev.gleaner.deploy.command;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

class LogFileTest {
  @TempDir
  Path dir;

  @Test
  void theDaemonLogAlsoGoesToARollingFileWithTheDate() throws Exception {
    Path file = dir.resolve("master.log");
    // at INFO whatever an in-process command run before in this JVM made quieter (demo, cluster run)
    ch.qos.logback.classic.Logger logger =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("dev.gleaner.master.loop.ControlLoop");
    ch.qos.logback.classic.Level before = logger.getLevel();
    logger.setLevel(ch.qos.logback.classic.Level.INFO);
    try (AutoCloseable installed = LogFile.install(file)) {
      logger.info("job {} planned", "job-7");
    } finally {
      logger.setLevel(before);
    }
    String text = Files.readString(file);
    // (other threads of this test JVM may log meanwhile: the line is looked for, not the whole file)
    assertTrue(text.lines().anyMatch(l -> l.matches(
        "\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} INFO  ControlLoop - job job-7 planned")), text);
    // taken away again: later lines do not go there
    LoggerFactory.getLogger(LogFileTest.class).info("not in the file");
    assertFalse(Files.readString(file).contains("not in the file"));
  }

  @Test
  void aLogFileInAMissingDirectoryIsOneClearError() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> LogFile.install(dir.resolve("no/such/dir/master.log")));
    assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    IllegalArgumentException d = assertThrows(IllegalArgumentException.class, () -> LogFile.install(dir));
    assertTrue(d.getMessage().contains("is a directory"), d.getMessage());
  }
}
