package dev.gleaner.protocol;

import com.google.protobuf.CodedOutputStream;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.MessageToByteEncoder;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Writes one {@link Envelope} as a 4-byte length and its bytes, serialised straight into the
 * outgoing buffer (one allocation, no intermediate byte array). Refuses to send a frame the peer
 * would refuse.
 */
@ChannelHandler.Sharable
public final class FrameEncoder extends MessageToByteEncoder<Envelope> {
  private final int maxFrameBytes;

  public FrameEncoder(int maxFrameBytes) {
    super(Envelope.class);
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, Envelope msg, boolean preferDirect) {
    int size = msg.getSerializedSize();
    return preferDirect ? ctx.alloc().ioBuffer(4 + size) : ctx.alloc().heapBuffer(4 + size);
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, Envelope msg, ByteBuf out) throws IOException {
    int size = msg.getSerializedSize();
    if (size > maxFrameBytes) {
      throw new EncoderException("refusing to send a " + msg.getBodyCase() + " frame of " + size
          + " bytes: over the limit of " + maxFrameBytes + " bytes");
    }
    out.ensureWritable(4 + size);
    out.writeInt(size);
    int at = out.writerIndex();
    ByteBuffer target = out.nioBuffer(at, size);
    CodedOutputStream coded = CodedOutputStream.newInstance(target);
    msg.writeTo(coded);
    coded.flush();
    out.writerIndex(at + size);
  }
}
