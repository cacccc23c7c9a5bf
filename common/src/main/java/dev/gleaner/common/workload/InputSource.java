package dev.gleaner.common.workload;

import java.nio.ByteBuffer;

/**
 * Random access to a job's input, provided by whoever has it (the master, over a file). Kept as
 * an interface so workloads decide cut points without doing I/O themselves.
 */
public interface InputSource {
  /** Size in bytes. */
  long size();

  /**
   * Reads bytes at {@code position} into {@code target}; returns how many, or -1 at the end.
   *
   * @throws java.io.UncheckedIOException if the input cannot be read
   */
  int read(long position, ByteBuffer target);
}
