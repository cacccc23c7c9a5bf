package dev.gleaner.deploy.client;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * The terminal a progress line is redrawn on: how wide it is, and a line cut to fit it. A redrawn
 * line longer than the terminal wraps, and each redraw then leaves the wrapped part behind.
 */
public final class Terminal {
  /** The width taken when the terminal does not say. */
  static final int DEFAULT_COLUMNS = 80;

  private Terminal() {}

  /**
   * The terminal's width in columns: {@code $COLUMNS} if set, else what {@code stty size} says of
   * {@code /dev/tty}, else {@link #DEFAULT_COLUMNS}.
   */
  public static int columns() {
    Integer env = positive(System.getenv("COLUMNS"));
    if (env != null) {
      return env;
    }
    File tty = new File("/dev/tty");
    if (tty.canRead()) {
      try {
        Process p = new ProcessBuilder("stty", "size").redirectInput(tty).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        if (p.waitFor(2, TimeUnit.SECONDS) && p.exitValue() == 0) {
          String[] rowsColumns = out.split("\\s+");
          Integer c = rowsColumns.length == 2 ? positive(rowsColumns[1]) : null;
          if (c != null) {
            return c;
          }
        }
        p.destroyForcibly();
      } catch (IOException e) {
        // no stty here: the default width, as for a terminal that says nothing
        return DEFAULT_COLUMNS;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return DEFAULT_COLUMNS;
  }

  /** The line cut to fit {@code columns} without wrapping (the last column left free), "..." where it was cut. */
  public static String fit(String line, int columns) {
    int room = Math.max(4, columns - 1);
    if (line.length() <= room) {
      return line;
    }
    return line.substring(0, room - 3) + "...";
  }

  private static Integer positive(String s) {
    if (s == null || !s.matches("\\d{1,5}")) {
      return null;
    }
    int n = Integer.parseInt(s);
    return n > 0 ? n : null;
  }
}
