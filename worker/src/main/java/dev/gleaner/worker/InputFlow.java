package dev.gleaner.worker;

import io.netty.util.internal.PlatformDependent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When to stop reading a connection's input: once one chunk has enough of it waiting to be computed,
 * but not while the chunk being computed waits for bytes of its own.
 *
 * <p>One connection carries the input of every chunk assigned over it, and a worker computes its
 * chunks in order. Input for a later chunk can come faster than the current one's (its relay holds
 * that job's file, the master sends the other): pausing for it would keep the current chunk's bytes
 * in the socket behind it until the lease ran out. So while a chunk is starved, reading goes on
 * past the high-water mark, up to a hard limit on the connection's whole input, a quarter of the
 * direct memory.
 */
final class InputFlow {
  private static final Logger log = LoggerFactory.getLogger(InputFlow.class);
  /** A chunk's input buffered beyond this pauses reading until the computation catches up. */
  static final long HIGH_WATER_BYTES = 16L * 1024 * 1024;
  /** Reading resumes once the chunk being computed has less than this waiting. */
  static final long LOW_WATER_BYTES = 4L * 1024 * 1024;

  /** Turns reading from the connection on or off. */
  interface Reading {
    void set(boolean on);
  }

  private final Reading reading;
  private final long hardLimit;
  private long buffered;
  private int starved;
  private boolean paused;
  private boolean warned;

  InputFlow(Reading reading) {
    this(reading, Math.max(4 * HIGH_WATER_BYTES, PlatformDependent.maxDirectMemory() / 4));
  }

  InputFlow(Reading reading, long hardLimit) {
    this.reading = reading;
    this.hardLimit = hardLimit;
  }

  /** Bytes of input arrived for a chunk that now has {@code chunkBuffered} waiting to be computed. */
  synchronized void arrived(long bytes, long chunkBuffered) {
    buffered += bytes;
    if (paused || chunkBuffered <= HIGH_WATER_BYTES) {
      return;
    }
    if (starved == 0 || buffered > hardLimit) {
      if (starved > 0 && !warned) {
        warned = true;
        log.warn("{} MiB of input for later chunks wait while the chunk being computed awaits its own; "
            + "reading from the master stops until they drain or the chunk's lease ends", buffered >> 20);
      }
      paused = true;
      reading.set(false);
    }
  }

  /** Buffered bytes of a chunk were computed (it has {@code chunkBuffered} left) or dropped (0). */
  synchronized void consumed(long bytes, long chunkBuffered) {
    buffered -= bytes;
    if (paused && chunkBuffered < LOW_WATER_BYTES && buffered <= hardLimit) {
      resume();
    }
  }

  /** The chunk being computed waits for input that has not arrived: reading must go on. */
  synchronized void starving() {
    starved++;
    if (paused && buffered <= hardLimit) {
      resume();
    }
  }

  /** A starved chunk got input, or stopped waiting for it. */
  synchronized void fed() {
    starved--;
  }

  synchronized long buffered() {
    return buffered;
  }

  private void resume() {
    paused = false;
    reading.set(true);
  }
}
