package dev.gleaner.master.net.port;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.port.Sends;
import dev.gleaner.master.loop.FileInputSource;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The port's order between workers: a worker's next stream does not follow its last one onto the wire
 * ahead of a better-ranked stream of another worker; under one port it waits, like every other stream,
 * for the wire to be free (its worker's word that the input before it arrived), then goes by the order.
 */
class SendPortOrderTest {
  @TempDir
  Path dir;

  /** Streams that went onto the channel: a header and a slice each. */
  private static int streams(EmbeddedChannel c) {
    c.runPendingTasks();
    return c.outboundMessages().size() / 2;
  }

  private static void settle(EmbeddedChannel... channels) {
    for (int i = 0; i < 3; i++) {
      for (EmbeddedChannel c : channels) {
        c.runPendingTasks();
      }
    }
  }

  @Test
  void underOnePortAWorkersNextStreamWaitsItsTurnByTheOrder() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[300]);
    SendPort port = new SendPort(1);
    EmbeddedChannel a = new EmbeddedChannel();
    EmbeddedChannel b = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      port.enqueue(a, "j", 1, input, 0, 100, 0, Double.NaN, quiet);
      port.enqueue(a, "j", 2, input, 100, 200, 5, Double.NaN, quiet);
      settle(a, b);
      // a's first chunk is all written; its bytes are on their way until a says they arrived
      assertEquals(1, streams(a), "a's first stream went, its second waits for the wire");
      port.enqueue(b, "j", 3, input, 200, 300, 1, Double.NaN, quiet);
      settle(a, b);
      assertEquals(0, streams(b), "one port: b waits while a's bytes are on the wire");
      port.arrived(a, "j", 1, 100, 0.01, 0);
      settle(a, b);
      assertEquals(1, streams(b), "the wire is free: b's stream, of the better rank, goes first");
      assertEquals(1, streams(a), "a's second stream waits behind it");
      port.arrived(b, "j", 3, 100, 0.01, 0);
      settle(a, b);
      assertEquals(2, streams(a), "then a's second stream");
    } finally {
      a.finishAndReleaseAll();
      b.finishAndReleaseAll();
    }
  }

  /**
   * A probe chunk a worker held from before the plan has no place in the plan's order: it goes before
   * the plan's ranked streams, since the worker's own planned streams wait behind it (served last, it
   * kept its worker idle for most of a job).
   */
  @Test
  void aStreamWithNoPlaceInThePlanGoesBeforeTheRankedOnes() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[400]);
    SendPort port = new SendPort(1);
    EmbeddedChannel a = new EmbeddedChannel();
    EmbeddedChannel b = new EmbeddedChannel();
    EmbeddedChannel c = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      port.enqueue(a, "j", 1, input, 0, 100, 0, 9.6e6, quiet);
      settle(a, b, c);
      assertEquals(1, streams(a));
      port.enqueue(b, "j", 2, input, 100, 200, 1, 4.8e6, quiet);
      port.enqueue(c, "j", 3, input, 200, 300, Integer.MAX_VALUE, 2.4e6, quiet);
      port.arrived(a, "j", 1, 100, 0.01, 0);
      settle(a, b, c);
      assertEquals(1, streams(c), "the probe chunk held ahead goes first");
      assertEquals(0, streams(b), "the plan's rank 1 waits behind it");
    } finally {
      a.finishAndReleaseAll();
      b.finishAndReleaseAll();
      c.finishAndReleaseAll();
    }
  }

  /**
   * The streams of one batch of decisions are weighed together: under one port the best-ranked goes
   * first, whichever worker's was queued first (the order workers waited in decided it before, and
   * a DISTRIB job whose fastest link went second ended up to 6% later).
   */
  @Test
  void underOnePortTheBestRankedOfABatchGoesFirstWhateverWasQueuedFirst() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[300]);
    SendPort port = new SendPort(1);
    EmbeddedChannel a = new EmbeddedChannel();
    EmbeddedChannel b = new EmbeddedChannel();
    EmbeddedChannel c = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      port.begin();
      port.enqueue(c, "j", 1, input, 0, 100, 2, 2.4e6, quiet);
      port.enqueue(a, "j", 2, input, 100, 200, 0, 9.6e6, quiet);
      port.enqueue(b, "j", 3, input, 200, 300, 1, 4.8e6, quiet);
      settle(a, b, c);
      assertEquals(0, streams(a) + streams(b) + streams(c), "nothing starts while the batch is queued");
      port.end();
      settle(a, b, c);
      assertEquals(1, streams(a), "rank 0 goes first");
      assertEquals(0, streams(b) + streams(c), "the others wait for the wire");
      port.arrived(a, "j", 2, 100, 0.01, 0);
      settle(a, b, c);
      assertEquals(1, streams(b), "then rank 1");
      assertEquals(0, streams(c));
    } finally {
      a.finishAndReleaseAll();
      b.finishAndReleaseAll();
      c.finishAndReleaseAll();
    }
  }

  /**
   * A worker's span far shorter than the port's own time is taken for a late read: the worker's pace
   * after its first read is used if it could tell one (never longer than the port's time), else the
   * port's time.
   */
  @Test
  void aLateReadIsTakenAtTheWorkersPaceWhenItToldOneElseAtThePortsTime() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[200]);
    SendPort port = new SendPort(Sends.SHARE);
    EmbeddedChannel a = new EmbeddedChannel();
    EmbeddedChannel b = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      port.enqueue(a, "j", 1, input, 0, 100, 0, Double.NaN, quiet);
      port.enqueue(b, "j", 2, input, 100, 200, 1, Double.NaN, quiet);
      settle(a, b);
      double unpaced = port.arrived(a, "j", 1, 100, 1e-12, 0).seconds();
      double paced = port.arrived(b, "j", 2, 100, 1e-12, 2e-12).seconds();
      assertTrue(unpaced > 1e-9, "the port's time, from its first byte sent: " + unpaced);
      assertEquals(2e-12, paced, 0);
    } finally {
      a.finishAndReleaseAll();
      b.finishAndReleaseAll();
    }
  }

  @Test
  void whenTheEgressIsSharedAWorkersStreamsFollowEachOtherWithoutAPause() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[200]);
    SendPort port = new SendPort(Sends.SHARE);
    EmbeddedChannel a = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      port.enqueue(a, "j", 1, input, 0, 100, 0, Double.NaN, quiet);
      port.enqueue(a, "j", 2, input, 100, 200, 0, Double.NaN, quiet);
      settle(a);
      // the connection never idles between them: the second is queued behind the first at once
      assertEquals(2, streams(a));
    } finally {
      a.finishAndReleaseAll();
    }
  }

  /**
   * Under one port every transfer goes alone and a short one is too quick to floor the egress by its
   * arrival: the egress the master reports is floored by the links it knows, so it reads at the
   * fastest link, not at what the one long transfer showed.
   */
  @Test
  void underOnePortTheEgressReadsAtTheFastestLinkKnown() throws Exception {
    Path file = dir.resolve("input");
    Files.write(file, new byte[300]);
    SendPort port = new SendPort(1);
    EmbeddedChannel a = new EmbeddedChannel();
    EmbeddedChannel b = new EmbeddedChannel();
    try (FileInputSource input = new FileInputSource(file)) {
      SendPort.Listener quiet = (bytes, seconds) -> { };
      port.enqueue(a, "j", 1, input, 0, 100, 0, 9.6e6, quiet);
      settle(a, b);
      port.arrived(a, "j", 1, 100, 0.01, 0);
      port.enqueue(b, "j", 2, input, 100, 300, 1, 2.4e6, quiet);
      settle(a, b);
      port.arrived(b, "j", 2, 200, 0.01, 0);
      assertEquals(9.6e6, port.egress(), 1e-6);
    } finally {
      a.finishAndReleaseAll();
      b.finishAndReleaseAll();
    }
  }
}
