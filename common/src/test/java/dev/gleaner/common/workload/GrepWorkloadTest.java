package dev.gleaner.common.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class GrepWorkloadTest {
  /** An input over a byte array. */
  static InputSource bytes(byte[] data) {
    return new InputSource() {
      @Override
      public long size() {
        return data.length;
      }

      @Override
      public int read(long position, ByteBuffer target) {
        if (position >= data.length) {
          return -1;
        }
        int n = (int) Math.min(target.remaining(), data.length - position);
        target.put(data, (int) position, n);
        return n;
      }
    };
  }

  static byte[] randomText(SplittableRandom r, int lines) {
    StringBuilder sb = new StringBuilder();
    String[] words = {"ACGT", "TTAG", "needle", "hay", "GATTACA", ">seq", "x"};
    for (int i = 0; i < lines; i++) {
      int n = r.nextInt(0, 6);
      for (int k = 0; k < n; k++) {
        sb.append(words[r.nextInt(words.length)]).append(r.nextBoolean() ? " " : "");
      }
      if (i < lines - 1 || r.nextBoolean()) {
        sb.append(r.nextInt(10) == 0 ? "\r\n" : "\n");
      }
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void anyLineAlignedCutsWithAnySlicingGiveTheReferenceAnswer() throws Exception {
    GrepWorkload w = new GrepWorkload();
    SplittableRandom r = new SplittableRandom(42);
    for (int trial = 0; trial < 200; trial++) {
      byte[] data = randomText(r, r.nextInt(1, 200));
      InputSource in = bytes(data);
      Map<String, String> params = Map.of("file", "x", "pattern", "needle", "max-lines", "3");
      String text = new String(data, StandardCharsets.UTF_8);
      List<String> expected = new ArrayList<>();
      for (String line : text.split("\n", -1)) {
        String l = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
        if (l.contains("needle")) {
          expected.add(l);
        }
      }
      // random proposed cuts, aligned by the workload; random slicing of each piece
      List<Long> cuts = new ArrayList<>(List.of(0L));
      while (cuts.get(cuts.size() - 1) < data.length) {
        long proposed = cuts.get(cuts.size() - 1) + r.nextInt(1, 40);
        cuts.add(proposed >= data.length ? data.length : w.align(proposed, in));
      }
      byte[] acc = w.empty();
      for (int i = 0; i + 1 < cuts.size(); i++) {
        long a = cuts.get(i);
        long b = cuts.get(i + 1);
        ChunkComputation c = w.open(params, a, b);
        long at = a;
        while (at < b) {
          long to = Math.min(b, at + r.nextInt(1, 17));
          c.compute(at, to, ByteBuffer.wrap(data, (int) at, (int) (to - at)).slice(), ChunkComputation.Cancellation.NEVER);
          at = to;
        }
        acc = w.merge(acc, c.take());
      }
      LinesResult result = LinesResult.decode(acc);
      assertEquals(expected.size(), result.count(), "trial " + trial);
      assertEquals(expected.subList(0, Math.min(3, expected.size())), result.lines(), "trial " + trial);
    }
  }

  @Test
  void alignMovesToTheNextLineStart() {
    byte[] data = "ab\ncd\n\nef".getBytes(StandardCharsets.UTF_8);
    GrepWorkload w = new GrepWorkload();
    InputSource in = bytes(data);
    assertEquals(3, w.align(1, in));
    assertEquals(3, w.align(3, in));
    assertEquals(6, w.align(4, in));
    assertEquals(7, w.align(7, in));
    assertEquals(9, w.align(8, in));
  }

  @Test
  void badParametersAreNamed() {
    GrepWorkload w = new GrepWorkload();
    InputSource in = bytes(new byte[10]);
    IllegalArgumentException typo = assertThrows(IllegalArgumentException.class,
        () -> w.range(Map.of("file", "f", "patern", "x"), in));
    assertTrue(typo.getMessage().contains("'patern'"), typo.getMessage());
    IllegalArgumentException regex = assertThrows(IllegalArgumentException.class,
        () -> w.range(Map.of("file", "f", "pattern", "(", "regex", "true"), in));
    assertTrue(regex.getMessage().contains("regular expression"), regex.getMessage());
  }
}
