package dev.gleaner.master.net;

import dev.gleaner.master.control.FileInputSource;
import dev.gleaner.protocol.DataFrames;
import dev.gleaner.protocol.Framing;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's one port for chunk input: streams a copy's bytes to its worker as Data frames, at
 * most {@code concurrent} streams writing at a time (1 is the one-port model of the papers), served
 * by increasing rank (the worker's place in the plan's service order), then in the order asked.
 *
 * <p>How: a stream runs on its channel's event loop. Each slice goes out as a small header
 * ({@link DataFrames}) followed by a {@link FileSlice}, so the bytes go from the page cache to the
 * socket without passing through the heap. Slices are written while the channel is writable
 * (Netty's write-buffer watermarks, which count file regions through the channel's
 * {@link FileRegionSizeEstimator}). The port is held while bytes go onto a worker's wire, not while
 * the worker computes: when the channel stops being writable (the worker is not reading, busy with
 * its previous chunk or on a thin link), the stream parks and the port serves the next stream;
 * the parked one rejoins the queue, at its rank, when its channel drains. A stream ends when its
 * last slice is on the wire; its bytes and wall time go to the listener, for bandwidth estimates.
 */
final class SendPort {
  private static final Logger log = LoggerFactory.getLogger(SendPort.class);

  /** Told when a stream's last byte is on the wire. */
  interface Listener {
    void streamed(long bytes, double seconds);
  }

  private final int concurrent;
  private final PriorityQueue<Stream> waiting = new PriorityQueue<>((a, b) ->
      a.rank != b.rank ? Integer.compare(a.rank, b.rank) : Long.compare(a.seq, b.seq));
  private final Set<Stream> active = new HashSet<>();
  private final Map<String, Stream> byCopy = new HashMap<>();
  private long seq;

  SendPort(int concurrent) {
    this.concurrent = concurrent;
  }

  /** Queues the input bytes {@code [from, to)} of a copy for its worker's channel. */
  void enqueue(Channel channel, String job, long copyId, FileInputSource input, long from, long to, int rank,
      Listener listener) {
    Stream s;
    synchronized (this) {
      s = new Stream(channel, job, copyId, input, from, to, rank, seq++, listener);
      waiting.add(s);
      byCopy.put(key(job, copyId), s);
    }
    // a stream paused on an unwritable channel must still end when that channel closes
    channel.closeFuture().addListener(f -> channel.eventLoop().execute(s::pump));
    startMore();
  }

  private static String key(String job, long copyId) {
    return job + "#" + copyId;
  }

  /** The copy now ends at {@code end}: bytes from there on are not sent. */
  void truncate(String job, long copyId, long end) {
    Stream s;
    synchronized (this) {
      s = byCopy.get(key(job, copyId));
    }
    if (s != null) {
      s.channel.eventLoop().execute(() -> {
        s.to = Math.max(s.at, Math.min(s.to, end));
        s.pump();
      });
    }
  }

  /** Drops the copy's stream. */
  void cancel(String job, long copyId) {
    Stream s;
    synchronized (this) {
      s = byCopy.get(key(job, copyId));
    }
    if (s != null) {
      s.channel.eventLoop().execute(() -> s.finish("cancelled"));
    }
  }

  /** Called by the connection when its channel becomes writable again: its parked stream rejoins the queue. */
  void writable(Channel channel) {
    boolean any = false;
    synchronized (this) {
      for (Stream s : byCopy.values()) {
        if (s.channel == channel && s.parked) {
          s.parked = false;
          waiting.add(s);
          any = true;
        }
      }
    }
    if (any) {
      startMore();
    }
  }

  private void startMore() {
    List<Stream> start = new ArrayList<>();
    synchronized (this) {
      while (active.size() < concurrent && !waiting.isEmpty()) {
        Stream s = waiting.poll();
        if (s.done) {
          continue;
        }
        active.add(s);
        start.add(s);
      }
    }
    for (Stream s : start) {
      s.channel.eventLoop().execute(s::pump);
    }
  }

  private void park(Stream s) {
    synchronized (this) {
      active.remove(s);
      s.parked = true;
    }
    startMore();
    // it may have drained between the last check and parking
    if (s.channel.isWritable()) {
      writable(s.channel);
    }
  }

  private void finished(Stream s) {
    synchronized (this) {
      active.remove(s);
      waiting.remove(s);
      byCopy.remove(key(s.job, s.copyId), s);
      s.parked = false;
    }
    startMore();
  }

  private final class Stream {
    final Channel channel;
    final String job;
    final long copyId;
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

    Stream(Channel channel, String job, long copyId, FileInputSource input, long from, long to, int rank, long seq,
        Listener listener) {
      this.channel = channel;
      this.job = job;
      this.copyId = copyId;
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
      try {
        while (channel.isWritable() && at < to) {
          int n = (int) Math.min(Framing.DATA_SLICE_BYTES, to - at);
          boolean last = at + n == to;
          channel.write(DataFrames.header(channel.alloc(), job, copyId, last, n));
          ChannelFuture f = channel.write(new FileSlice(input.channel(), at, n));
          at += n;
          if (last) {
            channel.flush();
            f.addListener(x -> {
              if (x.isSuccess() && !done) {
                listener.streamed(at - from, (System.nanoTime() - startNanos) / 1e9);
              }
              finish(null);
            });
            return;
          }
        }
        channel.flush();
        if (at >= to) {
          finish(null);
        } else {
          park(this);
        }
      } catch (RuntimeException e) {
        log.error("streaming chunk {} of job {} stopped: {}", copyId, job, e.getMessage(), e);
        channel.close();
        finish(e.getMessage());
      }
    }

    void finish(String why) {
      if (!done) {
        done = true;
        if (why != null) {
          log.debug("stream of chunk {} of job {} ended early: {}", copyId, job, why);
        }
        finished(this);
      }
    }
  }
}
