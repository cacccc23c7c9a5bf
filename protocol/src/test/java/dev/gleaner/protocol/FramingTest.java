package dev.gleaner.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FramingTest {
  private static EmbeddedChannel channel(int max) {
    EmbeddedChannel ch = new EmbeddedChannel();
    Framing.install(ch.pipeline(), max);
    return ch;
  }

  @Test
  void envelopesSurviveTheRoundTripWhateverTheSegmentation() {
    SplittableRandom r = new SplittableRandom(1);
    for (int trial = 0; trial < 50; trial++) {
      EmbeddedChannel sender = channel(1 << 20);
      byte[] payload = new byte[r.nextInt(0, 300_000)];
      r.nextBytes(payload);
      Envelope a = Messages.hello(Role.WORKER, "w-" + trial, "host", 4, List.of("primes"));
      Envelope b = Envelope.newBuilder().setData(Data.newBuilder().setJobId("j").setChunkId(trial)
          .setPayload(ByteString.copyFrom(payload)).setLast(true)).build();
      sender.writeOutbound(a, b);
      ByteBuf wire = Unpooled.buffer();
      for (ByteBuf out; (out = sender.readOutbound()) != null; ) {
        wire.writeBytes(out);
        out.release();
      }
      EmbeddedChannel receiver = channel(1 << 20);
      while (wire.isReadable()) {
        receiver.writeInbound(wire.readRetainedSlice(Math.min(wire.readableBytes(), r.nextInt(1, 70_000))));
      }
      wire.release();
      assertEquals(a, receiver.readInbound());
      Envelope got = receiver.readInbound();
      assertArrayEquals(payload, got.getData().getPayload().toByteArray());
      assertNull(receiver.readInbound());
    }
  }

  @Test
  void dataFramesAreSlicedWithoutCopyWhicheverWayTheyWereFramed() {
    SplittableRandom r = new SplittableRandom(3);
    for (int trial = 0; trial < 30; trial++) {
      byte[] payload = new byte[r.nextInt(0, 200_000)];
      r.nextBytes(payload);
      boolean last = r.nextBoolean();
      ByteBuf wire = Unpooled.buffer();
      if (r.nextBoolean()) {
        // the master's way: a hand-written header, then the raw bytes
        ByteBuf header = DataFrames.header(io.netty.buffer.ByteBufAllocator.DEFAULT, "job-" + trial, trial, last, payload.length);
        wire.writeBytes(header).writeBytes(payload);
        header.release();
      } else {
        EmbeddedChannel sender = channel(1 << 20);
        sender.writeOutbound(Envelope.newBuilder().setData(Data.newBuilder().setJobId("job-" + trial).setChunkId(trial)
            .setLast(last).setPayload(ByteString.copyFrom(payload))).build());
        ByteBuf out = sender.readOutbound();
        wire.writeBytes(out);
        out.release();
      }
      Envelope after = Messages.heartbeat(trial, 0);
      EmbeddedChannel tail = channel(1 << 20);
      tail.writeOutbound(after);
      ByteBuf afterBytes = tail.readOutbound();
      wire.writeBytes(afterBytes);
      afterBytes.release();

      EmbeddedChannel receiver = new EmbeddedChannel();
      Framing.install(receiver.pipeline(), 1 << 20, true);
      while (wire.isReadable()) {
        receiver.writeInbound(wire.readRetainedSlice(Math.min(wire.readableBytes(), r.nextInt(1, 50_000))));
      }
      wire.release();
      // the payload arrives in one part or several (as it was read), the last part carrying the frame's flag
      java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
      for (int parts = 0; ; parts++) {
        assertTrue(parts <= payload.length, "a part holds at least one byte");
        DataFrame d = receiver.readInbound();
        assertEquals("job-" + trial, d.jobId());
        assertEquals(trial, d.chunkId());
        byte[] part = new byte[d.payload().readableBytes()];
        d.payload().getBytes(d.payload().readerIndex(), part);
        got.writeBytes(part);
        boolean lastPart = got.size() == payload.length;
        assertEquals(last && lastPart, d.last(), "only the frame's last part says it is the chunk's last");
        d.release();
        if (lastPart) {
          break;
        }
      }
      assertArrayEquals(payload, got.toByteArray());
      assertEquals(after, receiver.readInbound(), "other messages still arrive as envelopes");
      assertFalse(receiver.finish());
    }
  }

  /**
   * The master's data frames are not gathered: each read's bytes go on as they came, as slices of
   * the buffer they were read into (no copy), before the frame is complete.
   */
  @Test
  void aDataFramesPayloadGoesOnAsItArrivesAsSlicesOfTheReadBuffers() {
    byte[] payload = new byte[100_000];
    new SplittableRandom(5).nextBytes(payload);
    ByteBuf header = DataFrames.header(io.netty.buffer.ByteBufAllocator.DEFAULT, "job-1", 7, true, payload.length);
    EmbeddedChannel receiver = new EmbeddedChannel();
    Framing.install(receiver.pipeline(), 1 << 20, true);
    receiver.writeInbound(header);
    assertNull(receiver.readInbound(), "a header alone is no data yet");
    ByteBuf first = Unpooled.directBuffer(40_000).writeBytes(payload, 0, 40_000);
    receiver.writeInbound(first);
    DataFrame a = receiver.readInbound();
    assertEquals(40_000, a.payload().readableBytes(), "the first read's bytes arrive before the frame is complete");
    assertFalse(a.last());
    assertEquals(first.memoryAddress(), a.payload().memoryAddress(), "a slice of the read buffer, not a copy");
    a.release();
    receiver.writeInbound(Unpooled.directBuffer(60_000).writeBytes(payload, 40_000, 60_000));
    DataFrame b = receiver.readInbound();
    assertEquals(60_000, b.payload().readableBytes());
    assertTrue(b.last());
    byte[] rest = new byte[60_000];
    b.payload().getBytes(b.payload().readerIndex(), rest);
    assertArrayEquals(java.util.Arrays.copyOfRange(payload, 40_000, 100_000), rest);
    b.release();
    assertFalse(receiver.finish());
  }

  @Test
  void aFrameOverTheLimitIsRefusedFromItsLengthAlone() {
    EmbeddedChannel ch = channel(1024);
    ByteBuf header = Unpooled.buffer().writeInt(1025);
    WireException e = assertThrows(WireException.class, () -> ch.writeInbound(header));
    assertEquals(Error.Code.FRAME_TOO_LARGE, e.code());
    assertTrue(e.getMessage().contains("1025"), e.getMessage());
  }

  @Test
  void aNegativeLengthIsRefused() {
    EmbeddedChannel ch = channel(1024);
    WireException e = assertThrows(WireException.class, () -> ch.writeInbound(Unpooled.buffer().writeInt(-5)));
    assertEquals(Error.Code.FRAME_TOO_LARGE, e.code());
  }

  @Test
  void garbageIsAMalformedFrame() {
    EmbeddedChannel ch = channel(1024);
    ByteBuf frame = Unpooled.buffer().writeInt(4).writeBytes(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});
    WireException e = assertThrows(WireException.class, () -> ch.writeInbound(frame));
    assertEquals(Error.Code.BAD_FRAME, e.code());
  }

  @Test
  void aMessageOfAnUnknownTypeIsRefused() {
    EmbeddedChannel ch = channel(1024);
    // field 99 (unknown to this version), varint 1
    ByteBuf frame = Unpooled.buffer().writeInt(3).writeBytes(new byte[] {(byte) 0x98, 0x06, 0x01});
    WireException e = assertThrows(WireException.class, () -> ch.writeInbound(frame));
    assertEquals(Error.Code.UNEXPECTED_MESSAGE, e.code());
  }

  @Test
  void theEncoderRefusesToSendWhatThePeerWouldRefuse() {
    EmbeddedChannel ch = channel(1024);
    Envelope big = Envelope.newBuilder().setData(Data.newBuilder().setPayload(ByteString.copyFrom(new byte[2000]))).build();
    assertThrows(Exception.class, () -> ch.writeOutbound(big));
  }

  @Test
  void authAcceptsOnlyTheRightSecretNonceAndIdentity() {
    byte[] secret = "0123456789abcdef-secret".getBytes();
    byte[] nonce = Auth.newNonce();
    byte[] mac = Auth.mac(secret, nonce, Role.WORKER, "w1");
    assertTrue(Auth.verify(secret, nonce, Role.WORKER, "w1", mac));
    assertFalse(Auth.verify("0123456789abcdef-other".getBytes(), nonce, Role.WORKER, "w1", mac));
    assertFalse(Auth.verify(secret, Auth.newNonce(), Role.WORKER, "w1", mac));
    assertFalse(Auth.verify(secret, nonce, Role.CLIENT, "w1", mac));
    assertFalse(Auth.verify(secret, nonce, Role.WORKER, "w2", mac));
  }
}
