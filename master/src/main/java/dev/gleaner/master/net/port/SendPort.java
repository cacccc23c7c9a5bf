package dev.gleaner.master.net.port;

import dev.gleaner.common.port.EgressEstimator;
import dev.gleaner.common.port.PortRule;
import dev.gleaner.common.port.Sends;
import dev.gleaner.master.loop.FileInputSource;
import dev.gleaner.master.loop.StreamBatch;
import io.netty.channel.Channel;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The master's port for chunk input: streams a chunk's bytes to its worker as Data frames, served
 * by increasing rank (the worker's place in the plan's service order), then in the order asked, as
 * many at once as its mode lets: by default all at once, sharing the master's egress as TCP shares it;
 * in the fit mode, the streams whose links fit together in the egress ({@link PortRule}), learned as it
 * sends ({@link EgressEstimator}); with a fixed count, that many links. One worker's streams go out in
 * the order they were asked for, because the worker consumes its chunks in that order: when the port
 * shares, each after the one before it has all been queued; when it keeps an order, each after the
 * one before it has arrived, and then by the port's order.
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
 * had bytes waiting all through: the egress is floored by what arrived and by each link's estimate,
 * and measured when streams together went slower than their links allow. A transfer that crossed
 * such a moment does not measure its link ({@link #arrived} says so). While a long input streams
 * in, its worker's word of its pace measures the link when nothing else on the wire explains it
 * ({@link #paced}): a link cut under a long transfer shows before the transfer ends.
 *
 * <p>The streams of one batch of the controller's decisions are weighed together ({@link #begin}).
 * The streams themselves, and the writing of their bytes, are {@link PortStream}s.
 */
public final class SendPort implements PortStream.Port, StreamBatch {
  private static final Logger log = LoggerFactory.getLogger(SendPort.class);

  /** Told when a stream's last slice is queued on its connection. */
  public interface Listener {
    void streamed(long bytes, double seconds);
  }

  /** Slices of a stream over TLS: read into memory, so kept small. */
  static final int TLS_SLICE_BYTES = 256 * 1024;
  /** A connection that takes no byte for this long is a worker not reading: its stream leaves the wire. */
  static final long STALL_MILLIS = 1_000;
  /** How long after its last byte was queued a stream stays on the wire without its worker's word. */
  static final long PATIENCE_MILLIS = 30_000;
  /**
   * A transfer or a pace below this share of what the egress would have given it beside the links on the
   * wire with it ({@link Paces#fairShare}) was held by its own link, not by the egress: one slower than
   * its link ({@link EgressEstimator#SLOWER_THAN_LINK}) measures the link only so, or alone on the wire;
   * beside others, never one too small for its link ({@link EgressEstimator#tooSmallToMeasure}).
   */
  static final double BELOW_FAIR_SHARE = 0.9;
  /** The egress estimator's windows. */
  static final long WINDOW_MILLIS = Math.round(EgressEstimator.WINDOW_SECONDS * 1000);

  /**
   * {@link Sends#SHARE}: every stream goes at once; {@link Sends#FIT}: streams fit in the egress; n at least 1:
   * at most n links on the wire, whatever their rates.
   */
  private final int fixed;
  private final boolean fit;
  /** The code of {@link Sends} the port was made with. */
  private final int sends;
  private final EgressEstimator egress = EgressEstimator.fromArrivals();
  /** In the port's order, {@link PortRule#serveBefore}. */
  private final PriorityQueue<PortStream> waiting =
      new PriorityQueue<>((a, b) -> PortRule.serveBefore(a.rank, a.linkRate, a.seq, b.rank, b.linkRate, b.seq));
  private final Set<PortStream> onWire = new HashSet<>();
  private final Map<String, PortStream> byChunk = new HashMap<>();
  /** Each connection's unfinished streams, in the order they were asked for. */
  private final Map<Channel, Deque<PortStream>> byChannel = new HashMap<>();
  private final AtomicLong accepted = new AtomicLong();
  /** Each connection's last arrival (the worker's word), and its last that came slow. */
  private final Map<Channel, Arrivals> arrivals = new HashMap<>();
  /**
   * Each connection's link as the port measured it last (a transfer that had the link to itself, or
   * a cut its paces showed), bytes/s.
   */
  private final Map<Channel, Double> measured = new HashMap<>();
  /**
   * The rate of each connection's last transfer, measure or not (a share of the egress is less than
   * the link), bytes/s: what a pace is held to while the link has no measure ({@link #paced}).
   */
  private final Map<Channel, Double> lastRate = new HashMap<>();
  /** Which links were on the wire when, and the runs of paces far below a link. */
  private final Paces paces = new Paces();
  /** Bytes of chunk input each connection took, for the stall check. */
  private final Map<Channel, long[]> acceptedByChannel = new HashMap<>();
  /** The port's clock, nanoseconds. */
  private final LongSupplier nanos;
  private final long t0;
  private long seq;
  /** Batches being queued ({@link #begin}): while one is, no stream starts. */
  private int batches;
  /** The windows' timer, while there are streams; what the last window saw. */
  private ScheduledFuture<?> windows;
  private final EgressWindow egressWindow = new EgressWindow();
  /** The word of a stream that ended while a batch was being queued, for the batch's end to start from; else NaN. */
  private double freedPending = Double.NaN;
  /** Told each stream's handover, seconds ({@link #onHandover}). */
  private volatile DoubleConsumer handovers = seconds -> { };

  /** @param sends a code of {@link Sends} */
  public SendPort(int sends) {
    this(sends, System::nanoTime);
  }

  /** With its clock ({@code nanos}: a {@link System#nanoTime}), for tests. */
  SendPort(int sends, LongSupplier nanos) {
    this.nanos = nanos;
    this.t0 = nanos.getAsLong();
    if (!Sends.valid(sends)) {
      throw new IllegalArgumentException("concurrent sends must be share, fit or at least 1, got " + sends);
    }
    this.sends = sends;
    this.fit = sends == Sends.FIT;
    this.fixed = sends == Sends.SHARE ? Integer.MAX_VALUE : Math.max(sends, 0);
  }

  /**
   * Tells {@code to} each stream's handover, seconds: how long it held the port beyond its bytes' own
   * time, the wire idle around it. The port's span, first byte sent to the worker's word, less the
   * worker's, first byte read to last (the first bytes' way there and the word's way back), and the
   * time from the word of the stream before it to its start when that word let it on (the port's turn).
   * A lower bound: a stream whose port span passes its worker's by more than a tenth tells nothing (a
   * late read, whose bytes waited in the worker's buffer, looks the same), nor does one whose worker
   * stopped reading, or one that followed its connection's stream before it on the wire.
   */
  public void onHandover(DoubleConsumer to) {
    handovers = Objects.requireNonNull(to);
  }

  /** The egress as measured (or floored, see {@link #egressBound}), bytes/s; NaN before anything was sent. */
  public synchronized double egress() {
    return egress.egress();
  }

  /** Whether the egress was seen to bind: {@link #egress} is then a measure, else a floor. */
  public synchronized boolean egressBound() {
    return egress.bound();
  }

  /** Queues the input bytes {@code [from, to)} of a chunk for its worker's channel, its link taken as {@code linkRate}. */
  public void enqueue(Channel channel, String job, long chunkId, FileInputSource input, long from, long to, int rank,
      double linkRate, Listener listener) {
    boolean firstOnChannel;
    synchronized (this) {
      PortStream s = new PortStream(this, channel, job, chunkId, input, from, to, rank, seq++, linkRate, listener);
      waiting.add(s);
      byChunk.put(key(job, chunkId), s);
      Deque<PortStream> mine = byChannel.get(channel);
      firstOnChannel = mine == null;
      if (firstOnChannel) {
        mine = new ArrayDeque<>();
        byChannel.put(channel, mine);
      }
      mine.add(s);
      if (windows == null) {
        egressWindow.begin(seconds(), accepted.get());
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

  /** A batch of streams is being queued: none starts until its {@link #end}. */
  @Override
  public synchronized void begin() {
    batches++;
  }

  /** The batch is queued: the best-ranked of what waits start. */
  @Override
  public void end() {
    synchronized (this) {
      batches--;
    }
    startMore();
  }

  private static String key(String job, long chunkId) {
    return job + "#" + chunkId;
  }

  private double seconds() {
    return (nanos.getAsLong() - t0) / 1e9;
  }

  /** The chunk now ends at {@code end}: bytes from there on are not sent. */
  public void truncate(String job, long chunkId, long end) {
    PortStream s;
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
  public void cancel(String job, long chunkId) {
    PortStream s;
    synchronized (this) {
      s = byChunk.get(key(job, chunkId));
    }
    if (s != null) {
      s.channel.eventLoop().execute(() -> s.finish("cancelled"));
    }
  }

  /**
   * The worker on {@code channel} says the chunk's input has all arrived ({@code bytes} in {@code
   * seconds} from the first to the last; {@code pacedSeconds} at the pace of what came after its first
   * read, 0 if it could not tell): its stream leaves the wire. What its transfer measured. When the
   * worker read the first bytes late ({@link InputArrival#LATE_READ}) its time is the paced one, else
   * the port's own (first byte sent to the worker's word), which holds the word's way back: a tenth of
   * a second and more on a worker's first chunk, its JVM cold (a 9.56 MB/s link looked like 3.2).
   */
  public InputArrival arrived(Channel channel, String job, long chunkId, long bytes, double seconds,
      double pacedSeconds) {
    PortStream s;
    boolean clean;
    boolean held;
    double handover = Double.NaN;
    synchronized (this) {
      s = byChunk.get(key(job, chunkId));
      if (s == null || s.channel != channel) {
        return InputArrival.unknown(seconds);
      }
      double known = link(s);
      double now = seconds();
      // its bytes began to arrive when it started, or when the connection's stream before it had arrived
      Arrivals before = arrivals.getOrDefault(channel, Arrivals.NONE);
      double from = Math.max(s.startSeconds, before.lastAt());
      s.arrivedSeconds = now;
      // not one that followed the connection's stream before it on the wire: its bytes flowed behind that one's
      if (!s.everStalled && s.startSeconds >= before.lastAt() && !InputArrival.readLate(seconds, now - from)) {
        handover = s.startDelay + Math.max(0, now - from - seconds);
      }
      if (!s.everStalled && s.startSeconds >= 0 && InputArrival.readLate(seconds, now - from)) {
        // at the pace after its first read if the worker could tell it; else from the port's first byte sent
        // to the worker's word of its last: long by the word's way back, not a late read short
        seconds = pacedSeconds > seconds ? Math.min(pacedSeconds, now - from) : now - from;
      }
      boolean slower = !Double.isNaN(known) && seconds > 0
          && bytes / seconds < EgressEstimator.SLOWER_THAN_LINK * known;
      // queued behind one of the connection's that came slow (its worker reading slowly or not at all, or a
      // share), its first bytes waited in the worker's buffer while that one was read, and its span leaves
      // the wait out (a 9.56 MB/s link looked like 11.3): no measure, unless it still came slower than the
      // link is known to do, which the wait cannot have caused
      boolean behindSlow = before.slowAt() > s.startSeconds && !slower;
      arrivals.put(channel, before.next(now, slower || s.everStalled));
      // a rate below what the link is known to do says the link got slower when the stream had the wire to
      // itself, or when it came below its fair share of the egress beside the links on the wire with it;
      // else it may be a share of the egress
      held = s.crowded && belowFairShare(channel, bytes / seconds, s.startSeconds);
      boolean share = slower && s.crowded && !held;
      // one that crossed a cut its paces showed mixes the rate before it, the cut and TCP's recovery from it
      clean = !s.everStalled && !s.cutAcross && s.startSeconds >= 0
          && seconds >= EgressEstimator.TIMED_MIN_SECONDS
          && !(s.crowded && EgressEstimator.tooSmallToMeasure(bytes, known))
          && egress.clean(s.startSeconds, now) && !share && !behindSlow;
      egress.carried(s.linkRate); // the link as the controller knew it went through the egress
      if (bytes > 0 && seconds > 0) {
        lastRate.put(channel, bytes / seconds);
      }
      if (!s.everStalled) {
        // a worker that stopped reading takes its socket buffer in one go: its span says nothing of the wire
        egress.arrived(now - seconds, now, bytes, known, channel.id());
      }
      if (clean && bytes > 0 && seconds > 0) {
        // the streams asked for before this measure go by it too
        measured.put(channel, bytes / seconds);
        paces.forget(channel);
        if (!s.crowded) {
          egress.alone(bytes, seconds);
        }
      }
      if (log.isDebugEnabled()) {
        log.debug(String.format(Locale.ROOT, "chunk %d of job %s arrived at %s: %d bytes in %.3f s (%.4g bytes/s; link"
            + " known %.4g), %s; the egress %.4g (%s)", chunkId, job, channel.remoteAddress(), bytes, seconds,
            bytes / seconds, known, clean ? "clean" : "not clean", egress.egress(), egress.bound() ? "bound" : "floor"));
      }
    }
    s.channel.eventLoop().execute(() -> s.finish(null));
    if (!Double.isNaN(handover)) {
      handovers.accept(handover);
    }
    return new InputArrival(clean, !s.crowded || held, seconds);
  }

  /**
   * The worker on {@code channel} read {@code bytes} of the chunk's input over the last {@code
   * seconds}, as they came ({@code InputPace}); the cut its link shows, if it does (else null). The
   * pace measures the link when the chunk's stream was on the wire all through and never stalled,
   * and either no other link was on the wire meanwhile or the others cannot explain it: a pace beside
   * others may be a share of the egress, but not one below {@link #BELOW_FAIR_SHARE} of its fair share beside
   * them, all at once at their links' rates (a cut link beside thin ones coming and going, the egress
   * half empty, is still measured; so is one that gets less than a fatter link beside it). A run of
   * such measures far below the link the port knows (else its last transfer's rate; {@link
   * Paces#paced}) is a cut: the port's rule takes the link at its new rate from now on, as after an
   * arrival (other links fit beside a cut one before its long transfer ends), and that transfer's
   * arrival, which mixes the link before and after, is no measure.
   */
  public LinkCut paced(Channel channel, String job, long chunkId, long bytes, double seconds) {
    LinkCut cut = null;
    synchronized (this) {
      PortStream s = byChunk.get(key(job, chunkId));
      if (s == null || s.channel != channel || !onWire.contains(s) || !(bytes > 0) || !(seconds > 0)) {
        return null;
      }
      double now = seconds();
      double rate = bytes / seconds;
      boolean measure = !s.everStalled && s.startSeconds >= 0 && s.startSeconds <= now - seconds
          && belowFairShare(channel, rate, now - seconds);
      // held to the link as known, else to what its last transfer did (a share is less than the link)
      double known = link(s);
      if (Double.isNaN(known)) {
        known = lastRate.getOrDefault(channel, Double.NaN);
      }
      cut = paces.paced(channel, s, rate, seconds, known, measure);
      if (cut != null) {
        measured.put(channel, cut.bytesPerSecond());
        s.cutAcross = true;
      }
      if (log.isDebugEnabled()) {
        log.debug(String.format(Locale.ROOT, "chunk %d of job %s at %s: %d bytes in the last %.3f s (%.4g bytes/s),"
            + " %s%s", chunkId, job, channel.remoteAddress(), bytes, seconds, rate,
            measure ? "its link's pace" : "not a measure of its link", cut != null ? "; its link was cut" : ""));
      }
    }
    if (cut != null) {
      startMore();
    }
    return cut;
  }

  /**
   * Under the port's lock: whether {@code rate} is below {@link #BELOW_FAIR_SHARE} of the link's fair share of
   * the egress beside the other links on the wire since {@code from}, all at once at their rates
   * ({@link Paces#fairShare}), so that it is the link's own and not a share (false when that is not
   * known).
   */
  private boolean belowFairShare(Channel channel, double rate, double from) {
    return rate < BELOW_FAIR_SHARE * paces.fairShare(channel, from, egress.egress());
  }

  /** The port's last measure of the connection's link (bytes/s), NaN if none: for tests. */
  synchronized double measured(Channel channel) {
    Double m = measured.get(channel);
    return m == null ? Double.NaN : m;
  }

  /** Under the port's lock, after streams went on or off the wire: which links are on it from now on. */
  private void wireChanged() {
    Map<Channel, Double> links = new HashMap<>();
    for (PortStream s : onWire) {
      links.putIfAbsent(s.channel, link(s));
    }
    paces.onWire(seconds(), links);
  }

  /** Called by the connection when its channel becomes writable again: its stream goes on, or asks again. */
  public void writable(Channel channel) {
    PortStream head = null;
    boolean ask = false;
    synchronized (this) {
      Deque<PortStream> mine = byChannel.get(channel);
      if (mine != null) {
        for (PortStream s : mine) {
          if (s.state == PortStream.State.SENDING) {
            head = s;
            break;
          }
          if (s.state == PortStream.State.STALLED) {
            s.state = PortStream.State.WAITING;
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
    List<PortStream> streams;
    synchronized (this) {
      acceptedByChannel.remove(channel);
      measured.remove(channel);
      paces.forget(channel);
      arrivals.remove(channel);
      lastRate.remove(channel);
      Deque<PortStream> mine = byChannel.remove(channel);
      streams = mine == null ? List.of() : new ArrayList<>(mine);
    }
    for (PortStream s : streams) {
      s.finish("worker connection closed");
    }
  }

  /** The port as a plan should assume it ({@link Sends#planRule}), with the egress as now estimated. */
  public synchronized PortRule planRule() {
    return Sends.planRule(sends, egress.rule(Integer.MAX_VALUE));
  }

  /** The rule as it stands: fit the egress as now estimated, or the fixed count. */
  private PortRule rule() {
    return fit ? egress.rule(Integer.MAX_VALUE) : new PortRule(fixed, Double.POSITIVE_INFINITY);
  }

  /**
   * A stream's link: the port's own last measure of it, else the controller's when the stream was
   * asked for (NaN: not known). Under the port's lock.
   */
  private double link(PortStream s) {
    Double m = measured.get(s.channel);
    return m != null ? m : s.linkRate;
  }

  /** A stream's link for the rule: unless streams fit the egress, an unknown link does not keep others off the wire. */
  private double rateForRule(PortStream s) {
    double r = link(s);
    return !fit && Double.isNaN(r) ? 0 : r;
  }

  /**
   * Starts the best-ranked waiting streams whose turn on their connection has come, while the rule
   * lets them: in rank order, the first that does not fit keeps the ones after it waiting.
   */
  @Override
  public void startMore() {
    startMore(Double.NaN);
  }

  /** Lets streams on; {@code freedAt}: when the word came of the stream whose end calls it, else NaN. */
  private void startMore(double freedAt) {
    List<PortStream> start = new ArrayList<>();
    synchronized (this) {
      if (batches > 0) {
        // the batch's end starts them, all of its streams weighed together: what this end would have let on
        // waited since its word
        if (!Double.isNaN(freedAt)) {
          freedPending = freedAt;
        }
        return;
      }
      if (Double.isNaN(freedAt)) {
        freedAt = freedPending;
      }
      freedPending = Double.NaN;
      PortRule rule = rule();
      // one rate per link on the wire: a worker's next stream queues behind its earlier ones on the same link
      Map<Channel, Double> links = new HashMap<>();
      for (PortStream s : onWire) {
        links.put(s.channel, rateForRule(s));
      }
      List<PortStream> notYet = new ArrayList<>();
      while (!waiting.isEmpty()) {
        PortStream s = waiting.peek();
        if (s.state != PortStream.State.WAITING) {
          waiting.poll();
          continue;
        }
        if (!turnCame(s)) {
          notYet.add(waiting.poll());
          continue;
        }
        if (!links.containsKey(s.channel)
            && !(unordered(s) ? PortRule.ALL_KNOWN : rule).mayStart(links.values(), rateForRule(s))) {
          break;
        }
        waiting.poll();
        s.state = PortStream.State.SENDING;
        if (s.startSeconds < 0) {
          s.startSeconds = seconds();
          // let on by the end of the one before it: the port's turn from that one's word to this start
          s.startDelay = Double.isNaN(freedAt) ? 0 : Math.max(0, s.startSeconds - freedAt);
        }
        onWire.add(s);
        links.put(s.channel, rateForRule(s));
        start.add(s);
      }
      waiting.addAll(notYet);
      if (!start.isEmpty()) {
        wireChanged();
      }
      if (links.size() > 1) {
        for (PortStream s : onWire) {
          s.crowded = true;
        }
      }
    }
    for (PortStream s : start) {
      s.channel.eventLoop().execute(s::pump);
    }
  }

  /**
   * Whether the stream comes from a plan that gives no order (chunks to whoever is free): its streams
   * share the egress as TCP shares it, which keeps the fastest links busiest, since their workers come
   * back for more sooner. Only when streams fit the egress (otherwise every stream is admitted so).
   */
  private boolean unordered(PortStream s) {
    return fit && s.rank == Integer.MAX_VALUE;
  }

  /**
   * Whether the stream may go now as far as its own connection goes: when the port keeps an order
   * (n links, or fit with a plan's order), once every stream asked before it on its connection has
   * arrived, so that the next one competes with the other workers' by the port's order (a worker's
   * streams sent back to back would keep a thin link on the wire while a faster one waits); when it
   * shares, once they have all been queued, so that the connection never idles between them. Under
   * the port's lock.
   */
  private boolean turnCame(PortStream s) {
    Deque<PortStream> mine = byChannel.get(s.channel);
    if (mine == null) {
      return false;
    }
    boolean inOrder = Sends.keepsOrder(sends, s.rank != Integer.MAX_VALUE);
    for (PortStream before : mine) {
      if (before == s) {
        return true;
      }
      if (before.state != PortStream.State.DONE && (inOrder || before.state != PortStream.State.SENT)) {
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
      Set<PortStream> sending = new HashSet<>();
      for (PortStream s : onWire) {
        if (s.state == PortStream.State.SENDING) {
          sending.add(s);
        }
      }
      PortRule before = egress.rule(Integer.MAX_VALUE);
      egressWindow.end(now, total, sending, this::link, this::accepted, egress);
      more = !egress.rule(Integer.MAX_VALUE).equals(before);
      if (byChunk.isEmpty() && windows != null) {
        windows.cancel(false);
        windows = null;
      }
    }
    if (more) {
      startMore();
    }
  }

  @Override
  public Object lock() {
    return this;
  }

  @Override
  public void accepted(Channel channel, long bytes) {
    accepted.addAndGet(bytes);
    synchronized (this) {
      acceptedByChannel.computeIfAbsent(channel, c -> new long[1])[0] += bytes;
    }
  }

  /** Bytes of chunk input the connection took so far (of any of its streams). Under the port's lock. */
  @Override
  public long accepted(Channel channel) {
    long[] n = acceptedByChannel.get(channel);
    return n == null ? 0 : n[0];
  }

  /**
   * A parked stream whose connection took nothing since the last look leaves the wire; one that took
   * some (its own bytes or those of the worker's streams queued before it) is looked at again later.
   */
  @Override
  public void checkStall(PortStream s, long parking, long acceptedBefore) {
    boolean stalled = false;
    long acceptedNow = -1;
    synchronized (this) {
      if (s.state != PortStream.State.SENDING || !s.parked || s.parkings != parking) {
        return;
      }
      if (accepted(s.channel) == acceptedBefore) {
        s.state = PortStream.State.STALLED;
        s.everStalled = true;
        onWire.remove(s);
        wireChanged();
        stalled = true;
      } else {
        acceptedNow = accepted(s.channel);
      }
    }
    if (!stalled) {
      long seen = acceptedNow;
      s.channel.eventLoop().schedule(() -> checkStall(s, parking, seen), STALL_MILLIS, TimeUnit.MILLISECONDS);
      return;
    }
    log.debug("stream of chunk {} of job {}: its worker reads nothing; the port serves the next", s.chunkId, s.job);
    // it may have drained between the last check and now
    if (s.channel.isWritable()) {
      writable(s.channel);
    }
    startMore();
  }

  /** Whether no stream to {@code channel} is waiting, sending, or waiting for its worker's word. */
  public synchronized boolean idle(Channel channel) {
    Deque<PortStream> mine = byChannel.get(channel);
    return mine == null || mine.isEmpty();
  }

  @Override
  public void finished(PortStream s) {
    double freedAt;
    synchronized (this) {
      freedAt = s.arrivedSeconds;
      onWire.remove(s);
      wireChanged();
      waiting.remove(s);
      byChunk.remove(key(s.job, s.chunkId), s);
      Deque<PortStream> mine = byChannel.get(s.channel);
      if (mine != null) {
        mine.remove(s);
      }
    }
    startMore(freedAt);
  }

  /** When a connection's last stream arrived, and its last that came slow (seconds of the port's clock). */
  private record Arrivals(double lastAt, double slowAt) {
    static final Arrivals NONE = new Arrivals(Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY);

    Arrivals next(double at, boolean slow) {
      return new Arrivals(at, slow ? at : slowAt);
    }
  }
}
