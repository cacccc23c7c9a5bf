package dev.gleaner.master.net;

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
  private final FileChannel file;
  private final long position;
  private final long count;
  private long transferred;

  FileSlice(FileChannel file, long position, long count) {
    this.file = file;
    this.position = position;
    this.count = count;
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
    // the file belongs to the job, not to this slice
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
