package dev.gleaner.master.net.port;

import io.netty.channel.DefaultMessageSizeEstimator;
import io.netty.channel.FileRegion;
import io.netty.channel.MessageSizeEstimator;

/**
 * Counts a file region's bytes in the channel's pending outbound bytes. Netty's default estimator
 * counts a {@link FileRegion} as 0 bytes, so a stream of file slices never crosses the write
 * buffer's high watermark and {@code isWritable()} never says stop: the backpressure the one port
 * relies on would not engage.
 */
public final class FileRegionSizeEstimator implements MessageSizeEstimator {
  public static final FileRegionSizeEstimator INSTANCE = new FileRegionSizeEstimator();

  private static final Handle HANDLE = new Handle() {
    private final Handle fallback = DefaultMessageSizeEstimator.DEFAULT.newHandle();

    @Override
    public int size(Object msg) {
      if (msg instanceof FileRegion r) {
        return (int) Math.min(Integer.MAX_VALUE, r.count() - r.transferred());
      }
      return fallback.size(msg);
    }
  };

  private FileRegionSizeEstimator() {}

  @Override
  public Handle newHandle() {
    return HANDLE;
  }
}
