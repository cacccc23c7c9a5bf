package dev.gleaner.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A chunk's input time as the worker tells it to the master: what its first read found waiting in the
 * socket buffer came before the worker looked, and is not taken for a link as fast as memory.
 */
class ChunkTaskPaceTest {
  private static final long MS = 1_000_000;

  @Test
  void bytesWaitingAtTheFirstReadArePacedLikeThoseAfterIt() {
    // 1 MB: 200 kB waiting when the worker first read, the other 800 kB over the next 80 ms (10 MB/s)
    assertEquals(100 * MS, ChunkTask.paced(1_000_000, 200_000, 80 * MS));
    // nothing waiting but the first 64 kB read: about the span itself
    assertEquals(86 * MS, ChunkTask.paced(1_000_000, 64_000, 80 * MS), MS);
  }

  @Test
  void aTransferThatCameMostlyAtOnceMeasuresNothing() {
    assertEquals(0, ChunkTask.paced(8_000, 8_000, 0), "one read");
    assertEquals(0, ChunkTask.paced(1_000_000, 600_000, 40 * MS), "more than half waiting");
    assertEquals(0, ChunkTask.paced(1_000_000, 100_000, MS / 2), "all within the first read's millisecond");
  }
}
