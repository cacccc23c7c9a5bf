package dev.gleaner.master.net.port;

import dev.gleaner.master.loop.FileInputSource;
import dev.gleaner.protocol.DataFrames;
import dev.gleaner.protocol.Framing;
import io.netty.channel.Channel;
import io.netty.channel.ChannelProgressiveFuture;
import io.netty.channel.ChannelProgressiveFutureListener;
import io.netty.channel.ChannelProgressivePromise;
import io.netty.handler.ssl.SslHandler;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One chunk's input on its way through the {@link SendPort}: its bytes written to the worker's
 * connection on the connection's event loop while it takes them, its state in the port (guarded by
 * the port's lock), and what it tells the port (all queued, parked, the bytes the connection took,
 * over). What the port decides (when it starts, whether it stalled) stays in the port.
 *
 * <p>How: a stream runs on its channel's event loop. Each slice goes out as a small header
 * ({@link DataFrames}) followed by a {@link FileSlice}, so the bytes go from the page cache to the
 * socket without passing through the heap (sendfile). Over TLS the bytes must be encrypted by the
 * connection's {@link SslHandler}, which takes buffers only: each slice is read from the file into
 * a pooled direct buffer of {@link SendPort#TLS_SLICE_BYTES} at most. Slices are written while the channel is
 * writable (Netty's write-buffer watermarks, which count file regions through the channel's
 * {@link FileRegionSizeEstimator}).
 */
final class PortStream {
  private static final Logger log = LoggerFactory.getLogger(SendPort.class);

  /** Where a stream stands in the port. */
  enum State { WAITING, SENDING, SENT, STALLED, DONE }

  /** What a stream tells its port, and the lock that guards its state. */
  interface Port {
    Object lock();

    /** The connection took {@code bytes} more of chunk input. */
    void accepted(Channel channel, long bytes);

    /** Bytes of chunk input the connection took so far. Under the lock. */
    long accepted(Channel channel);

    /** Streams may start: one finished, or was all queued. */
    void startMore();

    /** The stream is over. */
    void finished(PortStream s);

    /** Looks whether the stream, parked at its {@code parking}-th time, took nothing since. */
    void checkStall(PortStream s, long parking, long acceptedBefore);
  }

  private final Port port;
  final Channel channel;
  final String job;
  final long chunkId;
  final FileInputSource input;
  final long from;
  final int rank;
  final long seq;
  final double linkRate;
  final SendPort.Listener listener;
  /** Event-loop confined, like {@link #at}. */
  long to;
  long at;
  long startNanos;
  /** Guarded by the port. */
  State state = State.WAITING;
  boolean parked;
  /** Times it parked: a look for a stall belongs to one parking. */
  long parkings;
  boolean everStalled;
  /** Another link was on the wire beside it at some time. */
  boolean crowded;
  /** Its worker's paces showed its link cut while it crossed it ({@link SendPort#paced}). */
  boolean cutAcross;
  double startSeconds = -1;
  /**
   * Guarded by the port: when its worker's word that it all arrived came (NaN before); and how long after
   * the stream before it left the wire it started, when that is what let it on (else 0).
   */
  double arrivedSeconds = Double.NaN;
  double startDelay;
  volatile boolean done;

  PortStream(Port port, Channel channel, String job, long chunkId, FileInputSource input, long from, long to,
      int rank, long seq, double linkRate, SendPort.Listener listener) {
    this.port = port;
    this.channel = channel;
    this.job = job;
    this.chunkId = chunkId;
    this.input = input;
    this.from = from;
    this.at = from;
    this.to = to;
    this.rank = rank;
    this.seq = seq;
    this.linkRate = linkRate;
    this.listener = listener;
  }

  /** Runs on the channel's event loop. */
  void pump() {
    if (done) {
      return;
    }
    if (!channel.isActive()) {
      finish("worker connection closed");
      return;
    }
    synchronized (port.lock()) {
      if (state != State.SENDING) {
        return;
      }
      parked = false;
    }
    if (startNanos == 0) {
      startNanos = System.nanoTime();
    }
    boolean tls = channel.pipeline().get(SslHandler.class) != null;
    int most = tls ? SendPort.TLS_SLICE_BYTES : Framing.DATA_SLICE_BYTES;
    try {
      while (channel.isWritable() && at < to) {
        int n = (int) Math.min(most, to - at);
        boolean last = at + n == to;
        channel.write(DataFrames.header(channel.alloc(), job, chunkId, last, n));
        ChannelProgressivePromise promise = channel.newProgressivePromise();
        promise.addListener(new Progress(n));
        channel.write(tls ? read(input, at, n, channel) : new FileSlice(input, at, n), promise);
        at += n;
        if (last) {
          break;
        }
      }
      channel.flush();
      if (at >= to) {
        sent();
      } else {
        park();
      }
    } catch (RuntimeException | java.io.IOException e) {
      log.error("streaming chunk {} of job {} stopped: {}", chunkId, job, e.getMessage(), e);
      channel.close();
      finish(e.getMessage());
    }
  }

  /** Counts the bytes of one slice as the connection takes them (a file region reports as it goes). */
  private final class Progress implements ChannelProgressiveFutureListener {
    private final long size;
    private long counted;

    Progress(long size) {
      this.size = size;
    }

    @Override
    public void operationProgressed(ChannelProgressiveFuture f, long progress, long total) {
      count(Math.min(progress, size));
    }

    @Override
    public void operationComplete(ChannelProgressiveFuture f) {
      if (f.isSuccess()) {
        count(size);
      } else if (channel.isActive()) {
        // a slice that cannot be sent breaks the stream: the connection closes, and the chunk goes elsewhere
        log.error("a slice of chunk {} of job {} could not be sent to {}; closing the connection: {}", chunkId,
            job, channel.remoteAddress(), String.valueOf(f.cause()), f.cause());
        channel.close();
      }
    }

    private void count(long upTo) {
      long more = upTo - counted;
      if (more > 0) {
        counted = upTo;
        port.accepted(channel, more);
      }
    }
  }

  /** All its bytes are queued: it stays on the wire until its worker says they arrived. */
  private void sent() {
    synchronized (port.lock()) {
      if (state != State.SENDING) {
        return;
      }
      state = State.SENT;
    }
    if (at == from) {
      // nothing was sent (cut to nothing before it started): nothing is on its way
      finish(null);
      return;
    }
    listener.streamed(at - from, (System.nanoTime() - startNanos) / 1e9);
    channel.eventLoop().schedule(() -> {
      boolean late;
      synchronized (port.lock()) {
        late = state == State.SENT;
      }
      if (late) {
        log.warn("worker at {} did not say within {} s that the input of chunk {} of job {} arrived; the port"
            + " no longer counts it on the wire", channel.remoteAddress(), SendPort.PATIENCE_MILLIS / 1000, chunkId, job);
        finish(null);
      }
    }, SendPort.PATIENCE_MILLIS, TimeUnit.MILLISECONDS);
    // the next stream of this connection may go now
    port.startMore();
  }

  private void park() {
    long acceptedNow;
    long parking;
    synchronized (port.lock()) {
      parked = true;
      parking = ++parkings;
      acceptedNow = port.accepted(channel);
    }
    channel.eventLoop().schedule(() -> port.checkStall(this, parking, acceptedNow), SendPort.STALL_MILLIS,
        TimeUnit.MILLISECONDS);
    // it may have drained between the last check and parking
    if (channel.isWritable()) {
      channel.eventLoop().execute(this::pump);
    }
  }

  /** {@code n} bytes of the input at {@code position}, read into a pooled direct buffer. */
  private io.netty.buffer.ByteBuf read(FileInputSource input, long position, int n, Channel channel)
      throws java.io.IOException {
    io.netty.buffer.ByteBuf buf = channel.alloc().directBuffer(n);
    try {
      while (buf.readableBytes() < n) {
        int got = buf.writeBytes(input.channel(), position + buf.readableBytes(), n - buf.readableBytes());
        if (got < 0) {
          throw new java.io.IOException("the input file shrank below byte " + (position + n)
              + " while it was being sent");
        }
      }
      return buf;
    } catch (java.io.IOException | RuntimeException e) {
      buf.release();
      throw e;
    }
  }

  void finish(String why) {
    synchronized (port.lock()) {
      if (done) {
        return;
      }
      done = true;
      state = State.DONE;
    }
    if (why != null) {
      log.debug("stream of chunk {} of job {} ended early: {}", chunkId, job, why);
    }
    port.finished(this);
  }
}
