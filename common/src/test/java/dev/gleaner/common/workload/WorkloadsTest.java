package dev.gleaner.common.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkloadsTest {
  @Test
  void unknownWorkloadNamesTheKnownOnes() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Workloads.of().get("prime"));
    assertTrue(e.getMessage().contains("unknown workload 'prime'") && e.getMessage().contains("primes"), e.getMessage());
  }

  @Test
  void primesParametersAreValidated() {
    PrimesWorkload w = new PrimesWorkload();
    assertEquals(new UnitRange(0, 1_000_000_000L), w.range(Map.of("to", "1e9"), null));
    assertEquals(new UnitRange(5, 10), w.range(Map.of("from", "5", "to", "10"), null));
    assertThrows(IllegalArgumentException.class, () -> w.range(Map.of("to", "ten"), null));
    assertThrows(IllegalArgumentException.class, () -> w.range(Map.of("from", "10", "to", "5"), null));
    IllegalArgumentException typo = assertThrows(IllegalArgumentException.class, () -> w.range(Map.of("too", "5"), null));
    assertTrue(typo.getMessage().contains("'too'"), typo.getMessage());
  }

  @Test
  void execCommandsSplitOnSpacesAndKeepQuotedWords() {
    assertEquals(List.of("sh", "-c", "echo {start} {end}"), ExecWorkload.command(Map.of("command", "sh -c 'echo {start} {end}'")));
    assertEquals("7-9:2", ExecWorkload.expand("{start}-{end}:{count}", 7, 9));
    assertThrows(IllegalArgumentException.class, () -> ExecWorkload.command(Map.of("command", "sh -c 'oops")));
  }

  @Test
  void wcCountsLinesAndBytesWhateverTheSlicing() throws Exception {
    byte[] data = "one\ntwo\n\nthree".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    WcWorkload w = new WcWorkload();
    byte[] acc = w.empty();
    for (int cut = 0; cut < data.length; cut += 3) {
      int to = Math.min(data.length, cut + 3);
      ChunkComputation c = w.open(Map.of(), cut, to);
      c.compute(cut, to, java.nio.ByteBuffer.wrap(data, cut, to - cut).slice(), ChunkComputation.Cancellation.NEVER);
      acc = w.merge(acc, c.take());
    }
    assertEquals("3 lines, 14 bytes", w.render(acc));
  }

  @Test
  void linesResultsMergeInOrderUpToTheLimit() {
    byte[] a = new LinesResult(2, 3, List.of("a1", "a2")).encode();
    byte[] b = new LinesResult(5, 3, List.of("b1", "b2", "b3")).encode();
    LinesResult m = LinesResult.decode(LinesResult.merge(a, b));
    assertEquals(7, m.count());
    assertEquals(List.of("a1", "a2", "b1"), m.lines());
  }

  @Test
  void mergingWithTheEmptyResultKeepsTheJobsLineLimit() {
    GrepWorkload w = new GrepWorkload();
    byte[] some = new LinesResult(4, 2, List.of("a", "b")).encode();
    LinesResult m = LinesResult.decode(w.merge(w.merge(w.empty(), some), some));
    assertEquals(8, m.count());
    assertEquals(2, m.limit());
    assertEquals(List.of("a", "b"), m.lines());
  }
}
