package dev.gleaner.common.workload;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A count of matching lines plus the first few of them. Encoding: count (8 bytes), limit (4),
 * number of kept lines (4), then each line as length (4) and UTF-8 bytes. Merging adds the counts
 * and keeps the left lines first, up to the smaller limit ({@link #NO_LIMIT} for the empty result).
 */
public record LinesResult(long count, int limit, List<String> lines) {
  /** The limit of a result that has no lines yet and constrains nothing. */
  public static final int NO_LIMIT = Integer.MAX_VALUE;

  public LinesResult {
    lines = List.copyOf(lines);
  }

  public byte[] encode() {
    List<byte[]> encoded = new ArrayList<>(lines.size());
    int size = 16;
    for (String l : lines) {
      byte[] b = l.getBytes(StandardCharsets.UTF_8);
      encoded.add(b);
      size += 4 + b.length;
    }
    ByteBuffer out = ByteBuffer.allocate(size).putLong(count).putInt(limit).putInt(encoded.size());
    for (byte[] b : encoded) {
      out.putInt(b.length).put(b);
    }
    return out.array();
  }

  public static LinesResult decode(byte[] bytes) {
    try {
      ByteBuffer in = ByteBuffer.wrap(bytes);
      long count = in.getLong();
      int limit = in.getInt();
      int n = in.getInt();
      List<String> lines = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        byte[] b = new byte[in.getInt()];
        in.get(b);
        lines.add(new String(b, StandardCharsets.UTF_8));
      }
      return new LinesResult(count, limit, lines);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("malformed lines result of " + bytes.length + " bytes", e);
    }
  }

  public static byte[] merge(byte[] left, byte[] right) {
    LinesResult a = decode(left);
    LinesResult b = decode(right);
    int limit = Math.min(a.limit, b.limit);
    List<String> lines = new ArrayList<>(a.lines);
    for (String l : b.lines) {
      if (lines.size() >= limit) {
        break;
      }
      lines.add(l);
    }
    return new LinesResult(a.count + b.count, limit, lines).encode();
  }
}
