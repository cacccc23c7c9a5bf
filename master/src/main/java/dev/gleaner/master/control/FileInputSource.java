package dev.gleaner.master.control;

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

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
