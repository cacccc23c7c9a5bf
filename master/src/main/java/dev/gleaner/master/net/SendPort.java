package dev.gleaner.master.net;

import dev.gleaner.master.loop.FileInputSource;
import dev.gleaner.protocol.DataFrames;
import dev.gleaner.protocol.Framing;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.handler.ssl.SslHandler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's one port for chunk input: streams a chunk's bytes to its worker as Data frames, at
 * most {@code concurrent} streams writing at a time (1 is the one-port model of the papers), served
 * by increasing rank (the worker's place in the plan's service order), then in the order asked.
 * One worker's streams go out in the order they were asked for, each after the one before it,
 * because the worker consumes its chunks in that order.
 *
 * <p>How: a stream runs on its channel's event loop. Each slice goes out as a small header
 * ({@link DataFrames}) followed by a {@link FileSlice}, so the bytes go from the page cache to the
 * socket without passing through the heap (sendfile). Over TLS the bytes must be encrypted by the
 * connection's {@link SslHandler}, which takes buffers only: each slice is read from the file into
 * a pooled direct buffer of {@link #TLS_SLICE_BYTES} at most (small, since a parked TLS stream's
 * queued slices hold memory, where a file region holds none). Slices are written while the channel is writable
 * (Netty's write-buffer watermarks, which count file regions through the channel's
 * {@link FileRegionSizeEstimator}). The port is held while bytes go into a worker's connection, not
 * while the worker computes: when the channel stops being writable (the worker is not reading,
 * busy with its previous chunk or on a thin link), the stream parks and the port serves the next
 * stream; the parked one rejoins the queue, at its rank, when its channel drains. A stream gives
 * the port back as soon as its last slice is queued on the connection.
 */
final class SendPort {
  private static final Logger log = LoggerFactory.getLogger(SendPort.class);

  /** Told when a stream's last slice is queued on its connection. */
  interface Listener {
    void streamed(long bytes, double seconds);
  }

  /** Slices of a stream over TLS: read into memory, so kept small. */
  static final int TLS_SLICE_BYTES = 256 * 1024;

  private final int concurrent;
  private final PriorityQueue<Stream> waiting = new PriorityQueue<>((a, b) ->
      a.rank != b.rank ? Integer.compare(a.rank, b.rank) : Long.compare(a.seq, b.seq));
  private final Set<Stream> active = new HashSet<>();
  private final Map<String, Stream> byChunk = new HashMap<>();
  /** Each connection's unfinished streams, in the order they were asked for. */
  private final Map<Channel, Deque<Stream>> byChannel = new HashMap<>();
  private long seq;

  SendPort(int concurrent) {
    this.concurrent = concurrent;
  }

  /** Queues the input bytes {@code [from, to)} of a chunk for its worker's channel. */
  void enqueue(Channel channel, String job, long chunkId, FileInputSource input, long from, long to, int rank,
      Listener listener) {
    Stream s;
    boolean firstOnChannel;
    synchronized (this) {
      s = new Stream(channel, job, chunkId, input, from, to, rank, seq++, listener);
      waiting.add(s);
      byChunk.put(key(job, chunkId), s);
      Deque<Stream> mine = byChannel.get(channel);
      firstOnChannel = mine == null;
      if (firstOnChannel) {
        mine = new ArrayDeque<>();
        byChannel.put(channel, mine);
      }
      mine.add(s);
    }
    if (firstOnChannel) {
      // streams paused on an unwritable channel must still end when that channel closes
      channel.closeFuture().addListener(f -> closed(channel));
    }
    startMore();
  }

  private static String key(String job, long chunkId) {
    return job + "#" + chunkId;
  }

  /** The chunk now ends at {@code end}: bytes from there on are not sent. */
  void truncate(String job, long chunkId, long end) {
    Stream s;
    synchronized (this) {
      s = byChunk.get(key(job, chunkId));
    }
    if (s != null) {
      s.channel.eventLoop().execute(() -> {
        s.to = Math.max(s.at, Math.min(s.to, end));
        s.pump();
      });
    }
  }

  /** Drops the chunk's stream. */
  void cancel(String job, long chunkId) {
    Stream s;
    synchronized (this) {
      s = byChunk.get(key(job, chunkId));
    }
    if (s != null) {
      s.channel.eventLoop().execute(() -> s.finish("cancelled"));
    }
  }

  /** Called by the connection when its channel becomes writable again: its parked stream rejoins the queue. */
  void writable(Channel channel) {
    boolean any = false;
    synchronized (this) {
      Deque<Stream> mine = byChannel.get(channel);
      Stream head = mine == null ? null : mine.peekFirst();
      if (head != null && head.parked) {
        head.parked = false;
        waiting.add(head);
        any = true;
      }
    }
    if (any) {
      startMore();
    }
  }

  private void closed(Channel channel) {
    List<Stream> streams;
    synchronized (this) {
      Deque<Stream> mine = byChannel.remove(channel);
      streams = mine == null ? List.of() : new ArrayList<>(mine);
    }
    for (Stream s : streams) {
      s.finish("worker connection closed");
    }
  }

  /** Starts the best-ranked waiting streams that are first on their connection, up to the limit. */
  private void startMore() {
    List<Stream> start = new ArrayList<>();
    synchronized (this) {
      List<Stream> notYet = new ArrayList<>();
      while (active.size() < concurrent && !waiting.isEmpty()) {
        Stream s = waiting.poll();
        if (s.done) {
          continue;
        }
        Deque<Stream> mine = byChannel.get(s.channel);
        if (mine == null || mine.peekFirst() != s) {
          notYet.add(s);
          continue;
        }
        active.add(s);
        start.add(s);
      }
      waiting.addAll(notYet);
    }
    for (Stream s : start) {
      s.channel.eventLoop().execute(s::pump);
    }
  }

  private void park(Stream s) {
    boolean drained;
    synchronized (this) {
      active.remove(s);
      s.parked = true;
      drained = s.channel.isWritable();
    }
    // it may have drained between the last check and parking
    if (drained) {
      writable(s.channel);
    }
    startMore();
  }

  private void finished(Stream s) {
    synchronized (this) {
      active.remove(s);
      waiting.remove(s);
      byChunk.remove(key(s.job, s.chunkId), s);
      Deque<Stream> mine = byChannel.get(s.channel);
      if (mine != null) {
        mine.remove(s);
        // the next stream of this connection may go now
        Stream next = mine.peekFirst();
        if (next != null && !next.done && !next.parked && !active.contains(next) && !waiting.contains(next)) {
          waiting.add(next);
        }
      }
      s.parked = false;
    }
    startMore();
  }

  private final class Stream {
    final Channel channel;
    final String job;
    final long chunkId;
    final FileInputSource input;
    final long from;
    final int rank;
    final long seq;
    final Listener listener;
    /** Event-loop confined, like {@link #at}. */
    long to;
    long at;
    long startNanos;
    volatile boolean done;
    /** Guarded by the port. */
    boolean parked;

    Stream(Channel channel, String job, long chunkId, FileInputSource input, long from, long to, int rank, long seq,
        Listener listener) {
      this.channel = channel;
      this.job = job;
      this.chunkId = chunkId;
      this.input = input;
      this.from = from;
      this.at = from;
      this.to = to;
      this.rank = rank;
      this.seq = seq;
      this.listener = listener;
    }

    /** Runs on the channel's event loop. */
    void pump() {
      if (done) {
        return;
      }
      boolean mine;
      synchronized (SendPort.this) {
        mine = active.contains(this);
      }
      if (!channel.isActive()) {
        finish("worker connection closed");
        return;
      }
      if (!mine) {
        return;
      }
      if (startNanos == 0) {
        startNanos = System.nanoTime();
      }
      boolean tls = channel.pipeline().get(SslHandler.class) != null;
      int most = tls ? TLS_SLICE_BYTES : Framing.DATA_SLICE_BYTES;
      try {
        while (channel.isWritable() && at < to) {
          int n = (int) Math.min(most, to - at);
          boolean last = at + n == to;
          channel.write(DataFrames.header(channel.alloc(), job, chunkId, last, n));
          ChannelFuture f = channel.write(tls ? read(input, at, n, channel) : new FileSlice(input, at, n));
          // a slice that cannot be sent breaks the stream: the connection closes, and the chunk goes elsewhere
          f.addListener(x -> {
            if (!x.isSuccess() && channel.isActive()) {
              log.error("a slice of chunk {} of job {} could not be sent to {}; closing the connection: {}", chunkId,
                  job, channel.remoteAddress(), String.valueOf(x.cause()), x.cause());
              channel.close();
            }
          });
          at += n;
          if (last) {
            channel.flush();
            listener.streamed(at - from, (System.nanoTime() - startNanos) / 1e9);
            // everything is queued on the connection: the port serves the next stream
            finish(null);
            return;
          }
        }
        channel.flush();
        if (at >= to) {
          finish(null);
        } else {
          park(this);
        }
      } catch (RuntimeException | java.io.IOException e) {
        log.error("streaming chunk {} of job {} stopped: {}", chunkId, job, e.getMessage(), e);
        channel.close();
        finish(e.getMessage());
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
      if (!done) {
        done = true;
        if (why != null) {
          log.debug("stream of chunk {} of job {} ended early: {}", chunkId, job, why);
        }
        finished(this);
      }
    }
  }
}
