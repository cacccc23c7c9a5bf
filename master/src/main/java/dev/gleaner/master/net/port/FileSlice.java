package dev.gleaner.master.net.port;

import dev.gleaner.master.loop.FileInputSource;
import io.netty.channel.FileRegion;
import io.netty.util.AbstractReferenceCounted;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * Bytes of a file the master sends without copying them through the heap (the transport uses
 * sendfile where it can). Unlike Netty's {@code DefaultFileRegion}, releasing it does not close
 * the file, which the job shares between all its streams.
 */
final class FileSlice extends AbstractReferenceCounted implements FileRegion {
  private final FileInputSource input;
  private final FileChannel file;
  private final long position;
  private final long count;
  private long transferred;

  /** A slice of the job's input; the input stays open until every slice is released. */
  FileSlice(FileInputSource input, long position, long count) {
    this.input = input;
    this.file = input.channel();
    this.position = position;
    this.count = count;
    input.sliceTaken();
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  @Deprecated
  @SuppressWarnings("deprecation")
  public long transfered() {
    return transferred;
  }

  @Override
  public long transferred() {
    return transferred;
  }

  @Override
  public long count() {
    return count;
  }

  @Override
  public long transferTo(WritableByteChannel target, long at) throws IOException {
    long n = file.transferTo(position + at, count - at, target);
    if (n > 0) {
      transferred += n;
    } else if (n == 0 && file.size() < position + count) {
      throw new IOException("the input file shrank below byte " + (position + count) + " while it was being sent");
    }
    return n;
  }

  @Override
  protected void deallocate() {
    // the file belongs to the job; it closes once the job is over and no slice holds it
    input.sliceReleased();
  }

  @Override
  public FileSlice retain() {
    super.retain();
    return this;
  }

  @Override
  public FileSlice retain(int increment) {
    super.retain(increment);
    return this;
  }

  @Override
  public FileSlice touch() {
    return this;
  }

  @Override
  public FileSlice touch(Object hint) {
    return this;
  }
}
