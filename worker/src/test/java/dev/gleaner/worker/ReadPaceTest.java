package dev.gleaner.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pace a worker tells the master while a chunk's input streams in: the bytes that came over a
 * quarter of a second and more, as they came; not what waited in the socket buffer, nor a wait for
 * the next stream.
 */
class ReadPaceTest {
  private static final long MS = 1_000_000;

  /** {@code n} reads of {@code size} bytes every {@code every} nanoseconds from {@code from}; the spans told. */
  private static List<long[]> reads(ReadPace pace, String job, long chunk, long size, long from, long every,
      int n) {
    List<long[]> spans = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long[] span = pace.read(job, chunk, size, from + i * every);
      if (span != null) {
        spans.add(span);
      }
    }
    return spans;
  }

  @Test
  void aSteadyStreamIsToldEveryQuarterSecondAtItsPace() {
    ReadPace pace = new ReadPace();
    // 64 kB every 10 ms (6.4 MB/s) for a second: the first read starts the span, its bytes came before it
    var spans = reads(pace, "j", 1, 64_000, 0, 10 * MS, 101);
    assertArrayEquals(new long[] {25 * 64_000, 250 * MS}, spans.get(0));
    assertArrayEquals(new long[] {25 * 64_000, 250 * MS}, spans.get(3));
    assertEquals(4, spans.size());
  }

  @Test
  void whatWaitedInTheSocketBufferAfterAPauseIsNotTakenForTheWire() {
    ReadPace pace = new ReadPace();
    reads(pace, "j", 1, 64_000, 0, 10 * MS, 10);
    pace.paused();
    // reading resumes: 2 MB that waited come in 32 reads microseconds apart, then the wire's pace again
    var spans = reads(pace, "j", 1, 64_000, 500 * MS, 10_000, 32);
    assertTrue(spans.isEmpty());
    long after = 500 * MS + 32 * 10_000;
    // the span starts at the first read that waited on the wire; its bytes came before it
    spans = reads(pace, "j", 1, 64_000, after + 10 * MS, 10 * MS, 26);
    assertArrayEquals(new long[] {25 * 64_000, 250 * MS}, spans.get(0));
  }

  @Test
  void aSliceOfTheReadThatStoppedReadingIsNotItsResumption() {
    ReadPace pace = new ReadPace();
    reads(pace, "j", 1, 64_000, 0, 10 * MS, 10);
    // one read at 100 ms ends chunk 1's frame: its first slice stops reading, its second (chunk 2's
    // first bytes) comes at the same instant
    pace.read("j", 1, 32_000, 100 * MS);
    pace.paused();
    assertNull(pace.read("j", 2, 32_000, 100 * MS));
    // reading resumes at 600 ms: 2 MB waited, read in one go, then the wire's pace
    assertTrue(reads(pace, "j", 2, 64_000, 600 * MS, 10_000, 32).isEmpty());
    long after = 600 * MS + 32 * 10_000;
    var spans = reads(pace, "j", 2, 64_000, after + 10 * MS, 10 * MS, 26);
    assertArrayEquals(new long[] {25 * 64_000, 250 * MS}, spans.get(0));
  }

  @Test
  void aWaitForTheNextStreamIsNotAPace() {
    ReadPace pace = new ReadPace();
    reads(pace, "j", 1, 64_000, 0, 10 * MS, 20);
    // nothing for two seconds (the master between streams), then the same chunk's input again
    assertNull(pace.read("j", 1, 64_000, 2_190 * MS));
    var spans = reads(pace, "j", 1, 64_000, 2_200 * MS, 10 * MS, 25);
    assertArrayEquals(new long[] {25 * 64_000, 250 * MS}, spans.get(0));
  }

  @Test
  void anotherChunksInputStartsItsOwnSpan() {
    ReadPace pace = new ReadPace();
    reads(pace, "j", 1, 64_000, 0, 10 * MS, 20);
    // chunk 2's input follows at once: its first read's bytes may have come with chunk 1's
    var spans = reads(pace, "j", 2, 32_000, 200 * MS, 10 * MS, 26);
    assertArrayEquals(new long[] {25 * 32_000, 250 * MS}, spans.get(0));
    assertEquals(1, spans.size());
  }

  @Test
  void readsThatNeverWaitTellNothing() {
    // a link as fast as memory (loopback): every read finds the next bytes already there
    ReadPace pace = new ReadPace();
    pace.paused();
    assertTrue(reads(pace, "j", 1, 64_000, 0, 100_000, 10_000).isEmpty());
  }
}
