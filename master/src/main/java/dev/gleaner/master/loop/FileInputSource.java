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
