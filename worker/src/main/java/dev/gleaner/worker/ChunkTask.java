package dev.gleaner.worker;

import dev.gleaner.protocol.Assign;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** One assigned chunk on this worker, with the input bytes that have arrived for it. */
final class ChunkTask {
  final Assign assign;
  /** Where the chunk ends now: its assigned end, or where the master truncated it. */
  private volatile long end;
  private final BlockingQueue<ByteBuf> slices = new LinkedBlockingQueue<>();
  /** This chunk's input bytes arrived and not yet computed (counted in its connection's flow too). */
  private final AtomicLong buffered = new AtomicLong();
  private final InputFlow flow;
  private volatile boolean cancelled;
  /** The slice being consumed, and the one handed out last (released on the next call). */
  private ByteBuf head;
  private ByteBuf lent;
  private volatile boolean closed;
  /**
   * Reads this close after the first are taken for one: bytes that waited in the socket buffer and
   * were read in one go (Netty reads a backlog in 64 KiB reads microseconds apart).
   */
  static final long FIRST_READ_NANOS = 1_000_000;
  /** Input bytes received, and when the first and the last of them arrived. */
  private final AtomicLong received = new AtomicLong();
  /** Input bytes read within {@link #FIRST_READ_NANOS} of the first: there before the worker read. */
  private final AtomicLong firstRead = new AtomicLong();
  private volatile long firstArrival;
  private volatile long lastArrival;
  private volatile long firstReadAt;
  /** Whether the input's arrival was reported (once per chunk). */
  private boolean arrivalReported;

  ChunkTask(Assign assign, InputFlow flow) {
    this.assign = assign;
    this.flow = flow;
    this.end = assign.getEnd();
  }

  /** Where the chunk ends now. */
  long end() {
    return end;
  }

  /**
   * The chunk's tail went to another worker: it ends at {@code newEnd} (never later than before).
   * Returns the input's arrival ({@link #takeArrival}) when what has arrived now covers the chunk.
   */
  long[] truncate(long newEnd) {
    end = Math.max(assign.getStart(), Math.min(end, newEnd));
    return hasInput() ? takeArrival() : null;
  }

  String key() {
    return key(assign.getJobId(), assign.getChunkId());
  }

  static String key(String jobId, long chunkId) {
    return jobId + "#" + chunkId;
  }

  boolean hasInput() {
    return assign.getDataBytes() > 0;
  }

  /** Whether part of its input has not arrived yet. */
  boolean awaitsInput() {
    return hasInput() && received.get() < end - assign.getStart();
  }

  void cancel() {
    cancelled = true;
  }

  boolean cancelled() {
    return cancelled;
  }

  /**
   * Called on the network thread as input arrives; takes over one reference to {@code slice}. Returns
   * the input's arrival ({@link #takeArrival}) when this slice completes it, else null.
   */
  long[] offer(ByteBuf slice, long arrivingSince) {
    long size = slice.readableBytes();
    long now = System.nanoTime();
    if (received.get() == 0) {
      firstArrival = Math.min(now, arrivingSince);
      firstReadAt = now;
    }
    if (now - firstReadAt <= FIRST_READ_NANOS) {
      firstRead.addAndGet(size);
    }
    lastArrival = now;
    received.addAndGet(size);
    flow.arrived(size, buffered.addAndGet(size));
    slices.add(slice);
    if (closed) {
      releaseQueued();
      flow.consumed(buffered.getAndSet(0), 0);
    }
    return takeArrival();
  }

  /**
   * The next at most {@code max} bytes of input, waiting for them to arrive; null once the chunk
   * ends at or before {@code pos} (a truncation: the input past its new end is not coming).
   *
   * @throws CancellationException if the chunk is cancelled while waiting
   */
  ByteBuffer next(long pos, long max) throws InterruptedException {
    if (lent != null) {
      lent.release();
      lent = null;
    }
    boolean starving = false;
    try {
      while (head == null || !head.isReadable()) {
        if (head != null) {
          head.release();
          head = null;
        }
        if (end <= pos) {
          return null;
        }
        head = slices.poll();
        if (head == null) {
          if (!starving) {
            // its bytes are behind later chunks' in the connection: reading must not stop for those
            starving = true;
            flow.starving();
          }
          head = slices.poll(100, TimeUnit.MILLISECONDS);
        }
        if (cancelled) {
          throw new CancellationException("chunk " + key() + " cancelled");
        }
      }
    } finally {
      if (starving) {
        flow.fed();
      }
    }
    int n = (int) Math.min(max, head.readableBytes());
    ByteBuffer out = head.nioBuffer(head.readerIndex(), n);
    head.skipBytes(n);
    if (!head.isReadable()) {
      lent = head;
      head = null;
    }
    flow.consumed(n, buffered.addAndGet(-n));
    return out;
  }

  /**
   * Once all of the chunk's input (up to where it ends now) has arrived: its bytes, the nanoseconds
   * from the first byte's arrival to the last, and the nanoseconds all of them would have taken at
   * the pace of those read after the first read ({@link #paced}); null before that, and after the
   * first call that returned them.
   */
  synchronized long[] takeArrival() {
    long bytes = received.get();
    if (arrivalReported || bytes < end - assign.getStart() || bytes == 0) {
      return null;
    }
    arrivalReported = true;
    long span = Math.max(0, lastArrival - firstArrival);
    return new long[] {bytes, span, paced(bytes, firstRead.get(), lastArrival - firstReadAt)};
  }

  /**
   * The nanoseconds {@code bytes} took at the pace of those that came after the first read's
   * {@code first} bytes, over the {@code nanos} from the first read to the last. A worker that read
   * late finds what came meanwhile waiting in its socket buffer, and reads it at once: counted in a
   * span that left out the time it took to come, it would make the link look fast. 0 when less than
   * half the bytes came after the first read: too few to tell a pace by.
   */
  static long paced(long bytes, long first, long nanos) {
    long after = bytes - first;
    if (after <= 0 || 2 * after < bytes || nanos <= FIRST_READ_NANOS) {
      return 0;
    }
    return (long) (nanos * ((double) bytes / after));
  }

  /** The chunk is over (done, failed or cancelled): every buffered slice is released. */
  void close() {
    closed = true;
    if (lent != null) {
      lent.release();
      lent = null;
    }
    if (head != null) {
      head.release();
      head = null;
    }
    releaseQueued();
    flow.consumed(buffered.getAndSet(0), 0);
  }

  private void releaseQueued() {
    for (ByteBuf b; (b = slices.poll()) != null; ) {
      b.release();
    }
  }
}
