package dev.gleaner.common.workload;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.Map;

/**
 * {@code wc}: counts the lines and bytes of a file on the master, streamed to workers in
 * line-aligned byte ranges; one unit is one byte. Cheap per byte, so a {@code wc} job runs at the
 * speed the master can stream.
 */
public final class WcWorkload implements Workload {
  @Override
  public String name() {
    return "wc";
  }

  @Override
  public String summary() {
    return "count lines and bytes of a file on the master; params: file";
  }

  @Override
  public String inputParam() {
    return "file";
  }

  @Override
  public UnitRange range(Map<String, String> params, InputSource input) {
    new Params(name(), params).onlyKnown("file");
    return new UnitRange(0, input.size());
  }

  @Override
  public long align(long position, InputSource input) {
    return LineCuts.nextLineStart(position, input);
  }

  @Override
  public ChunkComputation open(Map<String, String> params, long start, long end) {
    return new ChunkComputation() {
      private long lines;
      private long bytes;

      @Override
      public void compute(long from, long to, ByteBuffer input, Cancellation cancel) {
        if (input == null || input.remaining() != to - from) {
          throw new IllegalArgumentException("wc: expected " + (to - from) + " bytes of input");
        }
        long n = 0;
        if (input.hasArray()) {
          byte[] a = input.array();
          for (int i = input.arrayOffset() + input.position(), e = input.arrayOffset() + input.limit(); i < e; i++) {
            if (a[i] == '\n') {
              n++;
            }
          }
        } else {
          byte[] buf = new byte[Math.min(64 * 1024, input.remaining())];
          ByteBuffer view = input.duplicate();
          while (view.hasRemaining()) {
            int len = Math.min(buf.length, view.remaining());
            view.get(buf, 0, len);
            for (int i = 0; i < len; i++) {
              if (buf[i] == '\n') {
                n++;
              }
            }
          }
        }
        lines += n;
        bytes += input.remaining();
        input.position(input.limit());
      }

      @Override
      public byte[] take() {
        byte[] r = ByteBuffer.allocate(16).putLong(lines).putLong(bytes).array();
        lines = 0;
        bytes = 0;
        return r;
      }
    };
  }

  @Override
  public byte[] empty() {
    return new byte[16];
  }

  @Override
  public byte[] merge(byte[] left, byte[] right) {
    ByteBuffer a = ByteBuffer.wrap(left);
    ByteBuffer b = ByteBuffer.wrap(right);
    return ByteBuffer.allocate(16).putLong(a.getLong() + b.getLong()).putLong(a.getLong() + b.getLong()).array();
  }

  @Override
  public String render(byte[] result) {
    ByteBuffer r = ByteBuffer.wrap(result);
    return String.format(Locale.ROOT, "%d lines, %d bytes", r.getLong(), r.getLong());
  }
}
