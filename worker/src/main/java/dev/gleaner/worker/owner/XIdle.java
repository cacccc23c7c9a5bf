package dev.gleaner.worker.owner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * The X server's idle time, from {@code xprintidle} (milliseconds since the last keyboard or mouse
 * input of the display in {@code DISPLAY}): whatever the keyboard is plugged into.
 */
public final class XIdle implements OwnerActivity {
  private final Path program;

  public XIdle(Path program) {
    this.program = program;
  }

  /** {@code xprintidle} on the PATH, or null when it is not there or no display is set. */
  public static XIdle find(String path, String display) {
    if (display == null || display.isBlank() || path == null) {
      return null;
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      Path p = Path.of(dir.isEmpty() ? "." : dir, "xprintidle");
      if (java.nio.file.Files.isExecutable(p)) {
        return new XIdle(p);
      }
    }
    return null;
  }

  @Override
  public String name() {
    return "X idle time from " + program;
  }

  @Override
  public Observation observe(Instant now) throws IOException {
    Process p = new ProcessBuilder(program.toString()).redirectErrorStream(true).start();
    try {
      if (!p.waitFor(2, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(program + " did not answer within 2 s");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for " + program, e);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (p.exitValue() != 0) {
      throw new IOException(program + " failed (exit " + p.exitValue() + "): " + out);
    }
    try {
      long ms = Long.parseLong(out);
      return Observation.input(now.minusMillis(Math.max(0, ms)), "X keyboard or mouse input");
    } catch (NumberFormatException e) {
      throw new IOException(program + " printed '" + out + "', not milliseconds", e);
    }
  }
}
