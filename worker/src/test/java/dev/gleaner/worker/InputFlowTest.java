package dev.gleaner.worker;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.workload.Workloads;
import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Piece;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class InputFlowTest {
  private static final long MIB = 1024 * 1024;

  @Test
  void readingStopsWhenAChunkHasMoreThanTheHighWaterAndGoesOnBelowTheLow() {
    AtomicBoolean on = new AtomicBoolean(true);
    InputFlow flow = new InputFlow(on::set, 64 * MIB);
    flow.arrived(10 * MIB, 10 * MIB);
    flow.arrived(10 * MIB, 10 * MIB);
    assertTrue(on.get(), "two chunks of 10 MiB each: neither past the mark");
    flow.arrived(6 * MIB + 1, 16 * MIB + 1);
    assertFalse(on.get());
    flow.consumed(8 * MIB, 8 * MIB + 1);
    assertFalse(on.get(), "the chunk computed still has more than the low-water mark waiting");
    flow.consumed(4 * MIB + 2, 4 * MIB - 1);
    assertTrue(on.get());
    assertEquals(14 * MIB - 1, flow.buffered());
  }

  @Test
  void whileTheCurrentChunkStarvesReadingGoesOnUpToTheHardLimit() {
    AtomicBoolean on = new AtomicBoolean(true);
    InputFlow flow = new InputFlow(on::set, 64 * MIB);
    flow.arrived(20 * MIB, 20 * MIB);
    assertFalse(on.get());
    flow.starving();
    assertTrue(on.get(), "a chunk waiting for its own bytes turns reading on again");
    flow.arrived(40 * MIB, 60 * MIB);
    assertTrue(on.get(), "a later chunk's input may pile up while it starves");
    flow.arrived(5 * MIB, 65 * MIB);
    assertFalse(on.get(), "but not past the hard limit");
    flow.starving();
    assertFalse(on.get(), "past the hard limit a second starved chunk does not turn it on");
    flow.consumed(MIB / 2, 0);
    assertFalse(on.get(), "nor a chunk computed while the connection holds more than the limit");
    flow.fed();
    flow.fed();
    flow.consumed(61 * MIB, 3 * MIB);
    assertTrue(on.get());
    flow.arrived(20 * MIB, 20 * MIB);
    assertFalse(on.get(), "once fed, the high-water mark holds again");
  }

  /**
   * The stall a relay could cause: the chunk being computed gets its input from the master, slowly,
   * and a later chunk's comes from the relay, fast. Its 20 MiB come first on the connection; the
   * current chunk's last bytes are behind them, and must still arrive.
   */
  @Test
  void aLaterChunksInputDoesNotKeepTheCurrentOnesFromArriving() {
    AtomicBoolean on = new AtomicBoolean(true);
    InputFlow flow = new InputFlow(on::set, 256 * MIB);
    byte[] first = lines(1024);
    byte[] second = lines((int) (20 * MIB));
    ChunkRunnerTest.RecordingReporter r = new ChunkRunnerTest.RecordingReporter();
    try (ChunkRunner runner = new ChunkRunner(Workloads.of(), 1, 1, 0, Map.of())) {
      runner.assign(wc(1, 0, first.length), flow, r);
      runner.assign(wc(2, first.length, first.length + second.length), flow, r);
      List<Runnable> frames = new ArrayList<>();
      frames.add(() -> runner.data("j", 1, Unpooled.wrappedBuffer(first, 0, 512), System.nanoTime()));
      for (int at = 0; at < second.length; at += 64 * 1024) {
        int from = at;
        frames.add(() -> runner.data("j", 2, Unpooled.wrappedBuffer(second, from,
            Math.min(64 * 1024, second.length - from)), System.nanoTime()));
      }
      frames.add(() -> runner.data("j", 1, Unpooled.wrappedBuffer(first, 512, first.length - 512), System.nanoTime()));
      for (Runnable frame : frames) {
        // the connection delivers a frame only while the worker reads it
        if (!on.get()) {
          await().atMost(Duration.ofSeconds(20)).untilTrue(on);
        }
        frame.run();
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> r.pieces.size() == 2);
    }
    assertEquals(List.of(), r.failures);
    assertEquals(1024 / 8, lineCount(r.pieces.get(0)));
    assertEquals(20 * MIB / 8, lineCount(r.pieces.get(1)));
    assertEquals(0, flow.buffered());
  }

  private static Assign wc(long chunk, long start, long end) {
    return Assign.newBuilder().setJobId("j").setChunkId(chunk).setWorkload("wc").putParams("file", "x")
        .setStart(start).setEnd(end).setDataBytes(end - start).build();
  }

  /** Lines of 8 bytes each. */
  private static byte[] lines(int bytes) {
    byte[] b = new byte[bytes];
    Arrays.fill(b, (byte) 'x');
    for (int i = 7; i < bytes; i += 8) {
      b[i] = '\n';
    }
    return b;
  }

  private static long lineCount(Piece p) {
    return ByteBuffer.wrap(p.getResult().toByteArray()).getLong();
  }
}
