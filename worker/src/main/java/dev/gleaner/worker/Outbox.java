package dev.gleaner.worker;

import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.ChunkFailed;
import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.HeldChunk;
import dev.gleaner.protocol.Piece;
import io.netty.channel.Channel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's chunks and their pieces across connections: a piece stays here from the moment it
 * is computed until the master acknowledges it as durable. When the master goes away (a restart, a
 * cut), the worker keeps computing its chunks for their lease; on the next connection it claims
 * them in its Hello and sends the pieces not acknowledged again, in order, before any new one.
 *
 * <p>How: one lock orders everything that touches the current channel, so a piece computed while
 * the old pieces are being sent again cannot overtake them.
 */
final class Outbox implements ChunkRunner.Reporter {
  private static final Logger log = LoggerFactory.getLogger(Outbox.class);
  /** The lease of a chunk whose Assign named none. */
  static final long DEFAULT_LEASE_MS = 120_000;
  /** Bytes of pieces held while disconnected beyond which the worker stops computing until it reconnects. */
  static final long MAX_HELD_BYTES = 64L * 1024 * 1024;

  private static final class Entry {
    final Assign assign;
    long end;
    long acked;
    final ArrayDeque<Piece> unacked = new ArrayDeque<>();
    /** Its task is still running (or queued) in the runner. */
    boolean running = true;
    /** When, while disconnected, the worker stops computing it (nanoTime); 0 while connected. */
    long stopAt;
    /** End of the last piece computed ({@code acked} before any). */
    long sentEnd;

    Entry(Assign assign) {
      this.assign = assign;
      this.end = assign.getEnd();
      this.acked = assign.getStart();
      this.sentEnd = assign.getStart();
    }

    /** It computes no more: what it claims ends where its last piece ends. */
    void stopped() {
      running = false;
      end = Math.max(acked, Math.min(end, sentEnd));
    }

    long leaseNanos() {
      return (assign.getLeaseMs() > 0 ? assign.getLeaseMs() : DEFAULT_LEASE_MS) * 1_000_000L;
    }
  }

  private final Map<String, Entry> entries = new LinkedHashMap<>();
  private Channel channel;
  /** The master's frame limit: a larger piece goes out as PieceParts and a last Piece. */
  private int frameBytes = dev.gleaner.protocol.Framing.DEFAULT_MAX_FRAME_BYTES;
  private long unackedBytes;
  private int unackedPieces;

  /** Hooks into the runner, for what the outbox decides about running chunks. */
  interface Chunks {
    void cancel(String jobId, long chunkId);

    void cancelAll();
  }

  private Chunks chunks;
  private final WorkerCounters counters;

  Outbox() {
    this(new WorkerCounters());
  }

  Outbox(WorkerCounters counters) {
    this.counters = counters;
  }

  void chunks(Chunks c) {
    this.chunks = c;
  }

  synchronized void assigned(Assign a) {
    counters.chunksAssigned.increment();
    entries.put(ChunkTask.key(a.getJobId(), a.getChunkId()), new Entry(a));
  }

  synchronized void truncated(String jobId, long chunkId, long end) {
    Entry e = entries.get(ChunkTask.key(jobId, chunkId));
    if (e != null) {
      e.end = Math.max(e.acked, Math.min(e.end, end));
    }
  }

  /** The master cancelled the chunk: nothing of it is sent any more. */
  synchronized void forget(String jobId, long chunkId) {
    Entry e = entries.remove(ChunkTask.key(jobId, chunkId));
    if (e != null) {
      drop(e);
    }
  }

  private void drop(Entry e) {
    for (Piece p : e.unacked) {
      unackedBytes -= p.getSerializedSize();
      unackedPieces--;
    }
    e.unacked.clear();
  }

  @Override
  public synchronized void piece(Piece piece) {
    Entry e = entries.get(ChunkTask.key(piece.getJobId(), piece.getChunkId()));
    if (e == null || !e.running && piece.getEnd() > e.end) {
      // a chunk stopped here (its last piece slipped past the stop): what it claims ends before
      return;
    }
    e.sentEnd = Math.max(e.sentEnd, piece.getEnd());
    counters.piecesReported.increment();
    counters.unitsReported.add(piece.getEnd() - piece.getStart());
    e.unacked.add(piece);
    unackedBytes += piece.getSerializedSize();
    unackedPieces++;
    if (channel != null) {
      write(channel, piece);
      channel.flush();
    } else if (unackedBytes > MAX_HELD_BYTES && chunks != null) {
      log.warn("{} bytes of pieces wait for the master; computing stops until it is back", unackedBytes);
      chunks.cancelAll();
      for (Entry x : entries.values()) {
        x.stopped();
      }
    }
  }

  @Override
  public synchronized void failed(String jobId, long chunkId, String message) {
    counters.chunksFailed.increment();
    Entry gone = entries.remove(ChunkTask.key(jobId, chunkId));
    if (gone != null) {
      drop(gone);
    }
    if (channel != null) {
      channel.writeAndFlush(Envelope.newBuilder().setChunkFailed(ChunkFailed.newBuilder()
          .setJobId(jobId).setChunkId(chunkId).setMessage(message)).build());
    } else {
      log.warn("chunk {} of job {} failed while the master was away (it will be computed elsewhere): {}", chunkId,
          jobId, message);
    }
  }

  @Override
  public synchronized void ended(String jobId, long chunkId) {
    String key = ChunkTask.key(jobId, chunkId);
    Entry e = entries.get(key);
    if (e != null) {
      e.stopped();
      if (e.unacked.isEmpty()) {
        entries.remove(key);
      }
    }
  }

  /**
   * The master acknowledged the chunk's pieces up to {@code end}: made them durable ({@code counted}),
   * or discarded them.
   */
  synchronized void acked(String jobId, long chunkId, long end, boolean counted) {
    String key = ChunkTask.key(jobId, chunkId);
    Entry e = entries.get(key);
    if (e == null) {
      return;
    }
    while (!e.unacked.isEmpty() && e.unacked.peek().getEnd() <= end) {
      Piece p = e.unacked.poll();
      unackedBytes -= p.getSerializedSize();
      unackedPieces--;
      (counted ? counters.unitsAcknowledged : counters.unitsDiscarded).add(p.getEnd() - p.getStart());
    }
    e.acked = Math.max(e.acked, Math.min(e.end, end));
    // a running chunk stays until its task ends (ended()): truncated where the master had saved up to
    // (a cancel), it still reports what it computed since, as its final piece
    if (e.unacked.isEmpty() && !e.running) {
      entries.remove(key);
    }
  }

  /** What this worker holds, for the Hello of a new connection. */
  synchronized List<HeldChunk> claims() {
    List<HeldChunk> out = new ArrayList<>();
    for (Entry e : entries.values()) {
      if (e.end <= e.assign.getStart() || e.end <= e.acked) {
        continue;
      }
      HeldChunk.Builder h = HeldChunk.newBuilder().setJobId(e.assign.getJobId()).setChunkId(e.assign.getChunkId())
          .setStart(e.assign.getStart()).setEnd(e.end).setAcked(Math.min(e.acked, e.end));
      for (long k : e.assign.getCheckpointsList()) {
        if (k < e.end) {
          h.addCheckpoints(k);
        }
      }
      out.add(h.build());
    }
    return out;
  }

  /**
   * The connection was welcomed: the pieces not acknowledged go out again, in order, then new
   * pieces go straight through {@code c}. A held piece whose result is over this master's
   * {@code maxResultBytes} (a master restarted with a lower --max-result-mib) would be refused on
   * every connection: its chunk fails instead, after the pieces before it, and its units go to
   * others.
   */
  synchronized void connected(Channel c, int maxFrameBytes, long maxResultBytes) {
    frameBytes = maxFrameBytes;
    for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
      Entry e = it.next();
      e.stopAt = 0;
      Piece over = null;
      for (Piece p : e.unacked) {
        if (p.getResult().size() > maxResultBytes) {
          over = p;
          break;
        }
        write(c, p);
      }
      if (over != null) {
        String why = "the result of the piece at " + over.getStart() + " is " + over.getResult().size()
            + " bytes, over the master's limit of " + maxResultBytes + " bytes for one piece (gleaner master"
            + " --max-result-mib)";
        log.warn("chunk {} of job {} fails: {}", e.assign.getChunkId(), e.assign.getJobId(), why);
        if (e.running && chunks != null) {
          chunks.cancel(e.assign.getJobId(), e.assign.getChunkId());
        }
        drop(e);
        it.remove();
        counters.chunksFailed.increment();
        c.write(Envelope.newBuilder().setChunkFailed(ChunkFailed.newBuilder().setJobId(e.assign.getJobId())
            .setChunkId(e.assign.getChunkId()).setMessage(why)).build());
      }
    }
    c.flush();
    channel = c;
  }

  /**
   * Writes a piece as one frame, or, if its result is over a frame, as PieceParts of its leading
   * bytes and a Piece with the rest. Called under this object's lock, so nothing of another piece
   * comes in between.
   */
  private void write(Channel c, Piece p) {
    for (Envelope frame : PieceFrames.split(p, frameBytes)) {
      c.write(frame).addListener(f -> {
        if (!f.isSuccess() && c.isOpen()) {
          // the piece stays here, unacknowledged: the next connection sends it again
          log.warn("could not send a piece of chunk {} of job {} to the master ({}); connecting again", p.getChunkId(),
              p.getJobId(), f.cause() == null ? "?" : f.cause().toString(), f.cause());
          c.close();
        }
      });
    }
  }

  /**
   * The connection is gone: chunks go on for their lease, except those still waiting for input
   * (it will not come); pieces wait here.
   */
  synchronized void disconnected(Channel c, long nowNanos, java.util.function.Predicate<String> waitsForInput) {
    if (channel != c) {
      return;
    }
    channel = null;
    for (Iterator<Map.Entry<String, Entry>> it = entries.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Entry> me = it.next();
      Entry e = me.getValue();
      if (e.running && waitsForInput.test(me.getKey())) {
        chunks.cancel(e.assign.getJobId(), e.assign.getChunkId());
        e.stopped();
        if (e.unacked.isEmpty()) {
          it.remove();
        }
      } else {
        e.stopAt = nowNanos + e.leaseNanos();
      }
    }
  }

  /** While disconnected: chunks past their lease stop and are no longer claimed. */
  synchronized void expire(long nowNanos) {
    if (channel != null) {
      return;
    }
    for (Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
      Entry e = it.next();
      if (e.stopAt != 0 && nowNanos - e.stopAt > 0) {
        log.warn("no master within the lease of chunk {} of job {}; it is dropped", e.assign.getChunkId(),
            e.assign.getJobId());
        chunks.cancel(e.assign.getJobId(), e.assign.getChunkId());
        drop(e);
        it.remove();
      }
    }
  }

  /**
   * Sends a message after every piece reported before it (the same order on the wire); false when
   * there is no connection.
   */
  synchronized boolean send(Envelope message) {
    if (channel == null) {
      return false;
    }
    channel.writeAndFlush(message);
    return true;
  }

  synchronized int unacked() {
    return unackedPieces;
  }

  /** Everything is forgotten (an injected crash). */
  synchronized void clear() {
    entries.clear();
    unackedBytes = 0;
    unackedPieces = 0;
  }
}
