package dev.gleaner.worker.relay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Cancel;
import dev.gleaner.protocol.Data;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Fill;
import dev.gleaner.protocol.Heartbeat;
import dev.gleaner.protocol.Truncate;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay's side of input held at a relay: the frames going down to a worker pass whole and in
 * order, whatever the reads' boundaries; a Fill naming this relay becomes the Data frames the master
 * would have sent, from the relay's copy; a Truncate stops it at the new end, a Cancel drops it;
 * a Fill for another relay, or for a file it does not hold, is not answered.
 */
class FillerTest {
  @TempDir
  Path dir;

  private byte[] file;
  private EmbeddedChannel below;
  private Filler filler;

  private HeldInput held;

  private void setUp(int bytes) throws Exception {
    file = new byte[bytes];
    new Random(7).nextBytes(file);
    Files.createDirectories(dir.resolve("in"));
    Files.write(dir.resolve("in/data.bin"), file);
    held = HeldInput.read(dir.resolve("in"));
    // as the relay's pipe: the fill under way goes on when the worker's connection drains
    below = new EmbeddedChannel(new io.netty.channel.ChannelInboundHandlerAdapter() {
      @Override
      public void channelWritabilityChanged(io.netty.channel.ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
          filler.pump();
        }
      }
    });
    filler = new Filler("r1", held, below, 1 << 20);
  }

  private static byte[] frame(Envelope e) {
    byte[] body = e.toByteArray();
    ByteBuf b = Unpooled.buffer(4 + body.length).writeInt(body.length).writeBytes(body);
    byte[] out = new byte[b.readableBytes()];
    b.readBytes(out);
    return out;
  }

  private static Envelope fill(String relay, String name, long chunk, long from, long to) {
    return Envelope.newBuilder().setFill(Fill.newBuilder().setRelayId(relay).setJobId("j").setChunkId(chunk)
        .setName(name).setFrom(from).setTo(to)).build();
  }

  private static Envelope assign(long chunk) {
    return Envelope.newBuilder().setAssign(Assign.newBuilder().setJobId("j").setChunkId(chunk)).build();
  }

  private static Envelope heartbeat(long seq) {
    return Envelope.newBuilder().setHeartbeat(Heartbeat.newBuilder().setSeq(seq)).build();
  }

  /** Feeds the frames from above, cut at random places. */
  private void feed(Random random, Envelope... frames) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    for (Envelope e : frames) {
      all.writeBytes(frame(e));
    }
    byte[] bytes = all.toByteArray();
    for (int at = 0; at < bytes.length; ) {
      int n = Math.min(bytes.length - at, 1 + random.nextInt(40));
      assertTrue(filler.read(Unpooled.copiedBuffer(bytes, at, n)));
      at += n;
    }
  }

  /** What went down to the worker, frame by frame. */
  private List<Envelope> sent() throws Exception {
    // the pipe flushes after each read from above
    below.flush();
    below.runPendingTasks();
    ByteBuf all = Unpooled.buffer();
    for (Object o = below.readOutbound(); o != null; o = below.readOutbound()) {
      ByteBuf b = (ByteBuf) o;
      all.writeBytes(b);
      b.release();
    }
    List<Envelope> out = new ArrayList<>();
    while (all.isReadable()) {
      int n = all.readInt();
      byte[] body = new byte[n];
      all.readBytes(body);
      out.add(Envelope.parseFrom(body));
    }
    return out;
  }

  private byte[] data(List<Envelope> frames, long chunk) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Envelope e : frames) {
      if (e.hasData() && e.getData().getChunkId() == chunk) {
        out.writeBytes(e.getData().getPayload().toByteArray());
      }
    }
    return out.toByteArray();
  }

  @Test
  void aFillBecomesTheMastersDataFramesAndEverythingElsePassesInOrder() throws Exception {
    setUp(300_000);
    for (int seed = 0; seed < 20; seed++) {
      feed(new Random(seed), assign(1), fill("r1", "data.bin", 1, 1000, 200_000), heartbeat(seed));
      List<Envelope> frames = sent();
      assertEquals(Envelope.BodyCase.ASSIGN, frames.get(0).getBodyCase());
      assertArrayEquals(java.util.Arrays.copyOfRange(file, 1000, 200_000), data(frames, 1));
      List<Data> datas = frames.stream().filter(Envelope::hasData).map(Envelope::getData).toList();
      assertTrue(datas.get(datas.size() - 1).getLast());
      assertEquals(1, datas.stream().filter(Data::getLast).count());
      assertEquals(1, frames.stream().filter(Envelope::hasHeartbeat).count());
      assertFalse(frames.stream().anyMatch(Envelope::hasFill), "the Fill itself does not go down");
    }
  }

  @Test
  void aTruncateStopsTheFillAtTheNewEndAndACancelDropsIt() throws Exception {
    setUp(1_000_000);
    // the worker takes nothing: the fills wait, then a truncation and a cancel come from above
    below.config().setWriteBufferWaterMark(new io.netty.channel.WriteBufferWaterMark(1, 2));
    boolean[] held = {true};
    below.pipeline().addFirst(new io.netty.channel.ChannelOutboundHandlerAdapter() {
      @Override
      public void flush(io.netty.channel.ChannelHandlerContext ctx) {
        if (!held[0]) {
          ctx.flush();
        }
      }
    });
    Random random = new Random(1);
    feed(random, assign(1), fill("r1", "data.bin", 1, 0, 500_000), assign(2), fill("r1", "data.bin", 2, 500_000,
        1_000_000));
    feed(random, Envelope.newBuilder().setTruncate(Truncate.newBuilder().setJobId("j").setChunkId(1)
        .setEnd(100_000)).build(), Envelope.newBuilder().setCancel(Cancel.newBuilder().setJobId("j").setChunkId(2))
        .build());
    assertFalse(below.isWritable(), "the worker took nothing yet");
    held[0] = false;
    below.flush();
    assertTrue(below.isWritable());
    filler.pump();
    List<Envelope> frames = sent();
    assertArrayEquals(java.util.Arrays.copyOfRange(file, 0, 100_000), data(frames, 1));
    assertEquals(0, data(frames, 2).length, "the cancelled chunk's input is not sent");
    assertEquals(List.of(Envelope.BodyCase.ASSIGN, Envelope.BodyCase.ASSIGN, Envelope.BodyCase.TRUNCATE,
        Envelope.BodyCase.CANCEL), frames.stream().map(Envelope::getBodyCase)
        .filter(k -> k != Envelope.BodyCase.DATA).toList(), "the master's frames pass, in order");
  }

  @Test
  void aFillForAnotherRelayPassesOnAndOneForAFileNotHeldBreaksTheConnection() throws Exception {
    setUp(10_000);
    feed(new Random(3), fill("r2", "data.bin", 1, 0, 10_000));
    List<Envelope> frames = sent();
    assertEquals(1, frames.size());
    assertTrue(frames.get(0).hasFill(), "a relay nearer the worker answers it");
    byte[] bad = frame(fill("r1", "../secret", 1, 0, 10));
    assertFalse(filler.read(Unpooled.wrappedBuffer(bad)));
    byte[] past = frame(fill("r1", "data.bin", 1, 0, 10_001));
    assertFalse(filler.read(Unpooled.wrappedBuffer(past)), "past the file's end");
  }

  /** The master's Data frames (up to 4 MiB) come in many reads: each passes whole, copied once. */
  @Test
  void aLargeFrameInManyReadsPassesWholeAndIsCopiedOnce() throws Exception {
    setUp(10);
    int[] allocations = {0};
    below.config().setAllocator(new io.netty.buffer.AbstractByteBufAllocator(false) {
      @Override
      protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        allocations[0]++;
        return Unpooled.buffer(initialCapacity, maxCapacity);
      }

      @Override
      protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        allocations[0]++;
        return Unpooled.directBuffer(initialCapacity, maxCapacity);
      }

      @Override
      public boolean isDirectBufferPooled() {
        return false;
      }
    });
    byte[] payload = new byte[600_000];
    new Random(3).nextBytes(payload);
    Envelope data = Envelope.newBuilder().setData(Data.newBuilder().setJobId("j").setChunkId(4)
        .setPayload(com.google.protobuf.ByteString.copyFrom(payload))).build();
    byte[] bytes = frame(data);
    Random random = new Random(11);
    // a frame's first 3 bytes alone (its length not yet known), then reads of up to 16 KiB
    assertTrue(filler.read(Unpooled.copiedBuffer(bytes, 0, 3)));
    for (int at = 3; at < bytes.length; ) {
      int n = Math.min(bytes.length - at, 1 + random.nextInt(16 * 1024));
      assertTrue(filler.read(Unpooled.copiedBuffer(bytes, at, n)));
      at += n;
    }
    List<Envelope> sent = sent();
    assertEquals(1, sent.size());
    assertArrayEquals(payload, data(sent, 4));
    assertEquals(2, allocations[0], "the 3 bytes' buffer, then one the frame fits");
  }

  @Test
  void aFrameLongerThanTheLimitBreaksTheConnection() throws Exception {
    setUp(10);
    assertFalse(filler.read(Unpooled.buffer(8).writeInt(2 << 20).writeInt(0)));
  }

  /**
   * A copy changed on disk since the relay read it is not sent: the worker's connection is closed, and
   * the relay offers that file no more (the master hears it and sends the input itself).
   */
  @Test
  void aCopyChangedSinceItWasReadIsNotSentAndIsWithdrawn() throws Exception {
    setUp(10_000);
    int[] told = {0};
    held.onChange(() -> told[0]++);
    Files.write(dir.resolve("in/data.bin"), new byte[10_001]);
    assertFalse(filler.read(Unpooled.wrappedBuffer(frame(fill("r1", "data.bin", 1, 0, 10_000)))));
    assertFalse(below.isActive(), "the worker's connection is closed");
    assertEquals(0, data(sent(), 1).length, "no byte of the changed copy went down");
    assertEquals(null, held.file("data.bin"));
    assertEquals(1, told[0], "the master is told what the relay offers now");
    assertEquals(0, held.announcement().getHeldFiles().getFilesCount());
  }
}
