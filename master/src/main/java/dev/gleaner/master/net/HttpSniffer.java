package dev.gleaner.master.net;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Port unification: the first bytes a peer sends tell an HTTP request ({@code GET }, {@code HEAD},
 * {@code POST}, {@code PUT}, {@code DELETE}: {@code /metrics}, the web page, {@code /api/status} and
 * the jobs' API)
 * from the framed protocol, whose first bytes are a frame's length (a Hello is far shorter than
 * 0x44000000 bytes, the least length whose first byte is 'D'). HTTP gets Netty's codec and
 * {@link HttpHandler} in this handler's
 * place; anything else passes on to the frame decoder, the bytes read so far with it.
 */
final class HttpSniffer extends ByteToMessageDecoder {
  private static final int LOOK = 5;
  /** The largest HTTP request taken: a scrape or a page is a line and a few headers, a job's fields a few lines. */
  static final int MAX_REQUEST_BYTES = 64 * 1024;

  private final Services services;

  HttpSniffer(Services services) {
    this.services = services;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (in.readableBytes() < 1) {
      return;
    }
    // a connection's first frame is a Hello of at most LoginGate.FRAME_BYTES (64 KiB): its length's first
    // byte is 0 (a frame of 'D', 0x44, would be over 1 GiB); 'G', 'H', 'P' or 'D' may be HTTP
    byte b = in.getByte(in.readerIndex());
    boolean maybeHttp = b == 'G' || b == 'H' || b == 'P' || b == 'D';
    if (maybeHttp && in.readableBytes() < LOOK) {
      return;
    }
    String first = maybeHttp ? in.toString(in.readerIndex(), LOOK, StandardCharsets.US_ASCII) : "";
    if (first.startsWith("GET ") || first.equals("HEAD ") || first.equals("POST ") || first.startsWith("PUT ")
        || first.equals("DELET")) {
      ctx.pipeline().addAfter(ctx.name(), "http-handler", new HttpHandler(services));
      ctx.pipeline().addAfter(ctx.name(), "http-aggregate", new HttpObjectAggregator(MAX_REQUEST_BYTES));
      ctx.pipeline().addAfter(ctx.name(), "http", new HttpServerCodec(4096, 8192, 8192));
    }
    // either way this handler is done; what it holds goes on to the next one
    ctx.pipeline().remove(this);
  }
}
