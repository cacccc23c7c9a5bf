package dev.gleaner.deploy.cds;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.deploy.Gleaner;
import dev.gleaner.deploy.command.StatusCommand;
import dev.gleaner.deploy.testing.LocalCluster;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's class-data archive (deploy/bin/gleaner, {@link dev.gleaner.deploy.cds.ClientArchive}):
 * the first client commands make one in the background, several at once included, and print nothing
 * of it; the next ones start from it; a rebuilt jar never uses the old one, which goes once the new
 * one is made. The jar is one built here from this build's classes, as the shade plugin's is made after
 * the tests.
 */
class ClientArchiveTest {
  @TempDir
  static Path shared;

  /** The shaded jar's stand-in: every class of the test's class path in one jar, beside the launcher. */
  static Path dist;

  @TempDir
  Path dir;

  @BeforeAll
  static void buildTheDistribution() throws IOException {
    dist = Files.createDirectories(shared.resolve("dist"));
    Files.copy(Path.of("bin", "gleaner"), dist.resolve("gleaner"));
    assertTrue(dist.resolve("gleaner").toFile().setExecutable(true));
    Manifest m = new Manifest();
    m.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    m.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Gleaner.class.getName());
    Set<String> seen = new HashSet<>(Set.of("META-INF/MANIFEST.MF"));
    try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(dist.resolve("gleaner.jar")), m)) {
      for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
        Path p = Path.of(e);
        if (Files.isDirectory(p) && !p.endsWith("test-classes")) {
          try (Stream<Path> files = Files.walk(p)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
              try (InputStream in = Files.newInputStream(f)) {
                add(jar, seen, p.relativize(f).toString().replace(File.separatorChar, '/'), in);
              }
            }
          }
        } else if (Files.isRegularFile(p) && p.toString().endsWith(".jar")) {
          try (JarFile j = new JarFile(p.toFile())) {
            for (JarEntry je : j.stream().filter(x -> !x.isDirectory()).toList()) {
              try (InputStream in = j.getInputStream(je)) {
                add(jar, seen, je.getName(), in);
              }
            }
          }
        }
      }
    }
  }

  private static void add(JarOutputStream jar, Set<String> seen, String name, InputStream in) throws IOException {
    // signatures and module descriptors of the parts do not hold for the whole, as in the shade plugin's filters
    if (name.matches("META-INF/[^/]*\\.(SF|DSA|RSA)") || name.endsWith("module-info.class") || !seen.add(name)) {
      return;
    }
    jar.putNextEntry(new JarEntry(name));
    in.transferTo(jar);
    jar.closeEntry();
  }

  /** Waits for the archive makers started on this distribution to end; ends them if they do not. */
  @AfterEach
  void noMakerLeft() {
    List<ProcessHandle> makers = makers();
    for (ProcessHandle p : makers) {
      try {
        p.onExit().get(300, TimeUnit.SECONDS);
      } catch (Exception e) {
        p.destroyForcibly();
      }
    }
  }

  private static List<ProcessHandle> makers() {
    return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().orElse("")
        .contains("dev.gleaner.deploy.cds.ClientArchive " + dist)).toList();
  }

  @Test
  void firstCommandsMakeOneArchiveQuietlyAndARebuiltJarNeverUsesTheOldOne() throws Exception {
    try (LocalCluster c = new LocalCluster(dir)) {
      List<String> status = List.of("status", "--master", "127.0.0.1:" + c.master.port(), "--secret-file",
          c.secretFile().toString());
      // several first commands at once: each answers as always, says nothing of the archive
      List<Process> first = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        first.add(launch(status, Map.of()));
      }
      for (Process p : first) {
        assertAnswered(p);
      }
      Path archive = awaitArchive(null);
      assertEquals(List.of(archive), archives(), "one archive, whole");
      assertTrue(usesArchive(status), "the next command starts from it");

      // a rebuilt jar: same size, a later time; its first command runs without, then has its own archive
      Path jar = dist.resolve("gleaner.jar");
      Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 10_000));
      assertTrue(!usesArchive(status), "the old archive is not used for the rebuilt jar");
      Path second = awaitArchive(archive);
      noMakerLeft();
      assertEquals(List.of(second), archives(), "the old jar's archive is removed");
      assertTrue(usesArchive(status));

      // GLEANER_CDS=off goes without it
      Files.deleteIfExists(dir.resolve("classes.log"));
      Process off = launch(status, Map.of("GLEANER_CDS", "off", "JAVA_OPTS", classLog()));
      assertAnswered(off);
      assertTrue(!loadedFromArchive());
    }
  }

  /** A link to the launcher on the PATH (and a relative link to that link) runs the jar the launcher is beside. */
  @Test
  void aLinkToTheLauncherFindsTheJarBesideTheLauncher() throws Exception {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path link = Files.createSymbolicLink(bin.resolve("gleaner"), dist.resolve("gleaner"));
    Path again = Files.createSymbolicLink(dir.resolve("g"), Path.of("bin", "gleaner"));
    for (Path l : List.of(link, again)) {
      ProcessBuilder pb = new ProcessBuilder(l.toString(), "--version").redirectErrorStream(true);
      pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
      pb.environment().put("GLEANER_CDS", "off");
      pb.environment().remove("JAVA_OPTS");
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      try {
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "--version ended");
      } finally {
        p.destroyForcibly();
      }
      assertEquals(0, p.exitValue(), l + ": " + out);
      assertTrue(out.startsWith("gleaner "), l + ": " + out);
    }
  }

  private Process launch(List<String> args, Map<String, String> env) throws IOException {
    List<String> command = new ArrayList<>(List.of(dist.resolve("gleaner").toString()));
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    pb.environment().remove("JAVA_OPTS");
    pb.environment().remove("GLEANER_CDS");
    pb.environment().putAll(env);
    return pb.start();
  }

  /** The command's whole output is the status table, on stdout; stderr is empty. */
  private static void assertAnswered(Process p) throws Exception {
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      assertTrue(p.waitFor(120, TimeUnit.SECONDS), "status ended");
    } finally {
      p.destroyForcibly();
    }
    assertEquals(0, p.exitValue(), out + err);
    // on a busy machine the master may answer with its last figures, and say so in a line first
    assertTrue(out.startsWith("JOBS\n") || out.matches("(?s)\\(figures from \\d+ s ago: [^\n]*\\)\nJOBS\n.*"), out);
    assertEquals("", err);
  }

  /** Waits for an archive other than {@code old} whose maker has ended (or for a failure); returns it. */
  private Path awaitArchive(Path old) throws IOException {
    await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(200)).until(() -> !failures().isEmpty()
        || archives().stream().anyMatch(a -> !a.equals(old) && !makersOf(a)));
    assertEquals(List.of(), failures());
    return archives().stream().filter(a -> !a.equals(old)).findFirst().orElseThrow();
  }

  private static boolean makersOf(Path archive) {
    return makers().stream().anyMatch(p -> p.info().commandLine().orElse("").contains(archive.toString()));
  }

  private static List<Path> archives() throws IOException {
    return listed(".jsa");
  }

  private static List<String> failures() throws IOException {
    List<String> out = new ArrayList<>();
    for (Path f : listed(".jsa.failed")) {
      out.add(f.getFileName() + ": " + Files.readString(f).strip());
    }
    return out;
  }

  private static List<Path> listed(String suffix) throws IOException {
    try (Stream<Path> files = Files.list(dist)) {
      return files.filter(f -> f.getFileName().toString().endsWith(suffix)).sorted().toList();
    }
  }

  private boolean usesArchive(List<String> status) throws Exception {
    Files.deleteIfExists(dir.resolve("classes.log"));
    Process p = launch(status, Map.of("JAVA_OPTS", classLog()));
    assertAnswered(p);
    return loadedFromArchive();
  }

  /** $JAVA_OPTS that log where each class came from. */
  private String classLog() {
    return "-Xlog:class+load:file=" + dir.resolve("classes.log");
  }

  /** Whether the last command logged StatusCommand as loaded from the shared archive. */
  private boolean loadedFromArchive() throws IOException {
    return Files.readAllLines(dir.resolve("classes.log")).stream()
        .anyMatch(l -> l.contains(" " + StatusCommand.class.getName() + " source: shared objects file"));
  }
}
