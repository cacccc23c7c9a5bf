package dev.gleaner.common.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WcWorkloadTest {
  /** The byte-at-a-time count: the reference the word-at-a-time count must equal. */
  private static long reference(byte[] a, int from, int to) {
    long n = 0;
    for (int i = from; i < to; i++) {
      if (a[i] == '\n') {
        n++;
      }
    }
    return n;
  }

  /**
   * Newlines are counted exactly on heap and direct buffers at any offset and length, including
   * the bytes that fool a cheaper zero-byte test (0x0A next to 0x0B, 0x8A, 0x00 and 0xFF).
   */
  @Test
  void countsNewlinesExactlyLikeTheByteAtATimeReference() {
    SplittableRandom r = new SplittableRandom(11);
    byte[] tricky = {'\n', 0x0B, (byte) 0x8A, 0x00, (byte) 0xFF, 0x09, 0x0A, (byte) 0x80};
    for (int trial = 0; trial < 2000; trial++) {
      byte[] a = new byte[r.nextInt(0, 300)];
      for (int i = 0; i < a.length; i++) {
        a[i] = r.nextInt(3) == 0 ? tricky[r.nextInt(tricky.length)] : (byte) r.nextInt(256);
      }
      int from = a.length == 0 ? 0 : r.nextInt(0, a.length + 1);
      int to = r.nextInt(from, a.length + 1);
      long expected = reference(a, from, to);
      ByteBuffer heap = ByteBuffer.wrap(a, from, to - from);
      ByteBuffer direct = ByteBuffer.allocateDirect(a.length).put(a).position(from).limit(to);
      assertEquals(expected, WcWorkload.newlines(heap), "heap, trial " + trial);
      assertEquals(expected, WcWorkload.newlines(direct), "direct, trial " + trial);
      assertEquals(from, direct.position(), "the buffer's position is not moved");
    }
  }

  /** A chunk's result counts its lines and bytes whatever the slices it arrives in. */
  @Test
  void aChunkCountsLinesAndBytesOverItsSlices() throws Exception {
    byte[] text = "one\ntwo\n\nthree\nfour".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    WcWorkload wc = new WcWorkload();
    try (ChunkComputation c = wc.open(java.util.Map.of(), 0, text.length)) {
      c.compute(0, 5, ByteBuffer.wrap(text, 0, 5), () -> false);
      c.compute(5, text.length, ByteBuffer.allocateDirect(text.length - 5).put(text, 5, text.length - 5).flip(),
          () -> false);
      assertEquals("4 lines, " + text.length + " bytes", wc.render(wc.merge(wc.empty(), c.take())));
    }
  }
}
