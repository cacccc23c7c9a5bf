package dev.gleaner.master.net;

import dev.gleaner.common.port.EgressEstimator;
import dev.gleaner.common.port.PortRule;
import dev.gleaner.master.MasterConfig;
import dev.gleaner.master.loop.FileInputSource;
import dev.gleaner.protocol.DataFrames;
import dev.gleaner.protocol.Framing;
import io.netty.channel.Channel;
import io.netty.channel.ChannelProgressiveFuture;
import io.netty.channel.ChannelProgressiveFutureListener;
import io.netty.channel.ChannelProgressivePromise;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's port for chunk input: streams a chunk's bytes to its worker as Data frames, served
 * by increasing rank (the worker's place in the plan's service order), then in the order asked, as
 * many at once as its mode lets: by default all at once, sharing the master's egress as TCP shares it;
 * in the fit mode, the streams whose links fit together in the egress ({@link PortRule}), learned as it
 * sends ({@link EgressEstimator}); with a fixed count, that many links. One worker's streams go out in the order they were asked for, each after
 * the one before it has all been queued, because the worker consumes its chunks in that order.
 *
 * <p>A stream is on the wire from its first byte until its worker says the last one arrived
 * ({@code InputArrived}): bytes queued in the kernel's socket buffer are still on their way, and a
 * stream started beside them would share the link with them. A stream whose worker stops reading
 * (busy with its previous chunk: its connection takes nothing for {@link #STALL_MILLIS}) leaves the
 * wire and gives its place to the next; it asks again, at its rank, when its connection drains. A
 * stream whose worker never says its input arrived leaves the wire {@link #PATIENCE_MILLIS} after its
 * last byte was queued.
 *
 * <p>Every {@link #WINDOW_MILLIS} the port tells the egress estimator what it sent and which streams
 * had bytes waiting all through: the egress is floored by what went out, and measured when streams
 * together went slower than their links allow. A transfer that crossed such a moment does not
 * measure its link ({@link #arrived} says so).
 *
 * <p>How: a stream runs on its channel's event loop. Each slice goes out as a small header
 * ({@link DataFrames}) followed by a {@link FileSlice}, so the bytes go from the page cache to the
 * socket without passing through the heap (sendfile). Over TLS the bytes must be encrypted by the
 * connection's {@link SslHandler}, which takes buffers only: each slice is read from the file into
 * a pooled direct buffer of {@link #TLS_SLICE_BYTES} at most. Slices are written while the channel is
 * writable (Netty's write-buffer watermarks, which count file regions through the channel's
 * {@link FileRegionSizeEstimator}).
 */
final class SendPort {
  private static final Logger log = LoggerFactory.getLogger(SendPort.class);

  /** Told when a stream's last slice is queued on its connection. */
  interface Listener {
    void streamed(long bytes, double seconds);
  }

  /** Slices of a stream over TLS: read into memory, so kept small. */
  static final int TLS_SLICE_BYTES = 256 * 1024;
  /** A connection that takes no byte for this long is a worker not reading: its stream leaves the wire. */
  static final long STALL_MILLIS = 1_000;
  /** How long after its last byte was queued a stream stays on the wire without its worker's word. */
  static final long PATIENCE_MILLIS = 30_000;
  /** The egress estimator's windows. */
  static final long WINDOW_MILLIS = 250;

  private enum State { WAITING, SENDING, SENT, STALLED, DONE }

  /**
   * {@link MasterConfig#SENDS_SHARE}: every stream goes at once; {@link MasterConfig#SENDS_FIT}: streams fit in the
   * egress; n at least 1: at most n links on the wire, whatever their rates.
   */
  private final int fixed;
  private final boolean fit;
  private final EgressEstimator egress = new EgressEstimator();
  /** By rank; between equal ranks (a plan that gives no order), the faster link first, as DISTRIB orders. */
  private final PriorityQueue<Stream> waiting = new PriorityQueue<>(SendPort::serveBefore);
  private final Set<Stream> onWire = new HashSet<>();
  private final Map<String, Stream> byChunk = new HashMap<>();
  /** Each connection's unfinished streams, in the order they were asked for. */
  private final Map<Channel, Deque<Stream>> byChannel = new HashMap<>();
  private final AtomicLong accepted = new AtomicLong();
  /** Each connection's link as the port measured it last (a transfer that had the link to itself), bytes/s. */
  private final Map<Channel, Double> measured = new HashMap<>();
  /** Bytes of chunk input each connection took, for the stall check. */
  private final Map<Channel, long[]> acceptedByChannel = new HashMap<>();
  private final long t0 = System.nanoTime();
  private long seq;
  /** The windows' timer, while there are streams; what the last window saw. */
  private ScheduledFuture<?> windows;
  private double windowStart;
  private long windowAccepted;
  private Set<Stream> windowSending = Set.of();

  /** @param sends {@link MasterConfig#SENDS_SHARE}, {@link MasterConfig#SENDS_FIT}, or n at least 1 for n at once */
  SendPort(int sends) {
    if (sends < MasterConfig.SENDS_FIT) {
      throw new IllegalArgumentException("concurrent sends must be share, fit or at least 1, got " + sends);
    }
    this.fit = sends == MasterConfig.SENDS_FIT;
    this.fixed = sends == MasterConfig.SENDS_SHARE ? Integer.MAX_VALUE : Math.max(sends, 0);
  }

  /** The egress as measured (or floored, see {@link #egressBound}), bytes/s; NaN before anything was sent. */
  synchronized double egress() {
    return egress.egress();
  }

  /** Whether the egress was seen to bind: {@link #egress} is then a measure, else a floor. */
  synchronized boolean egressBound() {
    return egress.bound();
  }

  /**
   * The port's order: by rank; then by link, the fastest first (one not measured yet before all, so
   * that it is measured); then in the order asked.
   */
  static int serveBefore(Stream a, Stream b) {
    if (a.rank != b.rank) {
      return Integer.compare(a.rank, b.rank);
    }
    double ra = Double.isNaN(a.linkRate) ? Double.POSITIVE_INFINITY : a.linkRate;
    double rb = Double.isNaN(b.linkRate) ? Double.POSITIVE_INFINITY : b.linkRate;
    if (ra != rb) {
      return Double.compare(rb, ra);
    }
    return Long.compare(a.seq, b.seq);
  }

  /** Queues the input bytes {@code [from, to)} of a chunk for its worker's channel, its link taken as {@code linkRate}. */
  void enqueue(Channel channel, String job, long chunkId, FileInputSource input, long from, long to, int rank,
      double linkRate, Listener listener) {
    boolean firstOnChannel;
    synchronized (this) {
      Stream s = new Stream(channel, job, chunkId, input, from, to, rank, seq++, linkRate, listener);
      waiting.add(s);
      byChunk.put(key(job, chunkId), s);
      Deque<Stream> mine = byChannel.get(channel);
      firstOnChannel = mine == null;
      if (firstOnChannel) {
        mine = new ArrayDeque<>();
        byChannel.put(channel, mine);
      }
      mine.add(s);
      if (windows == null) {
        windowStart = seconds();
        windowAccepted = accepted.get();
        windowSending = Set.of();
        windows = channel.eventLoop().scheduleAtFixedRate(this::window, WINDOW_MILLIS, WINDOW_MILLIS,
            TimeUnit.MILLISECONDS);
      }
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

  private double seconds() {
    return (System.nanoTime() - t0) / 1e9;
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

  /**
   * The worker on {@code channel} says the chunk's input has all arrived ({@code bytes} in {@code
   * seconds} from the first to the last): its stream leaves the wire. Whether its transfer measured its
   * link: false when the stream shared a bound egress, waited on a worker that did not read, or is not
   * known here.
   */
  boolean arrived(Channel channel, String job, long chunkId, long bytes, double seconds) {
    Stream s;
    boolean clean;
    synchronized (this) {
      s = byChunk.get(key(job, chunkId));
      if (s == null || s.channel != channel) {
        return false;
      }
      clean = !s.everStalled && s.startSeconds >= 0 && egress.clean(s.startSeconds, seconds());
      if (clean && bytes > 0 && seconds > 0) {
        // the streams asked for before this measure go by it too
        measured.put(channel, bytes / seconds);
      }
    }
    s.channel.eventLoop().execute(() -> s.finish(null));
    return clean;
  }

  /** Called by the connection when its channel becomes writable again: its stream goes on, or asks again. */
  void writable(Channel channel) {
    Stream head = null;
    boolean ask = false;
    synchronized (this) {
      Deque<Stream> mine = byChannel.get(channel);
      if (mine != null) {
        for (Stream s : mine) {
          if (s.state == State.SENDING) {
            head = s;
            break;
          }
          if (s.state == State.STALLED) {
            s.state = State.WAITING;
            waiting.add(s);
            ask = true;
            break;
          }
        }
      }
    }
    if (head != null) {
      channel.eventLoop().execute(head::pump);
    }
    if (ask) {
      startMore();
    }
  }

  private void closed(Channel channel) {
    List<Stream> streams;
    synchronized (this) {
      acceptedByChannel.remove(channel);
      measured.remove(channel);
      Deque<Stream> mine = byChannel.remove(channel);
      streams = mine == null ? List.of() : new ArrayList<>(mine);
    }
    for (Stream s : streams) {
      s.finish("worker connection closed");
    }
  }

  /** The rule as it stands: fit the egress as now estimated, or the fixed count. */
  private PortRule rule() {
    return fit ? egress.rule(Integer.MAX_VALUE) : new PortRule(fixed, Double.POSITIVE_INFINITY);
  }

  /**
   * A stream's link: the port's own last measure of it, else the controller's when the stream was
   * asked for (NaN: not known). Under the port's lock.
   */
  private double link(Stream s) {
    Double m = measured.get(s.channel);
    return m != null ? m : s.linkRate;
  }

  /** A stream's link for the rule: unless streams fit the egress, an unknown link does not keep others off the wire. */
  private double rateForRule(Stream s) {
    double r = link(s);
    return !fit && Double.isNaN(r) ? 0 : r;
  }

  /**
   * Starts the best-ranked waiting streams whose turn on their connection has come, while the rule
   * lets them: in rank order, the first that does not fit keeps the ones after it waiting.
   */
  private void startMore() {
    List<Stream> start = new ArrayList<>();
    synchronized (this) {
      PortRule rule = rule();
      // one rate per link on the wire: a worker's next stream queues behind its earlier ones on the same link
      Map<Channel, Double> links = new HashMap<>();
      for (Stream s : onWire) {
        links.put(s.channel, rateForRule(s));
      }
      List<Stream> notYet = new ArrayList<>();
      while (!waiting.isEmpty()) {
        Stream s = waiting.peek();
        if (s.state != State.WAITING) {
          waiting.poll();
          continue;
        }
        if (!turnCame(s)) {
          notYet.add(waiting.poll());
          continue;
        }
        if (!links.containsKey(s.channel) && !(unordered(s) ? mayShare(links, s)
            : rule.mayStart(links.values(), rateForRule(s)))) {
          break;
        }
        waiting.poll();
        s.state = State.SENDING;
        if (s.startSeconds < 0) {
          s.startSeconds = seconds();
        }
        onWire.add(s);
        links.put(s.channel, rateForRule(s));
        start.add(s);
      }
      waiting.addAll(notYet);
    }
    for (Stream s : start) {
      s.channel.eventLoop().execute(s::pump);
    }
  }

  /**
   * Whether the stream comes from a plan that gives no order (chunks to whoever is free): its streams
   * share the egress as TCP shares it, which keeps the fastest links busiest, since their workers come
   * back for more sooner. Only when streams fit the egress (otherwise every stream is admitted so).
   */
  private boolean unordered(Stream s) {
    return fit && s.rank == Integer.MAX_VALUE;
  }

  /** Whether a stream of an unordered plan may share the wire: once its link and those on the wire are known. */
  private boolean mayShare(Map<Channel, Double> links, Stream s) {
    if (links.isEmpty()) {
      return true;
    }
    if (Double.isNaN(link(s))) {
      return false;
    }
    for (double r : links.values()) {
      if (Double.isNaN(r)) {
        return false;
      }
    }
    return true;
  }

  /** Whether every stream asked before {@code s} on its connection has all been queued. Under the port's lock. */
  private boolean turnCame(Stream s) {
    Deque<Stream> mine = byChannel.get(s.channel);
    if (mine == null) {
      return false;
    }
    for (Stream before : mine) {
      if (before == s) {
        return true;
      }
      if (before.state != State.SENT && before.state != State.DONE) {
        return false;
      }
    }
    return false;
  }

  /** One window of the egress estimator; ends the timer once no stream is left. */
  private void window() {
    boolean more = false;
    synchronized (this) {
      double now = seconds();
      long total = accepted.get();
      Set<Stream> sending = new HashSet<>();
      for (Stream s : onWire) {
        if (s.state == State.SENDING) {
          sending.add(s);
        }
      }
      int through = 0;
      double linkSum = 0;
      for (Stream s : sending) {
        if (windowSending.contains(s)) {
          through++;
          linkSum += link(s);
        }
      }
      PortRule before = egress.rule(Integer.MAX_VALUE);
      egress.window(windowStart, now, total - windowAccepted, through, linkSum);
      more = !egress.rule(Integer.MAX_VALUE).equals(before);
      windowStart = now;
      windowAccepted = total;
      windowSending = sending;
      if (byChunk.isEmpty() && windows != null) {
        windows.cancel(false);
        windows = null;
      }
    }
    if (more) {
      startMore();
    }
  }

  /** Bytes of chunk input the connection took so far (of any of its streams). Under the port's lock. */
  private long channelAccepted(Channel channel) {
    long[] n = acceptedByChannel.get(channel);
    return n == null ? 0 : n[0];
  }

  /**
   * A parked stream whose connection took nothing since the last look leaves the wire; one that took
   * some (its own bytes or those of the worker's streams queued before it) is looked at again later.
   */
  private void checkStall(Stream s, long parking, long acceptedBefore) {
    boolean stalled = false;
    long acceptedNow = -1;
    synchronized (this) {
      if (s.state != State.SENDING || !s.parked || s.parkings != parking) {
        return;
      }
      if (channelAccepted(s.channel) == acceptedBefore) {
        s.state = State.STALLED;
        s.everStalled = true;
        onWire.remove(s);
        stalled = true;
      } else {
        acceptedNow = channelAccepted(s.channel);
      }
    }
    if (!stalled) {
      long seen = acceptedNow;
      s.channel.eventLoop().schedule(() -> checkStall(s, parking, seen), STALL_MILLIS, TimeUnit.MILLISECONDS);
      return;
    }
    if (stalled) {
      log.debug("stream of chunk {} of job {}: its worker reads nothing; the port serves the next", s.chunkId, s.job);
      // it may have drained between the last check and now
      if (s.channel.isWritable()) {
        writable(s.channel);
      }
      startMore();
    }
  }

  private void finished(Stream s) {
    synchronized (this) {
      onWire.remove(s);
      waiting.remove(s);
      byChunk.remove(key(s.job, s.chunkId), s);
      Deque<Stream> mine = byChannel.get(s.channel);
      if (mine != null) {
        mine.remove(s);
      }
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
    final double linkRate;
    final Listener listener;
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
    double startSeconds = -1;
    volatile boolean done;

    Stream(Channel channel, String job, long chunkId, FileInputSource input, long from, long to, int rank, long seq,
        double linkRate, Listener listener) {
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
      synchronized (SendPort.this) {
        if (state != State.SENDING) {
          return;
        }
        parked = false;
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
          accepted.addAndGet(more);
          synchronized (SendPort.this) {
            acceptedByChannel.computeIfAbsent(channel, c -> new long[1])[0] += more;
          }
        }
      }
    }

    /** All its bytes are queued: it stays on the wire until its worker says they arrived. */
    private void sent() {
      synchronized (SendPort.this) {
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
        synchronized (SendPort.this) {
          late = state == State.SENT;
        }
        if (late) {
          log.warn("worker at {} did not say within {} s that the input of chunk {} of job {} arrived; the port"
              + " no longer counts it on the wire", channel.remoteAddress(), PATIENCE_MILLIS / 1000, chunkId, job);
          finish(null);
        }
      }, PATIENCE_MILLIS, TimeUnit.MILLISECONDS);
      // the next stream of this connection may go now
      startMore();
    }

    private void park() {
      long acceptedNow;
      long parking;
      synchronized (SendPort.this) {
        parked = true;
        parking = ++parkings;
        acceptedNow = channelAccepted(channel);
      }
      channel.eventLoop().schedule(() -> checkStall(this, parking, acceptedNow), STALL_MILLIS, TimeUnit.MILLISECONDS);
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
      synchronized (SendPort.this) {
        if (done) {
          return;
        }
        done = true;
        state = State.DONE;
      }
      if (why != null) {
        log.debug("stream of chunk {} of job {} ended early: {}", chunkId, job, why);
      }
      finished(this);
    }
  }
}
