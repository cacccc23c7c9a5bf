package dev.gleaner.protocol;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;

/** Reads the shared cluster secret: the file's bytes, trailing whitespace removed. */
public final class SecretFile {
  /** A secret shorter than this is refused: it would be guessable. */
  public static final int MIN_BYTES = 16;

  private SecretFile() {}

  public static byte[] read(Path file) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new IllegalArgumentException("secret file " + file + " does not exist; create one with: head -c 32 /dev/urandom | base64 > " + file, e);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read secret file " + file + ": " + e.getMessage(), e);
    }
    int end = bytes.length;
    while (end > 0 && Character.isWhitespace(bytes[end - 1])) {
      end--;
    }
    if (end < MIN_BYTES) {
      throw new IllegalArgumentException("secret file " + file + " holds " + end + " bytes; at least " + MIN_BYTES + " are needed");
    }
    return Arrays.copyOf(bytes, end);
  }
}
