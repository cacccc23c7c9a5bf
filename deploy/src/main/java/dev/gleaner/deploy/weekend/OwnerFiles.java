package dev.gleaner.deploy.weekend;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The owner files of local workers, one per node: {@code DIR/NODE.owner}. The contract with the
 * worker's {@code --owner-file PATH}: while the file exists and holds {@code busy}, the owner is
 * present and the worker does not work. A file is written whole (a temporary file moved into
 * place), so a worker never reads half of it. {@link #crashes} makes the crash files of a failure
 * trace instead, {@code DIR/NODE.crash}, for the worker's {@code --crash-file}: while one exists,
 * its worker is down as after a crash.
 */
public final class OwnerFiles {
  static final String BUSY = "busy\n";

  private final Path dir;
  private final String suffix;

  public OwnerFiles(Path dir) {
    this(dir, ".owner");
  }

  private OwnerFiles(Path dir, String suffix) {
    this.dir = dir;
    this.suffix = suffix;
  }

  /** Crash files: {@code DIR/NODE.crash} exists while the node is down. */
  public static OwnerFiles crashes(Path dir) {
    return new OwnerFiles(dir, ".crash");
  }

  public Path path(String node) {
    if (!node.matches("[A-Za-z0-9._-]+") || node.startsWith(".")) {
      throw new IllegalArgumentException("node id '" + node + "' cannot name an owner file: use letters, digits,"
          + " '.', '_' and '-', not starting with '.'");
    }
    return dir.resolve(node + suffix);
  }

  /** The owner of {@code node} arrives, or the node goes down (the file holds {@code busy}); or leaves (no file). */
  public void set(String node, boolean present) {
    Path target = path(node);
    try {
      if (present) {
        Path tmp = dir.resolve("." + node + suffix + ".tmp");
        Files.writeString(tmp, BUSY);
        try {
          Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
        }
      } else {
        Files.deleteIfExists(target);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot " + (present ? "write " : "remove ") + target + ": " + e.getMessage(), e);
    }
  }
}
