package dev.gleaner.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The container image (deploy/container/Dockerfile). No Docker engine runs where the suite runs, so
 * the image is not built here; what can be checked is: every file it copies is in the repository or
 * made by `mvn package`, the build context (.dockerignore) keeps exactly those, and its entry point
 * runs: the files laid out as its COPY lines say, with its environment, answer {@code --version}.
 */
class ContainerImageTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path DOCKERFILE = ROOT.resolve("deploy/container/Dockerfile");

  @TempDir
  Path dir;

  @Test
  void itCopiesTheLauncherAndTheShadedJarIntoOneFolderAndTheContextKeepsBoth() throws Exception {
    Map<String, String> copies = copies();
    assertEquals(Map.of("deploy/bin/gleaner", "/opt/gleaner/gleaner", "deploy/target/gleaner.jar",
        "/opt/gleaner/gleaner.jar"), copies);
    assertTrue(Files.isExecutable(ROOT.resolve("deploy/bin/gleaner")));
    // the jar is the shade plugin's output, named in deploy/pom.xml
    assertTrue(Files.readString(ROOT.resolve("deploy/pom.xml")).contains("<finalName>gleaner</finalName>"));
    List<String> ignore = Files.readAllLines(ROOT.resolve(".dockerignore")).stream()
        .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
    List<String> kept = new ArrayList<>();
    for (String l : ignore) {
      if (l.startsWith("!")) {
        kept.add(l.substring(1));
      }
    }
    assertEquals("*", ignore.get(0), "the context starts from nothing");
    assertEquals(List.copyOf(copies.keySet()), kept, "and keeps what the Dockerfile copies, nothing more");
    assertEquals("[\"/opt/gleaner/gleaner\"]", instruction("ENTRYPOINT"));
    assertEquals("gleaner", instruction("USER"), "never root");
    assertEquals("SIGTERM", instruction("STOPSIGNAL"), "docker stop drains a worker");
  }

  @Test
  void itsEntryPointRunsGleanerFromTheLaidOutFiles() throws Exception {
    Path opt = dir.resolve("opt/gleaner");
    Files.createDirectories(opt);
    Files.copy(ROOT.resolve("deploy/bin/gleaner"), opt.resolve("gleaner"));
    opt.resolve("gleaner").toFile().setExecutable(true);
    // gleaner.jar is made after the tests run: a jar of the same entry point over the test's classpath stands in
    Manifest mf = new Manifest();
    mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    mf.getMainAttributes().put(Attributes.Name.MAIN_CLASS, Gleaner.class.getName());
    StringBuilder cp = new StringBuilder();
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      cp.append(Path.of(e).toUri()).append(' ');
    }
    mf.getMainAttributes().put(Attributes.Name.CLASS_PATH, cp.toString().trim());
    try (OutputStream out = Files.newOutputStream(opt.resolve("gleaner.jar"));
        JarOutputStream jar = new JarOutputStream(out, mf)) {
      jar.flush();
    }
    ProcessBuilder pb = new ProcessBuilder(opt.resolve("gleaner").toString(), "--version").redirectErrorStream(true);
    for (Map.Entry<String, String> e : env().entrySet()) {
      pb.environment().put(e.getKey(), e.getValue());
    }
    pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
    // this jar only names the build's class folders: no class-data archive is made of it (ClientArchiveTest makes one)
    pb.environment().put("GLEANER_CDS", "off");
    Process p = pb.start();
    try {
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the entry point ended");
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, p.exitValue(), out);
      assertTrue(out.startsWith("gleaner "), out);
    } finally {
      p.destroyForcibly();
    }
  }

  /** COPY source to destination, in order. */
  private static Map<String, String> copies() throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    Matcher m = Pattern.compile("(?m)^COPY\\s+(\\S+)\\s+(\\S+)\\s*$").matcher(Files.readString(DOCKERFILE));
    while (m.find()) {
      out.put(m.group(1), m.group(2));
    }
    return out;
  }

  /** ENV NAME=VALUE lines, quotes taken off. */
  private static Map<String, String> env() throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    Matcher m = Pattern.compile("(?m)^ENV\\s+([A-Z_]+)=\"?([^\"\\n]*)\"?\\s*$").matcher(Files.readString(DOCKERFILE));
    while (m.find()) {
      out.put(m.group(1), m.group(2));
    }
    assertEquals(List.of("GLEANER_NICE", "JAVA_OPTS"), List.copyOf(out.keySet()));
    return out;
  }

  private static String instruction(String name) throws Exception {
    Matcher m = Pattern.compile("(?m)^" + name + "\\s+(.*?)\\s*$").matcher(Files.readString(DOCKERFILE));
    assertTrue(m.find(), name + " is missing");
    return m.group(1);
  }
}
