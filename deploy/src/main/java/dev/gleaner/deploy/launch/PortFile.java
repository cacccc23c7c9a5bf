package dev.gleaner.deploy.launch;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The file a master writes its port to once it listens ({@code gleaner master --port-file FILE}): the
 * port as its only line. It is written to a file of its own in the same folder and renamed over
 * FILE, so a reader finds no file, an older one whole, or this one whole, never a part of one; what
 * started the master reads its port here ({@link MasterProcess}), not from its log.
 */
public final class PortFile {
  private PortFile() {}

  /** Writes {@code port} to {@code file}, replacing what was there in one rename. */
  public static void write(Path file, int port) throws IOException {
    Path name = file.getFileName();
    if (name == null) {
      throw new NoSuchFileException(file.toString(), null, "not a file's name");
    }
    Path next = Files.createTempFile(file.toAbsolutePath().getParent(), "." + name + ".", ".next");
    try {
      Files.writeString(next, port + "\n");
      Files.move(next, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      // renamed: nothing is left; failed: the half-made file goes too
      Files.deleteIfExists(next);
    }
  }

  /** The port in {@code file}; null while there is no such file. */
  public static Integer read(Path file) throws IOException {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      return null;
    }
    try {
      int port = Integer.parseInt(text.strip());
      if (port >= 1 && port <= 65535 && text.strip().lines().count() == 1) {
        return port;
      }
    } catch (NumberFormatException e) {
      // said below, with the file's name and what it holds
    }
    throw new IOException(file + " holds '" + text.strip() + "', not a port number");
  }

  /** Why {@code e} kept a file (this one, a worker's events file) from being written, in a few words for one line. */
  public static String reason(IOException e) {
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    if (e instanceof NoSuchFileException) {
      return "no such folder";
    }
    return e.getMessage() == null ? e.toString() : e.getMessage();
  }
}
