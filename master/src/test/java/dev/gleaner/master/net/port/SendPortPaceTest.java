package dev.gleaner.master.net.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.port.Sends;
import dev.gleaner.master.loop.FileInputSource;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker's word of its pace while its input streams in: three in a row far below its link, each a
 * measure of the link (nothing else on the wire explains it), show the link was cut, before the
 * transfer ends. Beside other links a slow pace may be a share of the egress. The port's windows
 * run on a's event loop, whose tasks run once only, right after the streams are asked for: the
 * egress is what arrivals tell.
 */
class SendPortPaceTest {
  private static final long MS = 1_000_000;

  @TempDir
  Path dir;

  /** A pace of a's chunk 1 at {@code bytesPerSecond} over the quarter second up to {@code atMillis}. */
  private static LinkCut pace(SendPort port, AtomicLong clock, EmbeddedChannel a, long atMillis, double bytesPerSecond) {
    clock.set(atMillis * MS);
    return port.paced(a, "j", 1, (long) (bytesPerSecond / 4), 0.25);
  }

  @Test
  void threeSlowPacesInARowAloneOnTheWireAreACut() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[200]);
    AtomicLong clock = new AtomicLong();
    SendPort port = new SendPort(Sends.SHARE, clock::get);
    EmbeddedChannel a = new EmbeddedChannel();
    EmbeddedChannel b = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      port.enqueue(a, "j", 1, input, 0, 100, 0, 8e6, quiet);
      port.enqueue(b, "j", 2, input, 100, 200, 1, 8e6, quiet);
      a.runPendingTasks();
      b.runPendingTasks();
      // beside b, the egress not known yet: each may be a share of it
      for (long t = 500; t <= 1_000; t += 250) {
        assertNull(pace(port, clock, a, t, 1e6));
      }
      port.arrived(b, "j", 2, 100, 0.01, 0);
      b.runPendingTasks();
      // the egress at least 8 MB/s: beside b's 8 a fair share is 4, and 1 MB/s would be a's own
      assertNull(pace(port, clock, a, 1_100, 3.7e6), "b was on the wire for part of it: maybe a share");
      assertNull(pace(port, clock, a, 1_350, 1e6));
      assertNull(pace(port, clock, a, 1_600, 1e6));
      assertNull(pace(port, clock, a, 1_850, 8e6), "the link did 8 MB/s: the run ends");
      assertNull(pace(port, clock, a, 2_100, 0.96e6));
      assertNull(pace(port, clock, a, 2_350, 1.04e6));
      assertTrue(Double.isNaN(port.measured(a)), "two are not a cut yet");
      assertNull(port.paced(b, "j", 2, 250_000, 0.25), "b's stream has arrived");
      assertNull(port.paced(b, "j", 1, 250_000, 0.25), "chunk 1 is not b's");
      LinkCut cut = pace(port, clock, a, 2_600, 1e6);
      assertNotNull(cut, "the third in a row");
      assertEquals(1e6, cut.bytesPerSecond(), 1, "their median");
      assertEquals(0.75, cut.seconds(), 1e-9);
      assertEquals(1e6, port.measured(a), 1, "the port's rule takes the link at its new rate");
      // the transfer that crossed the cut ends: its rate mixes the link before and after, no measure
      clock.set(2_800 * MS);
      assertFalse(port.arrived(a, "j", 1, 3_000_000, 2.8, 0).clean());
      assertEquals(1e6, port.measured(a), 1);
    } finally {
      a.finishAndReleaseAll();
      b.finishAndReleaseAll();
    }
  }

  /**
   * A cut link beside a thin one, the egress with room for both at their links' rates: its slow pace
   * is not a share of the egress, and counts. One slow enough to be a share (above what the other
   * would leave of the egress) neither counts nor ends the run.
   */
  @Test
  void besideAThinLinkASlowPaceCountsWhenTheEgressHadRoomForBoth() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[300]);
    AtomicLong clock = new AtomicLong();
    SendPort port = new SendPort(Sends.SHARE, clock::get);
    EmbeddedChannel a = new EmbeddedChannel();
    EmbeddedChannel b = new EmbeddedChannel();
    EmbeddedChannel c = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      port.enqueue(a, "j", 1, input, 0, 100, 0, 8e6, quiet);
      port.enqueue(b, "j", 2, input, 100, 200, 1, 8e6, quiet);
      a.runPendingTasks();
      b.runPendingTasks();
      clock.set(1_000 * MS);
      port.arrived(b, "j", 2, 100, 0.01, 0);
      b.runPendingTasks();
      assertEquals(8e6, port.egress(), 1, "an 8 MB/s link went through: the egress is at least that");
      port.enqueue(c, "j", 3, input, 200, 300, 2, 3e6, quiet);
      c.runPendingTasks();
      // c's 3 MB/s leave 5 of the egress: below 4.5 MB/s a's pace is its link's
      assertNull(pace(port, clock, a, 1_300, 1e6));
      assertNull(pace(port, clock, a, 1_550, 4.7e6), "maybe a share: not counted, and the run goes on");
      assertNull(pace(port, clock, a, 1_800, 1e6));
      LinkCut cut = pace(port, clock, a, 2_050, 1e6);
      assertNotNull(cut, "three of a's own in a row");
      assertEquals(1e6, cut.bytesPerSecond(), 1);
    } finally {
      a.finishAndReleaseAll();
      b.finishAndReleaseAll();
      c.finishAndReleaseAll();
    }
  }
}
