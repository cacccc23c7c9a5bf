package dev.gleaner.master.net.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
 * What a transfer that shared the wire says of its link when it came in slower than the link was
 * known to go: a share of the egress, if the others on the wire could have taken what it lacked; else
 * a measure, so that a link estimated above its rate is corrected even though it never has the wire
 * to itself.
 */
class SendPortArrivalTest {
  private static final long MS = 1_000_000;

  @TempDir
  Path dir;

  @Test
  void aSlowTransferBesideAThinLinkMeasuresItsLinkWhenTheEgressHadRoomForBoth() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[400]);
    AtomicLong clock = new AtomicLong();
    EmbeddedChannel a = new EmbeddedChannel();
    EmbeddedChannel b = new EmbeddedChannel();
    EmbeddedChannel c = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      SendPort port = egressOf8(clock, b, input);
      // a's link believed at 8 MB/s, beside c's at 3, which leave a 5 of the egress
      port.enqueue(a, "j", 2, input, 100, 200, 1, 8e6, quiet);
      port.enqueue(c, "j", 3, input, 200, 300, 2, 3e6, quiet);
      a.runPendingTasks();
      c.runPendingTasks();
      clock.set(2_000 * MS);
      InputArrival share = port.arrived(a, "j", 2, 4_700_000, 1.0, 0);
      assertFalse(share.clean(), "4.7 MB/s, above 0.9 of what c leaves: maybe a share of the egress");
      assertFalse(share.own(), "a share shows no drop of the link");
      assertTrue(Double.isNaN(port.measured(a)));
      a.runPendingTasks();
      port.enqueue(a, "j", 4, input, 300, 400, 3, 8e6, quiet);
      a.runPendingTasks();
      clock.set(3_000 * MS);
      InputArrival slow = port.arrived(a, "j", 4, 4_000_000, 1.0, 0);
      assertTrue(slow.clean(), "4 MB/s, where the egress had room for 4.5 beside c: the link's own rate");
      assertTrue(slow.own(), "c was on the wire beside it, and left room for more: a drop of it shows");
      assertEquals(4e6, port.measured(a), 1);
    } finally {
      a.finishAndReleaseAll();
      b.finishAndReleaseAll();
      c.finishAndReleaseAll();
    }
  }

  /**
   * Streams that share the egress settle on an even share of it, a thin link taking no more than its
   * rate. A transfer well below what that left it was held by its own link, even where the others'
   * rates, all taken at once, leave the egress no room: beside links of 5 and 1 MB/s on an 8 MB/s
   * egress a link would get 3.5; at 2.5 MB/s it got less than the fatter link beside it, a measure and
   * a drop of its own; at 3.3 it may be a share.
   */
  @Test
  void aTransferBelowItsFairShareOfTheEgressIsItsLinksOwnRate() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[500]);
    AtomicLong clock = new AtomicLong();
    EmbeddedChannel a = new EmbeddedChannel();
    EmbeddedChannel b = new EmbeddedChannel();
    EmbeddedChannel c = new EmbeddedChannel();
    EmbeddedChannel d = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      SendPort port = egressOf8(clock, b, input);
      port.enqueue(a, "j", 2, input, 100, 200, 1, 8e6, quiet);
      port.enqueue(c, "j", 3, input, 200, 300, 2, 5e6, quiet);
      port.enqueue(d, "j", 4, input, 300, 400, 3, 1e6, quiet);
      for (EmbeddedChannel ch : new EmbeddedChannel[] {a, c, d}) {
        ch.runPendingTasks();
      }
      clock.set(2_000 * MS);
      InputArrival maybeShare = port.arrived(a, "j", 2, 3_300_000, 1.0, 0);
      assertFalse(maybeShare.clean() || maybeShare.own(), "3.3 MB/s, near its share of 3.5: maybe a share");
      a.runPendingTasks();
      port.enqueue(a, "j", 5, input, 400, 500, 4, 8e6, quiet);
      a.runPendingTasks();
      clock.set(3_000 * MS);
      InputArrival held = port.arrived(a, "j", 5, 2_500_000, 1.0, 0);
      assertTrue(held.clean() && held.own(), "2.5 MB/s, below 0.9 of its share of 3.5: its link's own rate");
      assertEquals(2.5e6, port.measured(a), 1);
    } finally {
      for (EmbeddedChannel ch : new EmbeddedChannel[] {a, b, c, d}) {
        ch.finishAndReleaseAll();
      }
    }
  }

  /**
   * Beside other links, a transfer its link, at the rate known, would carry in less than the shortest
   * time that measures it is no measure however long it took: what waited in front of it (the uplink's
   * queue behind a fatter link's stream) made most of its time. Alone on the wire it is one: nothing
   * queued in front of it, and a link known too high comes down by the transfers sized for it.
   */
  @Test
  void besideOthersATransferTooSmallForItsLinkIsNoMeasure() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[400]);
    AtomicLong clock = new AtomicLong();
    EmbeddedChannel a = new EmbeddedChannel();
    EmbeddedChannel b = new EmbeddedChannel();
    EmbeddedChannel c = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      SendPort port = egressOf8(clock, b, input);
      // a's link known at 8 MB/s beside c's at 3: 200 kB would take it 25 ms; it took 70, below what c left
      port.enqueue(a, "j", 2, input, 100, 200, 1, 8e6, quiet);
      port.enqueue(c, "j", 3, input, 200, 300, 2, 3e6, quiet);
      a.runPendingTasks();
      c.runPendingTasks();
      clock.set(1_070 * MS);
      InputArrival small = port.arrived(a, "j", 2, 200_000, 0.07, 0);
      assertFalse(small.clean(), "200 kB in 70 ms beside c: the queue in front of it, not the link");
      assertTrue(Double.isNaN(port.measured(a)));
    } finally {
      a.finishAndReleaseAll();
      b.finishAndReleaseAll();
      c.finishAndReleaseAll();
    }
    clock.set(0);
    SendPort alone = new SendPort(1, clock::get);
    EmbeddedChannel d = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      // d's link known at 8 MB/s, alone on the wire: 127 kB in 70 ms is what the link does now
      alone.enqueue(d, "j", 4, input, 300, 400, 0, 8e6, (bytes, seconds) -> { });
      settle(d);
      clock.set(70 * MS);
      assertTrue(alone.arrived(d, "j", 4, 127_000, 0.07, 0).clean(), "alone on the wire: the link");
      assertEquals(127_000 / 0.07, alone.measured(d), 1);
    } finally {
      d.finishAndReleaseAll();
    }
  }

  /**
   * A worker's streams follow each other on its connection. One that was on its way when another of
   * the connection's came slower than the link (the worker read slowly) found its first bytes waiting
   * in the worker's buffer: timed from its first byte read it looks faster than the link, and is no
   * measure, unless it still came slower than the link is known to do (the wait cannot have caused
   * that). One started after the slow one arrived is a measure.
   */
  @Test
  void aTransferQueuedBehindASlowOneIsNoMeasureUnlessSlowerStill() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[500]);
    AtomicLong clock = new AtomicLong();
    SendPort port = new SendPort(Sends.SHARE, clock::get);
    EmbeddedChannel a = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      for (int chunk = 1; chunk <= 4; chunk++) {
        port.enqueue(a, "j", chunk, input, 100L * (chunk - 1), 100L * chunk, 0, 8e6, quiet);
      }
      settle(a);
      clock.set(1_000 * MS);
      assertTrue(port.arrived(a, "j", 1, 8_000_000, 1.0, 0).clean(), "8 MB/s alone: the link");
      settle(a);
      clock.set(2_000 * MS);
      // half the link: the worker read slowly (alone on the wire, a measure of what its link does now)
      assertTrue(port.arrived(a, "j", 2, 4_000_000, 1.0, 0).clean());
      settle(a);
      clock.set(2_200 * MS);
      assertFalse(port.arrived(a, "j", 3, 2_000_000, 0.2, 0).clean(),
          "10 MB/s behind the slow one: its first bytes waited in the worker's buffer");
      assertEquals(4e6, port.measured(a), 1);
      settle(a);
      clock.set(3_200 * MS);
      assertTrue(port.arrived(a, "j", 4, 3_000_000, 1.0, 0).clean(),
          "on its way then too, but slower than the link's 4 MB/s: no wait made it so");
      assertEquals(3e6, port.measured(a), 1);
      settle(a);
      port.enqueue(a, "j", 5, input, 400, 500, 0, 3e6, quiet);
      settle(a);
      clock.set(4_200 * MS);
      assertTrue(port.arrived(a, "j", 5, 7_900_000, 1.0, 0).clean(), "started once the slow ones had arrived");
      assertEquals(7.9e6, port.measured(a), 1);
    } finally {
      a.finishAndReleaseAll();
    }
  }

  /**
   * One port, two workers: the second stream waits for the first one's word. Each stream's handover
   * is what it held the port beyond its bytes' own time: its span at the port less its worker's (the
   * first bytes' way and the word's way back), and for the second, the port's turn from the first one's
   * word to its start. A worker that read late says nothing of it.
   */
  @Test
  void eachStreamTellsHowLongItHeldThePortBeyondItsBytes() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[300]);
    AtomicLong clock = new AtomicLong();
    SendPort port = new SendPort(1, clock::get);
    java.util.List<Double> told = new java.util.ArrayList<>();
    port.onHandover(told::add);
    EmbeddedChannel a = new EmbeddedChannel();
    EmbeddedChannel b = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      port.enqueue(a, "j", 1, input, 0, 100, 0, 8e6, quiet);
      port.enqueue(b, "j", 2, input, 100, 200, 1, 8e6, quiet);
      settle(a);
      settle(b);
      clock.set(1_000 * MS);
      port.arrived(a, "j", 1, 7_920_000, 0.990, 0);
      assertEquals(1, told.size());
      assertEquals(0.010, told.get(0), 1e-9, "started on a free port: the word's way back and the first bytes'");
      clock.set(1_003 * MS);
      settle(a);
      settle(b);
      clock.set(2_000 * MS);
      port.arrived(b, "j", 2, 7_920_000, 0.990, 0);
      assertEquals(2, told.size());
      assertEquals(0.003 + 0.007, told.get(1), 1e-9, "3 ms from a's word to its start, then 7 ms beyond its bytes");
      settle(b);
      port.enqueue(a, "j", 3, input, 200, 300, 2, 8e6, quiet);
      settle(a);
      clock.set(3_000 * MS);
      port.arrived(a, "j", 3, 4_000_000, 0.5, 0);
      assertEquals(2, told.size(), "a worker that read the first bytes late: its span is no round trip's measure");
    } finally {
      a.finishAndReleaseAll();
      b.finishAndReleaseAll();
    }
  }

  /**
   * A port whose egress is known to be at least 8 MB/s, at 1 s of {@code clock}: b's chunk 1 went
   * through it alone, over a link known at 8 MB/s.
   */
  private static SendPort egressOf8(AtomicLong clock, EmbeddedChannel b, FileInputSource input) {
    SendPort port = new SendPort(Sends.SHARE, clock::get);
    port.enqueue(b, "j", 1, input, 0, 100, 0, 8e6, (bytes, seconds) -> { });
    b.runPendingTasks();
    clock.set(1_000 * MS);
    port.arrived(b, "j", 1, 100, 0.01, 0);
    b.runPendingTasks();
    assertEquals(8e6, port.egress(), 1, "an 8 MB/s link went through: the egress is at least that");
    return port;
  }

  private static void settle(EmbeddedChannel channel) {
    for (int i = 0; i < 3; i++) {
      channel.runPendingTasks();
    }
  }
}
