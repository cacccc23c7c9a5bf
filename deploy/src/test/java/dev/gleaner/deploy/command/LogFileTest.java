package dev.gleaner.deploy.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    try (AutoCloseable installed = LogFile.install(file)) {
      LoggerFactory.getLogger("dev.gleaner.master.control.ControlLoop").info("job {} planned", "job-7");
    }
    String text = Files.readString(file);
    assertTrue(text.matches("(?s)\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}\\.\\d{3} INFO  ControlLoop - job job-7 planned\\n"),
        text);
    // taken away again: later lines do not go there
    LoggerFactory.getLogger(LogFileTest.class).info("not in the file");
    assertEquals(text, Files.readString(file));
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
