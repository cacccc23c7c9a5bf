package dev.gleaner.common.workload;

import java.nio.ByteBuffer;

/** Legal cut points of line-oriented input: the start of a line. */
public final class LineCuts {
  private LineCuts() {}

  /** The first line start at or after {@code position} (0 < position < size), or the input's size. */
  public static long nextLineStart(long position, InputSource input) {
    ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
    long at = position - 1;
    while (true) {
      buf.clear();
      int n = input.read(at, buf);
      if (n <= 0) {
        return input.size();
      }
      for (int i = 0; i < n; i++) {
        if (buf.get(i) == '\n') {
          return at + i + 1;
        }
      }
      at += n;
    }
  }
}
