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
 * place), so a worker never reads half of it.
 */
public final class OwnerFiles {
  static final String BUSY = "busy\n";

  private final Path dir;

  public OwnerFiles(Path dir) {
    this.dir = dir;
  }

  public Path path(String node) {
    if (!node.matches("[A-Za-z0-9._-]+") || node.startsWith(".")) {
      throw new IllegalArgumentException("node id '" + node + "' cannot name an owner file: use letters, digits,"
          + " '.', '_' and '-', not starting with '.'");
    }
    return dir.resolve(node + ".owner");
  }

  /** The owner of {@code node} arrives (the file holds {@code busy}) or leaves (no file). */
  public void set(String node, boolean present) {
    Path target = path(node);
    try {
      if (present) {
        Path tmp = dir.resolve("." + node + ".owner.tmp");
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
