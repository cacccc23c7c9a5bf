package dev.gleaner.protocol;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Reads one {@link Envelope} per frame: a 4-byte big-endian length, then that many bytes.
 *
 * <p>A length over the limit is refused as soon as the 4 length bytes arrive, before any of the
 * body is buffered, so a hostile or broken peer cannot make us hold a huge frame. After any error
 * the decoder stops reading: the connection is going to be closed by the handler that sees the
 * {@link WireException}.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private final int maxFrameBytes;
  private boolean failed;

  public FrameDecoder(int maxFrameBytes) {
    if (maxFrameBytes < 1024) {
      throw new IllegalArgumentException("max frame size must be at least 1024 bytes, got " + maxFrameBytes);
    }
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    while (in.readableBytes() >= 4) {
      int length = in.getInt(in.readerIndex());
      if (length < 0 || length > maxFrameBytes) {
        failed = true;
        in.skipBytes(in.readableBytes());
        throw new WireException(Error.Code.FRAME_TOO_LARGE,
            "frame of " + Integer.toUnsignedString(length) + " bytes is over the limit of " + maxFrameBytes + " bytes", null);
      }
      if (in.readableBytes() < 4 + length) {
        return;
      }
      in.skipBytes(4);
      ByteBuf frame = in.readSlice(length);
      try {
        CodedInputStream input = frame.nioBufferCount() == 1
            ? CodedInputStream.newInstance(frame.nioBuffer())
            : CodedInputStream.newInstance(ByteBufs.toArray(frame));
        input.setSizeLimit(length);
        Envelope envelope = Envelope.parseFrom(input);
        if (envelope.getBodyCase() == Envelope.BodyCase.BODY_NOT_SET) {
          failed = true;
          throw new WireException(Error.Code.UNEXPECTED_MESSAGE,
              "message of an unknown type (a newer protocol?)", null);
        }
        out.add(envelope);
      } catch (InvalidProtocolBufferException e) {
        failed = true;
        in.skipBytes(in.readableBytes());
        throw new WireException(Error.Code.BAD_FRAME, "malformed frame: " + e.getMessage(), e);
      } catch (java.io.IOException e) {
        failed = true;
        in.skipBytes(in.readableBytes());
        throw new WireException(Error.Code.BAD_FRAME, "malformed frame: " + e.getMessage(), e);
      }
    }
  }
}
