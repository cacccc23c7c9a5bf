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

  /**
   * The secret a worker or a client answers with: a missing file is to be copied from the master,
   * whose secret it must be.
   */
  public static byte[] read(Path file) {
    return read(file, false);
  }

  /**
   * The secret a master checks its peers with: a missing file is to be made (then copied to the
   * workers and clients).
   */
  public static byte[] readForMaster(Path file) {
    return read(file, true);
  }

  private static byte[] read(Path file, boolean master) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      Path dir = file.toAbsolutePath().getParent();
      throw new IllegalArgumentException("secret file " + file + " does not exist; " + (master
          ? "make one with: mkdir -p " + dir + " && (umask 077 && head -c 32 /dev/urandom | base64 > " + file
              + "), then copy it to every worker and client"
          : "copy the master's secret file there (the same bytes; chmod 600" + (Files.isDirectory(dir) ? ""
              : "; its folder first: mkdir -p " + dir) + "), or name it with --secret-file"), e);
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
