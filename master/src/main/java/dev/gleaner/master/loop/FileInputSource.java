package dev.gleaner.master.loop;

import dev.gleaner.common.workload.InputSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** A job's input file, read with positional reads (thread-safe, no shared position). */
public final class FileInputSource implements InputSource, AutoCloseable {
  private final Path path;
  private final FileChannel channel;
  private final long size;
  /** As many digests are kept as files a relay may hold; the least recently used goes first. */
  private static final int MAX_DIGESTS = Relays.MAX_HELD;
  /** The digests of the files read so far, by {@link #version}: jobs over one file share it. */
  private static final java.util.Map<Version, String> DIGESTS = java.util.Collections.synchronizedMap(
      new java.util.LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<Version, String> eldest) {
          return size() > MAX_DIGESTS;
        }
      });
  private static final java.util.Set<Version> HASHING = java.util.concurrent.ConcurrentHashMap.newKeySet();
  /** One thread reads the files to digest, one at a time, lest several big ones take the disk at once. */
  private static final java.util.concurrent.ExecutorService DIGESTER =
      java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "gleaner-input-digest");
        t.setDaemon(true);
        return t;
      });

  /** The file's path, size and modification time when it was opened: what its digest is found by. */
  private final Version openedAs;
  /** Its digest once known: looked up no more. */
  private volatile String sha256;
  /** Slices queued or being sent, and whether the job asked to close the file. */
  private int slices;
  private boolean closing;

  public FileInputSource(Path path) {
    this.path = path;
    try {
      if (Files.isDirectory(path)) {
        throw new IllegalArgumentException("input " + path + " is a directory, not a file");
      }
      this.channel = FileChannel.open(path, StandardOpenOption.READ);
      this.size = channel.size();
      this.openedAs = version(path);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("input file " + path + " does not exist on the master", e);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot open input file " + path + ": " + e.getMessage(), e);
    }
  }

  public Path path() {
    return path;
  }

  public FileChannel channel() {
    return channel;
  }

  @Override
  public long size() {
    return size;
  }

  @Override
  public int read(long position, ByteBuffer target) {
    if (position >= size) {
      return -1;
    }
    try {
      return channel.read(target, position);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path + " at byte " + position, e);
    }
  }

  /**
   * Its content's SHA-256 (hex) if known, else null: the first call has it read on the digest thread
   * (a relay that holds the same file sends it to its workers instead of the master; until the digest
   * is known, the master sends it). A file changed since it was opened has none.
   */
  public String sha256IfKnown() {
    String d = sha256;
    if (d != null || openedAs == null) {
      return d;
    }
    d = DIGESTS.get(openedAs);
    if (d == null) {
      digestLater(path);
    }
    sha256 = d;
    return d;
  }

  /**
   * Has the file at {@code path} read on the digest thread, unless its digest as it is now is known or
   * on its way (a relay said it holds a file of that size: a job over it will want the digest).
   */
  public static void digestLater(Path path) {
    Version v = version(path);
    if (v == null || DIGESTS.containsKey(v) || !HASHING.add(v)) {
      return;
    }
    DIGESTER.execute(() -> {
      try {
        hash(path, v);
      } finally {
        HASHING.remove(v);
      }
    });
  }

  /** The most entries of the served directories looked at for files a relay may hold. */
  private static final int MAX_SERVED_ENTRIES = 100_000;

  /**
   * On the digest thread: every regular file under the served directories whose size is one of
   * {@code sizes} (files a relay just said it holds) has its digest read, so that a job over it can
   * have the relay send it from its first chunk.
   */
  public static void digestServedLater(java.util.List<Path> served, java.util.Set<Long> sizes) {
    if (served.isEmpty() || sizes.isEmpty()) {
      return;
    }
    DIGESTER.execute(() -> {
      int seen = 0;
      for (Path dir : served) {
        try (java.util.stream.Stream<Path> walk = Files.walk(dir.toRealPath())) {
          for (Path p : (Iterable<Path>) walk::iterator) {
            if (++seen > MAX_SERVED_ENTRIES) {
              org.slf4j.LoggerFactory.getLogger(FileInputSource.class).info("the served directories hold more than"
                  + " {} entries; the rest are digested when a job names them", MAX_SERVED_ENTRIES);
              return;
            }
            Version v = Files.isRegularFile(p, java.nio.file.LinkOption.NOFOLLOW_LINKS) ? version(p) : null;
            // a file gone or unreadable since the walk saw it is passed over (version is null)
            if (v != null && sizes.contains(v.size()) && !DIGESTS.containsKey(v)) {
              hash(p, v);
            }
          }
        } catch (IOException | java.io.UncheckedIOException e) {
          org.slf4j.LoggerFactory.getLogger(FileInputSource.class).warn("cannot look through served directory {}"
              + " for the files a relay holds: {}", dir, e.toString(), e);
        }
      }
    });
  }

  /** A file as it is now: what its digest is found by. */
  private record Version(Path path, long size, long modifiedMillis) {}

  /** The file's path, size and modification time (null if they cannot be read). */
  private static Version version(Path path) {
    try {
      return new Version(path, Files.size(path), Files.getLastModifiedTime(path).toMillis());
    } catch (IOException e) {
      return null;
    }
  }

  private static void hash(Path path, Version before) {
    long began = System.nanoTime();
    try (java.io.InputStream in = Files.newInputStream(path)) {
      java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
        md.update(buf, 0, n);
      }
      String digest = java.util.HexFormat.of().formatHex(md.digest());
      if (!before.equals(version(path))) {
        // changed while it was read: no digest says what it holds
        org.slf4j.LoggerFactory.getLogger(FileInputSource.class).warn("input {} changed while its digest was"
            + " computed; no relay sends it until it is read again", path);
        return;
      }
      DIGESTS.put(before, digest);
      org.slf4j.LoggerFactory.getLogger(FileInputSource.class).info("input {}: SHA-256 {} in {} ms", path,
          digest.substring(0, 12), (System.nanoTime() - began) / 1_000_000);
    } catch (IOException | java.security.NoSuchAlgorithmException e) {
      org.slf4j.LoggerFactory.getLogger(FileInputSource.class).warn("input {}: cannot compute its digest, so no"
          + " relay sends it; the master does: {}", path, e.toString(), e);
    }
  }

  /** A slice of the file is on its way out: the file stays open until it is released. */
  public synchronized void sliceTaken() {
    slices++;
  }

  /** A slice was sent or dropped; the file closes now if it was asked to and no slice is left. */
  public void sliceReleased() {
    boolean closeNow;
    synchronized (this) {
      slices--;
      closeNow = closing && slices == 0;
    }
    if (closeNow) {
      closeQuietly();
    }
  }

  /**
   * Closes the file once no slice of it is on its way out any more (slices already queued on a
   * connection when a job ends must still be sent or dropped without an error).
   */
  @Override
  public void close() throws IOException {
    boolean closeNow;
    synchronized (this) {
      closing = true;
      closeNow = slices == 0;
    }
    if (closeNow) {
      channel.close();
    }
  }

  private void closeQuietly() {
    try {
      channel.close();
    } catch (IOException e) {
      org.slf4j.LoggerFactory.getLogger(FileInputSource.class).warn("closing input {} failed: {}", path, e.getMessage(),
          e);
    }
  }
}
