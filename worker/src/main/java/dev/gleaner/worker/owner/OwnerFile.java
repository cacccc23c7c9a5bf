package dev.gleaner.worker.owner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owner as a file says (tests, replays of availability traces, a script of the owner's own):
 * present while the file exists, unless its first line is {@code idle}. {@code busy} or an empty
 * file mean present; any other first line is logged once, when it appears, and counts as present
 * (a wrong guess then costs this worker's work, not the owner's machine).
 */
public final class OwnerFile implements OwnerActivity {
  private static final Logger log = LoggerFactory.getLogger(OwnerFile.class);
  /** The form, for the worker's option help. */
  public static final String FORM = "the owner is present while FILE exists, unless its first line is 'idle'"
      + " ('busy' or an empty file: present; no file: absent)";

  private final Path file;
  private String warned;

  public OwnerFile(Path file) {
    this.file = file;
  }

  @Override
  public String name() {
    return "the file " + file;
  }

  @Override
  public Observation observe(Instant now) throws IOException {
    String first;
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      int eol = text.indexOf('\n');
      first = (eol < 0 ? text : text.substring(0, eol)).trim().toLowerCase(Locale.ROOT);
    } catch (NoSuchFileException e) {
      return Observation.nothing();
    }
    if (first.equals("idle")) {
      return Observation.nothing();
    }
    if (!first.isEmpty() && !first.equals("busy") && !first.equals(warned)) {
      warned = first;
      log.warn("{} says '{}', which is neither 'busy' nor 'idle'; the owner counts as present", file, first);
    }
    return Observation.input(now, "the owner file " + file + " says busy");
  }
}
