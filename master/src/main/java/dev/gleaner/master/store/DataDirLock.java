package dev.gleaner.master.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One master per data directory: an OS file lock on {@code gleaner.lock}, held while the store is
 * open and released by the OS if the process dies. The file holds the owner's PID, for the message
 * the second master prints.
 */
final class DataDirLock implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DataDirLock.class);

  /**
   * Directories locked by this JVM. Checked before the file is opened at all: on Linux, closing any
   * descriptor of a file releases every lock the process holds on it, so a second master in the same
   * process must not so much as open the lock file.
   */
  private static final java.util.Set<Path> HELD = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
  private final Path key;
  private final Path path;
  private final FileChannel channel;
  private final FileLock lock;

  private DataDirLock(Path key, Path path, FileChannel channel, FileLock lock) {
    this.key = key;
    this.path = path;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code dataDir} for this process.
   *
   * @throws IllegalStateException naming the directory and the owner's PID when another master holds it
   */
  static DataDirLock acquire(Path dataDir) {
    Path key;
    try {
      key = dataDir.toRealPath();
    } catch (IOException e) {
      throw new IllegalStateException("cannot resolve the data directory " + dataDir + ": " + e.getMessage(), e);
    }
    if (!HELD.add(key)) {
      throw inUse(dataDir, Long.toString(ProcessHandle.current().pid()));
    }
    Path path = key.resolve("gleaner.lock");
    FileChannel channel;
    try {
      channel = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    } catch (IOException e) {
      HELD.remove(key);
      throw new IllegalStateException("cannot open " + path + ": " + e.getMessage(), e);
    }
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (IOException | OverlappingFileLockException e) {
      closeQuietly(channel, path);
      HELD.remove(key);
      throw new IllegalStateException("cannot lock " + path + ": " + e.getMessage(), e);
    }
    if (lock == null) {
      String owner = owner(path);
      closeQuietly(channel, path);
      HELD.remove(key);
      throw inUse(dataDir, owner);
    }
    try {
      channel.truncate(0);
      channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
      channel.force(false);
    } catch (IOException e) {
      // the lock holds without the PID; only the other master's message is poorer
      log.warn("could not write the PID into {}: {}", path, e.getMessage(), e);
    }
    return new DataDirLock(key, path, channel, lock);
  }

  private static IllegalStateException inUse(Path dataDir, String owner) {
    return new IllegalStateException("the data directory " + dataDir + " is in use by another master"
        + (owner.isEmpty() ? "" : " (pid " + owner + ")") + "; stop it or give this one its own --data");
  }

  private static String owner(Path path) {
    try {
      return Files.readString(path, StandardCharsets.US_ASCII).strip();
    } catch (IOException e) {
      log.debug("cannot read the owner of {}", path, e);
      return "";
    }
  }

  private static void closeQuietly(FileChannel channel, Path path) {
    try {
      channel.close();
    } catch (IOException e) {
      log.warn("closing {} failed: {}", path, e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    try {
      lock.release();
    } catch (IOException e) {
      log.warn("releasing {} failed: {}", path, e.getMessage(), e);
    }
    closeQuietly(channel, path);
    HELD.remove(key);
  }
}
