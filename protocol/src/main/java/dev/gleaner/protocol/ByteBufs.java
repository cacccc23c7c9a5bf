package dev.gleaner.protocol;

import io.netty.buffer.ByteBuf;

final class ByteBufs {
  private ByteBufs() {}

  static byte[] toArray(ByteBuf buf) {
    byte[] bytes = new byte[buf.readableBytes()];
    buf.getBytes(buf.readerIndex(), bytes);
    return bytes;
  }
}
