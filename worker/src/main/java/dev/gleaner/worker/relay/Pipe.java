package dev.gleaner.worker.relay;

import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Via;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One peer below the relay and the connection the relay opened upward for it: after a {@link Via}
 * naming the relay's session, the bytes go through both ways unchanged (the peer's handshake too:
 * its credential answers the master, never the relay). Each side holds at most the buffer's bytes
 * for the other before the relay stops reading it, so a thin link below is fed at its pace from a
 * buffer filled at the uplink's, and TCP slows whoever sends faster than the other side takes.
 * When one side closes, the other is closed once what it was sent has left.
 */
final class Pipe {
  private static final Logger log = LoggerFactory.getLogger(Pipe.class);
  /** How long a peer that comes while the relay has no session waits for one before it is closed. */
  static final long WAIT_FOR_SESSION_MILLIS = 10_000;
  /** How long a side whose other side closed may take to send what it was given before it is closed too. */
  static final long CLOSE_AFTER_MILLIS = 10_000;

  private Pipe() {}

  /** The handler of a connection from below. */
  static ChannelInboundHandlerAdapter below(RelayDaemon daemon, int bufferBytes) {
    return new Below(daemon, bufferBytes);
  }

  /** The side that reads {@code from} and writes to the other. */
  private abstract static class Side extends ChannelInboundHandlerAdapter {
    /** The other connection; null until it is open. */
    Channel other;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Channel o = other;
      if (o == null || !o.isActive()) {
        io.netty.util.ReferenceCountUtil.release(msg);
        return;
      }
      o.write(msg, o.voidPromise());
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      Channel o = other;
      if (o != null) {
        o.flush();
        // the other side holds a buffer's worth: read this side again when it drained
        ctx.channel().config().setAutoRead(o.isWritable());
      }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      Channel o = other;
      if (o != null && o.isActive()) {
        o.config().setAutoRead(ctx.channel().isWritable());
      }
      drained(ctx.channel());
      ctx.fireChannelWritabilityChanged();
    }

    /** Its connection's writability changed. */
    void drained(Channel mine) {}

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      closeAfterFlush(other);
      ended();
      ctx.fireChannelInactive();
    }

    /** Its connection closed. */
    void ended() {}

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      javax.net.ssl.SSLException tls = Uplink.tlsProblem(cause);
      if (tls != null) {
        log.warn("relay: TLS with {} failed: {}", ctx.channel().remoteAddress(), tls.getMessage());
      } else if (!(cause instanceof IOException)) {
        log.warn("relay: connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
      }
      ctx.close();
    }
  }

  /** A peer below: opens the connection upward when it comes, on the same event loop. */
  private static final class Below extends Side {
    private final RelayDaemon daemon;
    private final int bufferBytes;
    /** The handler of its connection upward, once there is one. */
    private Above above;

    Below(RelayDaemon daemon, int bufferBytes) {
      this.daemon = daemon;
      this.bufferBytes = bufferBytes;
    }

    @Override
    void drained(Channel mine) {
      if (above != null && mine.isWritable()) {
        above.pump();
      }
    }

    @Override
    void ended() {
      if (above != null) {
        above.ended();
      }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      Channel child = ctx.channel();
      child.config().setWriteBufferWaterMark(new WriteBufferWaterMark(bufferBytes / 2, bufferBytes));
      // nothing is read from it until its connection upward is open
      passUp(child, System.nanoTime());
      ctx.fireChannelActive();
    }

    /**
     * Opens the connection upward for {@code child}; while the relay has no session (its upstream
     * restarting), the peer waits for one, polled every 100 ms, up to {@link #WAIT_FOR_SESSION_MILLIS},
     * then is closed and moves on along its own list (the master directly, another relay).
     */
    private void passUp(Channel child, long since) {
      if (!child.isActive()) {
        return;
      }
      String session = daemon.session();
      if (session == null) {
        if (System.nanoTime() - since < java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(WAIT_FOR_SESSION_MILLIS)) {
          child.eventLoop().schedule(() -> passUp(child, since), 100, java.util.concurrent.TimeUnit.MILLISECONDS);
        } else {
          log.info("relay {}: {} waited {} ms for the relay's session upward; closing it", daemon.id(),
              child.remoteAddress(), WAIT_FOR_SESSION_MILLIS);
          child.close();
        }
        return;
      }
      InetSocketAddress at = daemon.upstream();
      Above above = new Above(child, daemon.held() == null ? null
          : new Filler(daemon.id(), daemon.held(), child, daemon.maxFrameBytes()));
      this.above = above;
      new Bootstrap().group(child.eventLoop()).channel(NioSocketChannel.class)
          .option(ChannelOption.TCP_NODELAY, true)
          .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
          .option(ChannelOption.AUTO_READ, false)
          .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(bufferBytes / 2, bufferBytes))
          .handler(new io.netty.channel.ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
              if (daemon.upTls() != null) {
                // each hop is encrypted on its own: this connection's to the master, the peer's to the relay
                ch.pipeline().addLast("tls", daemon.upTls().newHandler(ch.alloc(), at.getHostString(), at.getPort()));
              }
              ch.pipeline().addLast("pipe", above);
            }
          })
          .connect(at.getHostString(), at.getPort()).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess() || !child.isActive()) {
              if (!f.isSuccess()) {
                log.info("relay {}: cannot reach {} for {} ({}); closing it", daemon.id(), RelayDaemon.name(at),
                    child.remoteAddress(), f.cause() == null ? "?" : f.cause().getMessage());
              }
              child.close();
              f.channel().close();
              return;
            }
            Channel up = f.channel();
            other = up;
            log.info("relay {}: passing {} up to {}", daemon.id(), child.remoteAddress(), RelayDaemon.name(at));
            up.writeAndFlush(via(daemon.id(), session, (InetSocketAddress) child.remoteAddress()));
            up.config().setAutoRead(true);
            child.config().setAutoRead(true);
          });
    }
  }

  /**
   * The connection upward for one peer below. With input files held (a {@link Filler}), the frames
   * going down are read whole, and the master's Fills are answered from the relay's own copies.
   */
  private static final class Above extends Side {
    private final Filler filler;

    Above(Channel below, Filler filler) {
      this.other = below;
      this.filler = filler;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Channel o = other;
      if (filler == null || o == null || !o.isActive()) {
        super.channelRead(ctx, msg);
        return;
      }
      if (!filler.read((ByteBuf) msg)) {
        ctx.close();
        o.close();
      }
    }

    /** The peer's connection took bytes: the Fill under way goes on. */
    void pump() {
      if (filler != null) {
        filler.pump();
      }
    }

    @Override
    void ended() {
      if (filler != null) {
        filler.release();
      }
    }
  }

  /** The Via frame: its length, then the envelope, as every frame on the wire. */
  static ByteBuf via(String relayId, String session, InetSocketAddress peer) {
    byte[] body = Envelope.newBuilder().setVia(Via.newBuilder().setRelayId(relayId).setRelaySession(session)
        .setPeerAddress(peer.getAddress().getHostAddress() + ":" + peer.getPort())
        .setPeerIp(com.google.protobuf.ByteString.copyFrom(peer.getAddress().getAddress()))).build().toByteArray();
    ByteBuf b = Unpooled.buffer(4 + body.length);
    b.writeInt(body.length);
    b.writeBytes(body);
    return b;
  }

  private static void closeAfterFlush(Channel c) {
    if (c != null && c.isActive()) {
      c.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      // a peer gone silent with its window shut must not hold the buffer until TCP gives up
      c.eventLoop().schedule(() -> {
        c.close();
      }, CLOSE_AFTER_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
    }
  }
}
