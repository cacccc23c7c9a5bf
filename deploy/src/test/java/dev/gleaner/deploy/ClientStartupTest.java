package dev.gleaner.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.command.MasterCommand;
import dev.gleaner.deploy.command.StatusCommand;
import dev.gleaner.deploy.command.tool.DemoCommand;
import dev.gleaner.deploy.testing.LocalCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Command;

/**
 * A client command starts light: {@code gleaner status} builds its own subcommand only, so it loads
 * neither the daemons nor the logging, while {@code gleaner --help} still lists every command.
 */
class ClientStartupTest {
  @TempDir
  Path dir;

  @Test
  void everyCommandIsBuiltUnderTheNameItsClassDeclares() {
    for (String name : Gleaner.COMMANDS) {
      assertEquals(name, Gleaner.command(name).getAnnotation(Command.class).name());
    }
    assertEquals(null, Gleaner.command("help"), "help and completion are built with the whole list");
  }

  @Test
  void helpListsEveryCommandInTheTablesOrder() {
    CommandLineTest.Run r = CommandLineTest.gleaner("--help");
    assertEquals(0, r.code(), r.err());
    String list = r.out().substring(r.out().indexOf("Commands:"), r.out().indexOf("Start with"));
    List<String> listed = list.lines().filter(l -> l.matches("  [a-z].*")).map(l -> l.strip().split("\\s+")[0])
        .toList();
    List<String> expected = new ArrayList<>(Gleaner.COMMANDS);
    expected.addAll(List.of("help", "generate-completion"));
    assertEquals(expected, listed);
  }

  @Test
  void statusLoadsNeitherTheDaemonsNorTheLogging() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      Path log = dir.resolve("classes.log");
      String java = ProcessHandle.current().info().command().orElse("java");
      Process p = new ProcessBuilder(List.of(java, "-Xlog:class+load:file=" + log, "-cp",
          System.getProperty("java.class.path"), Gleaner.class.getName(), "status", "--master",
          "127.0.0.1:" + c.master.port(), "--secret-file", c.secretFile().toString()))
          .redirectErrorStream(true).start();
      try {
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "status ended");
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.startsWith("JOBS"), out);
      } finally {
        p.destroyForcibly();
      }
      List<String> loaded = Files.readAllLines(log).stream().filter(l -> l.contains(" source: "))
          .map(l -> l.substring(l.indexOf("] ", l.indexOf("[class,load]")) + 2, l.indexOf(" source: "))).toList();
      assertTrue(loaded.contains(StatusCommand.class.getName()), "the log names the loaded classes");
      for (String heavy : List.of("dev.gleaner.master.", "dev.gleaner.worker.", "ch.qos.logback.", "io.netty.",
          "com.fasterxml.jackson.databind.", MasterCommand.class.getName(), DemoCommand.class.getName())) {
        assertEquals(List.of(), loaded.stream().filter(n -> n.startsWith(heavy)).toList(), heavy);
      }
    }
  }
}
