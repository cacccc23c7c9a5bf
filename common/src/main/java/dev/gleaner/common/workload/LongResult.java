package dev.gleaner.common.workload;

import java.nio.ByteBuffer;

/** A result that is one 64-bit count, 8 bytes big-endian; merging adds. */
public final class LongResult {
  private LongResult() {}

  public static byte[] encode(long value) {
    return ByteBuffer.allocate(8).putLong(value).array();
  }

  public static long decode(byte[] bytes) {
    if (bytes.length != 8) {
      throw new IllegalArgumentException("a count result has 8 bytes, got " + bytes.length);
    }
    return ByteBuffer.wrap(bytes).getLong();
  }

  public static byte[] add(byte[] left, byte[] right) {
    return encode(Math.addExact(decode(left), decode(right)));
  }
}
