package dev.gleaner.deploy.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A result streamed as text: whole characters, and whether it ended its last line. */
class TextSinkTest {
  private static String through(byte[] bytes, int cut, boolean[] endsLine) throws Exception {
    StringWriter w = new StringWriter();
    TextSink sink = new TextSink(w);
    try (sink) {
      sink.write(bytes, 0, cut);
      sink.write(bytes, cut, bytes.length - cut);
    }
    endsLine[0] = sink.endsLine();
    return w.toString();
  }

  @Test
  void aCharacterCutBetweenTwoPartsArrivesWholeAndTheLastLineIsKnown() throws Exception {
    byte[] text = "réseau\nnœud\n".getBytes(StandardCharsets.UTF_8);
    boolean[] ends = new boolean[1];
    // cut inside the two bytes of 'é'
    assertEquals("réseau\nnœud\n", through(text, 2, ends));
    assertTrue(ends[0], "a result ending with a newline gets none more");
    assertEquals("réseau\nnœud", through("réseau\nnœud".getBytes(StandardCharsets.UTF_8), 2, ends));
    assertFalse(ends[0], "a result without a final newline gets one");
    assertEquals("", through(new byte[0], 0, ends));
    assertTrue(ends[0], "an empty result gets no empty line");
  }

  @Test
  void printedLinesEndWithExactlyOneNewline() {
    for (String[] c : new String[][] {{"78498 primes", "78498 primes\n"}, {"a\nb\n", "a\nb\n"}, {"", ""}}) {
      StringWriter w = new StringWriter();
      try (PrintWriter out = new PrintWriter(w)) {
        TextSink.printLines(out, c[0]);
      }
      assertEquals(c[1], w.toString().replace(System.lineSeparator(), "\n"), c[0]);
    }
  }
}
