package dev.gleaner.master.net;

import com.google.protobuf.ByteString;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.ResultPart;
import io.netty.channel.ChannelHandlerContext;

/**
 * A job's result on its way to a client, in parts of {@link #PART_BYTES} written while the
 * connection takes them; the rest follows when it drains. Used on the connection's event loop only.
 */
final class ResultStream {
  static final int PART_BYTES = 256 * 1024;

  private final String job;
  private final byte[] bytes;
  private int at;

  ResultStream(String job, byte[] bytes) {
    this.job = job;
    this.bytes = bytes;
  }

  /**
   * Writes parts until the last or until the connection stops being writable, then flushes; true
   * once the last part is written.
   */
  boolean pump(ChannelHandlerContext ctx) {
    boolean done = false;
    while (!done && ctx.channel().isActive()) {
      int n = Math.min(PART_BYTES, bytes.length - at);
      boolean last = at + n >= bytes.length;
      ctx.write(Envelope.newBuilder().setResultPart(ResultPart.newBuilder().setJobId(job)
          .setData(ByteString.copyFrom(bytes, at, n)).setLast(last)).build());
      at += n;
      if (last) {
        done = true;
      } else if (!ctx.channel().isWritable()) {
        break;
      }
    }
    ctx.flush();
    return done;
  }
}
