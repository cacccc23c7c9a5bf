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
  /** The digests of the files read so far, by {@link #version}: jobs over one file share it. */
  private static final java.util.Map<String, String> DIGESTS = new java.util.concurrent.ConcurrentHashMap<>();
  private static final int MAX_DIGESTS = 1000;

  /** Its content's SHA-256 (hex), once computed; whether it is being (or was) computed. */
  private volatile String sha256;
  private final java.util.concurrent.atomic.AtomicBoolean hashing = new java.util.concurrent.atomic.AtomicBoolean();
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
   * Its content's SHA-256 (hex) if known, else null: the first call starts computing it on a thread of
   * its own (a relay that holds the same file sends it to its workers instead of the master; until the
   * digest is known, the master sends it). A file that cannot be read stays without one, logged.
   */
  public String sha256IfKnown() {
    String d = sha256;
    if (d == null) {
      String v = version();
      d = v == null ? null : DIGESTS.get(v);
      sha256 = d;
    }
    if (d == null && hashing.compareAndSet(false, true)) {
      Thread t = new Thread(this::hash, "gleaner-input-digest");
      t.setDaemon(true);
      t.start();
    }
    return d;
  }

  /** The file's path, size and modification time (null if they cannot be read): what its digest is cached by. */
  private String version() {
    try {
      return path + "\0" + Files.size(path) + "\0" + Files.getLastModifiedTime(path).toMillis();
    } catch (IOException e) {
      return null;
    }
  }

  private void hash() {
    long began = System.nanoTime();
    try (java.io.InputStream in = Files.newInputStream(path)) {
      java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
        md.update(buf, 0, n);
      }
      String version = version();
      sha256 = java.util.HexFormat.of().formatHex(md.digest());
      if (version != null && version.equals(version())) {
        // unchanged while it was read: a later job over the same file needs no second reading
        if (DIGESTS.size() >= MAX_DIGESTS) {
          DIGESTS.clear();
        }
        DIGESTS.put(version, sha256);
      }
      org.slf4j.LoggerFactory.getLogger(FileInputSource.class).info("input {}: SHA-256 {} in {} ms", path,
          sha256.substring(0, 12), (System.nanoTime() - began) / 1_000_000);
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
      org.slf4j.LoggerFactory.getLogger(FileInputSource.class).warn("closing input {} failed: {}", path, e.getMessage(), e);
    }
  }
}
