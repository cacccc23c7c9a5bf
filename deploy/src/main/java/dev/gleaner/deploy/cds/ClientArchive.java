package dev.gleaner.deploy.cds;

import dev.gleaner.common.workload.ExecWorkload;
import dev.gleaner.common.workload.Workloads;
import dev.gleaner.deploy.launch.LocalRuns;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.MasterServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

/**
 * Makes the class-data archive (AppCDS) of the client commands for one jar and this Java, as
 * {@code deploy/bin/gleaner} asks in the background of the first client command that finds none.
 *
 * <p>How: a master of its own in this JVM (loopback, a fresh secret and data folder, removed after),
 * a training JVM ({@link ClientTraining}) that runs the client commands against it and lists the
 * classes it loaded ({@code -XX:DumpLoadedClassList}), then {@code java -Xshare:dump} of that list with
 * the jar as class path: a static archive, since JDK 17's dynamic one leaves out picocli (its classes
 * are of Java 5's format). The archive is written under a temporary name, opened once with
 * {@code -Xshare:on} (which refuses to start on an archive the JVM would not use), and only then
 * renamed to its place, atomically: a client command sees a whole archive or none.
 *
 * <p>Several first commands at once start several of these; a file lock lets one work and the others
 * leave. A failure is written, one line, to {@code ARCHIVE.failed}, and the launcher tries no more for
 * that jar and Java. Once the new archive is in place, those of older jars are removed: the files named
 * {@code PREFIX*} but not {@code CURRENT*} (the launcher's {@code CURRENT} names this jar's size and
 * time; this jar's archives for other Javas are kept).
 *
 * <p>Usage: {@code java -cp gleaner.jar dev.gleaner.deploy.cds.ClientArchive JAR ARCHIVE PREFIX CURRENT}.
 */
public final class ClientArchive {
  /** How long one step (the training run, the dump, the check) may take before it is ended. */
  private static final long STEP_SECONDS = 300;

  private final Path jar;
  private final Path archive;
  private final String java;

  ClientArchive(Path jar, Path archive) {
    this.jar = jar;
    this.archive = archive;
    this.java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  public static void main(String[] args) {
    if (args.length != 4 || !args[3].startsWith(args[2])) {
      System.err.println("usage: ClientArchive JAR ARCHIVE PREFIX CURRENT (CURRENT starting with PREFIX)");
      System.exit(2);
    }
    Path archive = Path.of(args[1]).toAbsolutePath();
    Path failed = sibling(archive, ".failed");
    try (FileChannel channel = FileChannel.open(sibling(archive, ".lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE); FileLock lock = channel.tryLock()) {
      if (lock == null || Files.exists(archive) || Files.exists(failed)) {
        return; // another one is making it, or it is made, or it cannot be
      }
      new ClientArchive(Path.of(args[0]).toAbsolutePath(), archive).make();
    } catch (Exception e) {
      System.err.println("gleaner: no class-data archive: " + e.getMessage());
      try {
        Files.writeString(failed, e.getMessage() + System.lineSeparator());
      } catch (IOException written) {
        System.err.println("gleaner: cannot write " + failed + ": " + written.getMessage());
      }
      System.exit(1);
    }
    try {
      removeOlder(archive.getParent(), args[2], args[3]);
    } catch (IOException e) {
      System.err.println("gleaner: cannot remove older archives beside " + archive + ": " + e.getMessage());
    }
    System.exit(0); // the master's threads are stopped; nothing else is to wait for
  }

  /** Trains, dumps, checks and puts the archive in place; throws with a sentence if any step fails. */
  void make() throws Exception {
    try (JarFile j = new JarFile(jar.toFile())) {
      if (j.getManifest() != null && j.getManifest().getMainAttributes().getValue("Class-Path") != null) {
        throw new IOException(jar + " names a Class-Path; the archive is made for a jar that holds everything");
      }
    }
    Path dir = Files.createTempDirectory("gleaner-cds-");
    Path partial = sibling(archive, "." + ProcessHandle.current().pid() + ".tmp");
    try {
      Path classes = train(dir);
      step(dir, "dump", List.of(java, "-Xshare:dump", "-XX:SharedClassListFile=" + classes,
          "-XX:SharedArchiveFile=" + partial, "-cp", jar.toString()));
      step(dir, "check", List.of(java, "-Xshare:on", "-XX:SharedArchiveFile=" + partial, "-jar", jar.toString(),
          "--version"));
      Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(partial);
      LocalRuns.removeTree(dir);
    }
  }

  /** Runs the training JVM against a master of this one; returns the list of classes it loaded. */
  private Path train(Path dir) throws Exception {
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("dev.gleaner"))
        .setLevel(ch.qos.logback.classic.Level.WARN);
    byte[] random = new byte[32];
    new SecureRandom().nextBytes(random);
    String secret = Base64.getEncoder().encodeToString(random);
    Path secretFile = Files.writeString(dir.resolve("secret"), secret);
    Path job = Files.writeString(dir.resolve("job.yaml"),
        "name: training\nworkload: primes\nparams:\n  from: 0\n  to: 1000\n");
    Path classes = dir.resolve("classes.lst");
    MasterServer master = new MasterServer(MasterConfig.defaults(new InetSocketAddress("127.0.0.1", 0),
        dir.resolve("data"), secret.getBytes(StandardCharsets.UTF_8), Workloads.of(ExecWorkload.definitionOnly())))
        .start();
    try {
      step(dir, "training", List.of(java, "-XX:DumpLoadedClassList=" + classes, "-cp", jar.toString(),
          ClientTraining.class.getName(), "127.0.0.1:" + master.port(), secretFile.toString(), job.toString()));
    } finally {
      master.close();
    }
    return classes;
  }

  /** Runs one JVM to its end; throws naming the step and its last line of output if it fails. */
  private static void step(Path dir, String name, List<String> command) throws Exception {
    Path log = dir.resolve(name + ".log");
    Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!p.waitFor(STEP_SECONDS, TimeUnit.SECONDS)) {
        throw new IOException("the " + name + " step took over " + STEP_SECONDS + " s");
      }
    } finally {
      p.destroyForcibly();
    }
    if (p.exitValue() != 0) {
      List<String> lines = Files.readAllLines(log);
      throw new IOException("the " + name + " step exited " + p.exitValue()
          + (lines.isEmpty() ? "" : ": " + lines.get(lines.size() - 1).strip()));
    }
  }

  /** Removes the archives (and their marks) in {@code dir} named {@code prefix*} but not {@code current*}. */
  static void removeOlder(Path dir, String prefix, String current) throws IOException {
    List<Path> old = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, prefix + "*")) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        if (!name.startsWith(current) && (name.endsWith(".jsa") || name.endsWith(".jsa.failed")
            || name.endsWith(".jsa.lock"))) {
          old.add(f);
        }
      }
    }
    for (Path f : old) {
      Files.deleteIfExists(f);
    }
  }

  private static Path sibling(Path file, String suffix) {
    return file.resolveSibling(file.getFileName() + suffix);
  }

}
