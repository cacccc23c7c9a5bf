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
        long n = newlines(input);
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

  private static final long ONES = 0x0101010101010101L;
  private static final long LOW7 = 0x7F7F7F7F7F7F7F7FL;

  /**
   * The number of '\n' bytes in the buffer's remaining bytes (its position is not moved), eight
   * bytes at a time.
   *
   * <p>How: a word XOR eight newlines has a zero byte where the input had a newline; a byte is zero
   * exactly when neither its low seven bits (added to 0x7F, which carries into the top bit unless
   * they are all zero) nor its top bit are set. The count of such top bits is the count of
   * newlines, with no false positives (unlike the cheaper "has a zero byte" test, whose borrows
   * spill into neighbouring bytes). Works on direct and heap buffers alike, without copying.
   */
  static long newlines(ByteBuffer input) {
    ByteBuffer b = input.duplicate().order(java.nio.ByteOrder.nativeOrder());
    int i = b.position();
    int end = b.limit();
    long n = 0;
    long nl = ONES * '\n';
    for (; i + 8 <= end; i += 8) {
      long x = b.getLong(i) ^ nl;
      long t = (x & LOW7) + LOW7;
      n += Long.bitCount(~(t | x | LOW7));
    }
    for (; i < end; i++) {
      if (b.get(i) == '\n') {
        n++;
      }
    }
    return n;
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
