package dev.gleaner.worker.relay;

import com.google.protobuf.ByteString;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.HeldFile;
import dev.gleaner.protocol.HeldFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The input files a relay holds ({@code gleaner relay --serve DIR}): every regular file under the
 * directory, by its path relative to it, with its size and SHA-256, read once when the relay starts.
 * The master has the relay send a job's input to the workers behind it when it holds a file of the
 * same size and digest. A file it names is read by that name only, never by a path the master sends.
 */
final class HeldInput {
  private static final Logger log = LoggerFactory.getLogger(HeldInput.class);
  /** The most files a relay offers (the master takes no more). */
  static final int MAX_FILES = 10_000;

  /** A file held: where it is, and what the relay said of it (its modification time when it was read). */
  record File(Path path, long size, byte[] sha256, long modifiedMillis) {}

  private final Path dir;
  private final Map<String, File> files;
  /** Told when a file is withdrawn: the master must hear what the relay offers now. */
  private volatile Runnable changed = () -> {};

  private HeldInput(Path dir, Map<String, File> files) {
    this.dir = dir;
    this.files = new java.util.concurrent.ConcurrentHashMap<>(files);
  }

  /** Reads every regular file under {@code dir} (not following links out of it). */
  static HeldInput read(Path dir) throws IOException {
    Path root = dir.toRealPath();
    if (!Files.isDirectory(root)) {
      throw new IllegalArgumentException("--serve " + dir + " is not a directory");
    }
    long began = System.nanoTime();
    List<Path> found = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path p : (Iterable<Path>) walk::iterator) {
        if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          if (found.size() == MAX_FILES) {
            throw new IllegalArgumentException("--serve " + dir + " holds more than " + MAX_FILES
                + " files; give the relay a directory of the jobs' input files only");
          }
          found.add(p);
        }
      }
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    }
    java.util.Collections.sort(found);
    Map<String, File> files = new LinkedHashMap<>();
    long bytes = 0;
    for (Path p : found) {
      String name = root.relativize(p).toString().replace(java.io.File.separatorChar, '/');
      long modified = Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis();
      File f = new File(p, Files.size(p), sha256(p), modified);
      if (f.size() != Files.size(p) || modified != Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis()) {
        throw new IllegalArgumentException("--serve: " + p + " changed while the relay read it");
      }
      files.put(name, f);
      bytes += f.size();
    }
    log.info("relay holds {} file{} ({} bytes) under {}, read in {} ms", files.size(), files.size() == 1 ? "" : "s",
        bytes, root, (System.nanoTime() - began) / 1_000_000);
    return new HeldInput(root, files);
  }

  private static byte[] sha256(Path p) throws IOException {
    try (InputStream in = Files.newInputStream(p)) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
        md.update(buf, 0, n);
      }
      return md.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
  }

  /** The file it holds by that name, or null. */
  File file(String name) {
    return files.get(name);
  }

  /**
   * Opens the file it holds by that name, checking it is as it was read (size, modification time, not
   * a link): a copy changed since would send other bytes than the master's.
   */
  java.nio.channels.FileChannel open(String name) throws IOException {
    File f = files.get(name);
    if (f == null) {
      throw new IOException("'" + name + "' is no longer offered");
    }
    java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(f.path(),
        java.nio.file.StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS);
    try {
      long modified = Files.getLastModifiedTime(f.path(), LinkOption.NOFOLLOW_LINKS).toMillis();
      if (c.size() != f.size() || modified != f.modifiedMillis()) {
        throw new IOException("it changed since the relay read it (" + c.size() + " bytes now, " + f.size()
            + " then); restart the relay to offer it again");
      }
      return c;
    } catch (IOException e) {
      c.close();
      throw e;
    }
  }

  /** The relay offers that file no more (it changed): the master is told. */
  void withdraw(String name) {
    if (files.remove(name) != null) {
      changed.run();
    }
  }

  /** What runs when a file is withdrawn. */
  void onChange(Runnable r) {
    changed = r;
  }

  boolean isEmpty() {
    return files.isEmpty();
  }

  Path dir() {
    return dir;
  }

  /** What the relay tells the master it holds. */
  Envelope announcement() {
    List<HeldFile> list = new ArrayList<>();
    files.forEach((name, f) -> list.add(HeldFile.newBuilder().setName(name).setSize(f.size())
        .setSha256(ByteString.copyFrom(f.sha256())).build()));
    return Envelope.newBuilder().setHeldFiles(HeldFiles.newBuilder().addAllFiles(list)).build();
  }
}
