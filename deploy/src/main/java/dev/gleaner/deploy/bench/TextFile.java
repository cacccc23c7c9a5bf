package dev.gleaner.deploy.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** The text the benches' {@code wc} jobs count: 100-byte lines, the same for the same size. */
public final class TextFile {
  private TextFile() {}

  /** Writes {@code bytes} bytes of 100-byte lines to {@code file} (the last one cut short), replacing it. */
  public static void write(Path file, long bytes) throws IOException {
    byte[] line = ("gleaner bench line ".repeat(5) + "\n").getBytes(StandardCharsets.US_ASCII);
    ByteBuffer block = ByteBuffer.allocate(1 << 20);
    while (block.remaining() >= line.length) {
      block.put(line);
    }
    block.flip();
    try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      long written = 0;
      while (written < bytes) {
        ByteBuffer b = block.duplicate();
        b.limit((int) Math.min(b.limit(), bytes - written));
        written += out.write(b);
      }
    }
  }
}
