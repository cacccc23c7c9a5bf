package dev.gleaner.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A failed program's stderr is kept as its last bytes only, whatever it wrote. */
class ExecStderrTailTest {
  @Test
  void keepsTheLastBytesOfWhatWasWrittenInAnyPortions() {
    ProcessExecRunner.Tail tail = new ProcessExecRunner.Tail(8);
    StringBuilder all = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      String line = "line " + i + "\n";
      all.append(line);
      byte[] b = line.getBytes(StandardCharsets.UTF_8);
      tail.write(b, b.length);
    }
    assertTrue(tail.dropped());
    assertEquals(all.substring(all.length() - 8), tail.text());
    byte[] big = "0123456789abcdefghij".getBytes(StandardCharsets.UTF_8);
    tail.write(big, big.length);
    assertEquals("cdefghij", tail.text(), "a write longer than the tail keeps its end");
    tail.reset();
    assertFalse(tail.dropped());
    byte[] few = "ok".getBytes(StandardCharsets.UTF_8);
    tail.write(few, few.length);
    assertEquals("ok", tail.text());
    assertFalse(tail.dropped());
    tail.reset();
    byte[] exact = "12345678".getBytes(StandardCharsets.UTF_8);
    tail.write(exact, exact.length);
    assertEquals("12345678", tail.text());
    assertFalse(tail.dropped(), "exactly its capacity: nothing dropped");
    tail.write(exact, 1);
    assertEquals("23456781", tail.text());
    assertTrue(tail.dropped());
  }
}
