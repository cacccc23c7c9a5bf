package dev.gleaner.deploy.client;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * UTF-8 bytes, as they stream in, written as text to a {@link Writer} (a command's output): a
 * character cut between two parts is kept until its last byte arrives. Closing it flushes the
 * writer but leaves it open.
 */
public final class TextSink extends OutputStream {
  private final Writer out;
  private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
  private final ByteBuffer pending = ByteBuffer.allocate(64 * 1024);
  private final CharBuffer chars = CharBuffer.allocate(64 * 1024);
  /** The last character written, 0 before any. */
  private char last;

  public TextSink(Writer out) {
    this.out = out;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    while (len > 0) {
      int n = Math.min(len, pending.remaining());
      pending.put(b, off, n);
      off += n;
      len -= n;
      decode(false);
    }
  }

  private void decode(boolean end) throws IOException {
    pending.flip();
    while (true) {
      var result = decoder.decode(pending, chars, end);
      chars.flip();
      written();
      out.write(chars.array(), chars.position(), chars.remaining());
      chars.clear();
      if (!result.isOverflow()) {
        break;
      }
    }
    pending.compact();
  }

  @Override
  public void flush() throws IOException {
    out.flush();
  }

  @Override
  public void close() throws IOException {
    decode(true);
    decoder.flush(chars);
    chars.flip();
    written();
    out.write(chars.array(), chars.position(), chars.remaining());
    chars.clear();
    out.flush();
  }

  private void written() {
    if (chars.hasRemaining()) {
      last = chars.get(chars.limit() - 1);
    }
  }

  /**
   * Whether what was written ends a line (or nothing was written): a command then prints no newline of
   * its own after it, so that a result ending with one is not followed by an empty line.
   */
  public boolean endsLine() {
    return last == 0 || last == '\n';
  }

  /** Prints {@code text} to {@code out} as one or more whole lines: with a newline unless it ends with one. */
  public static void printLines(java.io.PrintWriter out, String text) {
    out.print(text);
    if (!text.isEmpty() && !text.endsWith("\n")) {
      out.println();
    }
  }
}
