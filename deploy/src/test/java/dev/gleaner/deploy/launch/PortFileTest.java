package dev.gleaner.deploy.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The master's port file: the port as its only line, written whole or not at all, read back. */
class PortFileTest {
  @TempDir
  Path dir;

  /**
   * A reader that reads the file over and over while it is written again and again finds a whole
   * line each time, never an empty or half-written file, and nothing is left beside the file.
   */
  @Test
  void aReaderFindsAWholePortEveryTimeItIsRewritten() throws Exception {
    Path file = dir.resolve("master.port");
    PortFile.write(file, 1024);
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicInteger reads = new AtomicInteger();
    AtomicReference<IOException> failed = new AtomicReference<>();
    List<String> torn = new CopyOnWriteArrayList<>();
    Thread reader = new Thread(() -> {
      try {
        while (writing.get()) {
          String text = Files.readString(file);
          if (!text.matches("[0-9]+\n")) {
            torn.add(text);
          }
          reads.incrementAndGet();
        }
      } catch (IOException e) {
        failed.set(e);
      }
    }, "port-file-reader");
    reader.start();
    int port = 1024;
    // as many writes as the reader needs to read 500 times, and 500 at least
    while (failed.get() == null && (reads.get() < 500 || port < 1524)) {
      PortFile.write(file, ++port);
    }
    writing.set(false);
    reader.join();

    assertNull(failed.get(), () -> "the file could not be read while it was rewritten: " + failed.get());
    assertTrue(torn.isEmpty(), () -> torn.size() + " of " + reads.get() + " reads found less than one whole line,"
        + " such as " + torn.subList(0, Math.min(5, torn.size())));
    assertEquals(port, PortFile.read(file));
    assertEquals(port + "\n", Files.readString(file));
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(List.of(file), files.toList(), "nothing is left beside the port file");
    }
  }

  @Test
  void noFileReadsAsNoPortYet() throws Exception {
    assertNull(PortFile.read(dir.resolve("master.port")));
  }

  @Test
  void aFileThatHoldsNoPortIsRefusedNamingItAndWhatItHolds() throws Exception {
    Path file = Files.writeString(dir.resolve("master.port"), "listening\n");
    IOException e = assertThrows(IOException.class, () -> PortFile.read(file));
    assertEquals(file + " holds 'listening', not a port number", e.getMessage());
    Files.writeString(file, "70000\n");
    assertThrows(IOException.class, () -> PortFile.read(file));
  }

  @Test
  void aMissingFolderIsAnErrorOfFewWordsAndLeavesNothing() throws Exception {
    Path file = dir.resolve("none").resolve("master.port");
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> PortFile.write(file, 7070));
    assertEquals("no such folder", PortFile.reason(e));
    Path folder = Files.createDirectories(dir.resolve("taken"));
    IOException over = assertThrows(IOException.class, () -> PortFile.write(folder, 7070));
    assertTrue(Files.isDirectory(folder), "the folder in the file's place is untouched");
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(List.of(folder), files.toList(), "nothing is left beside it: " + PortFile.reason(over));
    }
  }
}
