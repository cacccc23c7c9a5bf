package dev.gleaner.master;

import dev.gleaner.protocol.DataFrames;
import dev.gleaner.protocol.Framing;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's outgoing port for chunk input: streams a chunk's bytes to its worker as Data frames,
 * at most {@code concurrent} streams at a time (1 is the one-port model of the papers: the master
 * sends to one worker after another, in the order chunks were assigned).
 *
 * <p>How: a stream runs on its channel's event loop. Each slice goes out as a small header
 * ({@link DataFrames}) followed by a {@link FileSlice}, so the bytes go from the page cache to the
 * socket without passing through the heap, and the master's memory does not grow with the input.
 * Slices are written while the channel is writable (Netty's write-buffer watermarks); when it is
 * not, the stream pauses and {@link #writable} resumes it. The stream ends when its last slice is
 * on the wire, and only then does the next stream start.
 */
final class SendPort {
  private static final Logger log = LoggerFactory.getLogger(SendPort.class);

  private final int concurrent;
  private final MasterMetrics metrics;
  private final Deque<Stream> waiting = new ArrayDeque<>();
  private final Set<Stream> active = new HashSet<>();

  SendPort(int concurrent, MasterMetrics metrics) {
    this.concurrent = concurrent;
    this.metrics = metrics;
  }

  /** Queues the input bytes {@code [from, to)} of a chunk for its worker's channel. */
  void enqueue(WorkerSession session, Chunk chunk, FileInputSource input, long from, long to) {
    Stream s = new Stream(session.channel, chunk.job.id, chunk.id, input, from, to);
    synchronized (this) {
      waiting.add(s);
    }
    // a stream paused on an unwritable channel must still end when that channel closes
    s.channel.closeFuture().addListener(f -> s.channel.eventLoop().execute(s::pump));
    startMore();
  }

  /** Called by the connection when its channel becomes writable again. */
  void writable(Channel channel) {
    Stream s;
    synchronized (this) {
      s = active.stream().filter(x -> x.channel == channel).findFirst().orElse(null);
    }
    if (s != null) {
      channel.eventLoop().execute(s::pump);
    }
  }

  private void startMore() {
    java.util.List<Stream> start = new java.util.ArrayList<>();
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

  private void finished(Stream s) {
    synchronized (this) {
      active.remove(s);
      waiting.remove(s);
    }
    startMore();
  }

  private final class Stream {
    final Channel channel;
    final String jobId;
    final long chunkId;
    final FileInputSource input;
    final long to;
    long at;
    volatile boolean done;

    Stream(Channel channel, String jobId, long chunkId, FileInputSource input, long from, long to) {
      this.channel = channel;
      this.jobId = jobId;
      this.chunkId = chunkId;
      this.input = input;
      this.at = from;
      this.to = to;
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
      try {
        while (channel.isWritable() && at < to) {
          int n = (int) Math.min(Framing.DATA_SLICE_BYTES, to - at);
          boolean last = at + n == to;
          channel.write(DataFrames.header(channel.alloc(), jobId, chunkId, last, n));
          ChannelFuture f = channel.write(new FileSlice(input.channel(), at, n));
          at += n;
          metrics.bytesStreamed.increment(n);
          if (last) {
            channel.flush();
            f.addListener(x -> finish(null));
            return;
          }
        }
        channel.flush();
      } catch (RuntimeException e) {
        log.error("streaming chunk {} of job {} stopped: {}", chunkId, jobId, e.getMessage(), e);
        channel.close();
        finish(e.getMessage());
      }
    }

    void finish(String why) {
      if (!done) {
        done = true;
        if (why != null) {
          log.debug("stream of chunk {} of job {} ended early: {}", chunkId, jobId, why);
        }
        finished(this);
      }
    }
  }
}
