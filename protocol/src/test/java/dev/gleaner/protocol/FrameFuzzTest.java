package dev.gleaner.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Random and mutated frames against the real decoder, as a hostile peer would send them: whatever
 * arrives, the decoder either yields messages or fails with a {@link WireException} the handler turns
 * into an Error, never anything else; it buffers no frame over its limit; and every buffer it was
 * given or gave out is released.
 *
 * <p>{@code mvn verify} feeds 200,000 inputs (one to three frames each); more with {@code -Dgleaner.fuzz.frames=N}, as in
 * {@code mvn -o test -pl protocol -Dtest=FrameFuzzTest -Dgleaner.fuzz.frames=1000000}. The figures
 * (inputs, frames, messages, refusals, seconds) go to this test's output file in {@code target/surefire-reports}.
 */
class FrameFuzzTest {
  private static final int LIMIT = 64 * 1024;
  /** Fuzzed inputs (each of one to three frames); the README's figures come from a run with 10^6. */
  private static final int FRAMES = Integer.getInteger("gleaner.fuzz.frames", 200_000);

  /** Valid frames of every shape a peer sends, to mutate. */
  private static List<byte[]> seeds() {
    Envelope piece = Envelope.newBuilder().setPiece(Piece.newBuilder().setJobId("job-1").setChunkId(7).setStart(100)
        .setEnd(200).setResult(ByteString.copyFrom(new byte[8])).setFinal(true).setComputeNanos(123)).build();
    Envelope data = Envelope.newBuilder().setData(Data.newBuilder().setJobId("job-1").setChunkId(3)
        .setPayload(ByteString.copyFrom(new byte[300])).setLast(true)).build();
    Envelope assign = Envelope.newBuilder().setAssign(Assign.newBuilder().setJobId("job-1").setChunkId(9)
        .setWorkload("grep").putParams("pattern", "GATTACA").setStart(0).setEnd(1 << 20).addCheckpoints(1 << 19))
        .build();
    // the master's layout, payload last, which a slicing decoder streams part by part
    ByteBuf header = DataFrames.header(io.netty.buffer.ByteBufAllocator.DEFAULT, "job-1", 3, true, 300);
    byte[] streamed = new byte[header.readableBytes() - 4 + 300];
    header.getBytes(4, streamed, 0, header.readableBytes() - 4);
    header.release();
    return List.of(Messages.hello(Role.WORKER, "w1", "host", 4, List.of("primes", "grep")).toByteArray(),
        piece.toByteArray(), data.toByteArray(), streamed, assign.toByteArray(), Messages.heartbeat(5, 6).toByteArray(),
        Messages.error(Error.Code.BAD_FRAME, "x").toByteArray());
  }

  @Test
  void nothingAPeerSendsBreaksTheDecoder() {
    SplittableRandom r = new SplittableRandom(2026);
    List<byte[]> seeds = seeds();
    long t0 = System.nanoTime();
    int messages = 0;
    int refused = 0;
    long sent = 0;
    for (int i = 0; i < FRAMES; i++) {
      ByteBuf wire = Unpooled.buffer();
      int frames = r.nextInt(1, 4);
      sent += frames;
      for (int f = 0; f < frames; f++) {
        byte[] body = FrameMutator.mutate(r, seeds.get(r.nextInt(seeds.size())));
        int length = r.nextInt(20) == 0 ? r.nextInt() : body.length;
        wire.writeInt(length).writeBytes(body);
      }
      EmbeddedChannel ch = new EmbeddedChannel(new FrameDecoder(LIMIT, r.nextBoolean()));
      try {
        // in random segments, as TCP may deliver them
        while (wire.isReadable()) {
          ch.writeInbound(wire.readRetainedSlice(Math.min(wire.readableBytes(), r.nextInt(1, 400))));
        }
      } catch (WireException expected) {
        refused++;
      } catch (RuntimeException e) {
        fail("frame " + i + ": the decoder failed with " + e + " instead of a WireException", e);
      }
      for (Object m; (m = ch.readInbound()) != null; ) {
        messages++;
        if (m instanceof DataFrame d) {
          assertTrue(d.payload().readableBytes() <= LIMIT);
          d.release();
        } else {
          assertTrue(m instanceof Envelope, m.getClass().toString());
        }
      }
      ch.finishAndReleaseAll();
      wire.release();
      assertEquals(0, wire.refCnt(), "frame " + i + ": the input was not released");
    }
    System.out.printf(java.util.Locale.ROOT, "FrameFuzzTest: %d inputs of %d frames, %d messages decoded, %d refusals, %.1f s%n",
        FRAMES, sent, messages, refused, (System.nanoTime() - t0) / 1e9);
    assertTrue(messages > FRAMES / 10 && refused > FRAMES / 10,
        "the corpus reaches both sides: " + messages + " messages, " + refused + " refusals");
  }
}
