package dev.gleaner.worker;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The programs {@code exec} may run on this worker, by the real path of their file: an entry is a
 * path or a bare name looked up on PATH once, at startup; a job's program is looked up the same way
 * and its real path (links resolved) must be one of them. A program that merely shares a name with
 * an allowed one ({@code /tmp/x/sh} for {@code sh}) is refused.
 */
final class ExecAllowList {
  private static final Logger log = LoggerFactory.getLogger(ExecAllowList.class);

  /** Real path of each allowed program, to the entry it came from. */
  private final Map<Path, String> allowed;
  private final String searchPath;

  private ExecAllowList(Map<Path, String> allowed, String searchPath) {
    this.allowed = allowed;
    this.searchPath = searchPath;
  }

  /** Resolves every entry on {@code searchPath} (a PATH value); an entry that names no program is a one-line error. */
  static ExecAllowList resolve(Set<String> entries, String searchPath) {
    Map<Path, String> allowed = new LinkedHashMap<>();
    for (String entry : entries) {
      Path real = find(entry, searchPath);
      if (real == null) {
        throw new IllegalArgumentException("--allow-exec " + entry + ": no such executable program"
            + (entry.contains("/") ? "" : " on PATH"));
      }
      log.info("exec may run {}: {}", entry, real);
      allowed.put(real, entry);
    }
    return new ExecAllowList(Map.copyOf(allowed), searchPath);
  }

  /**
   * The path to start for a job's {@code program}: found as PATH would find it, its real path on
   * the list; otherwise an {@link IllegalArgumentException} that says why.
   */
  Path check(String program) {
    Path found = lookup(program, searchPath);
    if (found == null) {
      throw new IllegalArgumentException("exec: program '" + program + "' is not on this worker"
          + (program.contains("/") ? "" : " (not on its PATH)") + "; allowed here: " + describe());
    }
    Path real = realPath(found);
    if (real == null || !allowed.containsKey(real)) {
      Path what = real == null ? found : real;
      throw new IllegalArgumentException("exec: program '" + program + "' is not allowed on this worker: it is " + what
          + ", and the allow-list has " + describe()
          + " (compared by real path); start the worker with --allow-exec " + what + " to allow it");
    }
    return found;
  }

  String describe() {
    List<String> parts = new ArrayList<>();
    allowed.forEach((real, entry) -> parts.add(entry.equals(real.toString()) ? entry : entry + " = " + real));
    return String.join(", ", parts);
  }

  private static Path find(String program, String searchPath) {
    Path p = lookup(program, searchPath);
    return p == null ? null : realPath(p);
  }

  /** {@code program} as a path if it has a slash, else the first executable of that name on the search path. */
  private static Path lookup(String program, String searchPath) {
    try {
      if (program.isEmpty()) {
        return null;
      }
      if (program.contains("/")) {
        Path p = Path.of(program).toAbsolutePath();
        return Files.isRegularFile(p) && Files.isExecutable(p) ? p : null;
      }
      for (String dir : searchPath == null ? new String[0] : searchPath.split(File.pathSeparator)) {
        if (dir.isEmpty()) {
          continue;
        }
        Path p = Path.of(dir, program).toAbsolutePath();
        if (Files.isRegularFile(p) && Files.isExecutable(p)) {
          return p;
        }
      }
      return null;
    } catch (InvalidPathException e) {
      return null;
    }
  }

  private static Path realPath(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return null;
    }
  }
}
