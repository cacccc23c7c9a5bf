package dev.gleaner.worker;

import dev.gleaner.protocol.Assign;
import java.nio.ByteBuffer;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** One assigned chunk on this worker, with the input bytes that have arrived for it. */
final class ChunkTask {
  /** Input bytes buffered beyond this pause reading from the master until the computation catches up. */
  static final long HIGH_WATER_BYTES = 16L * 1024 * 1024;
  static final long LOW_WATER_BYTES = 4L * 1024 * 1024;

  interface FlowControl {
    void pause();

    void resume();
  }

  final Assign assign;
  private final BlockingQueue<ByteBuffer> slices = new LinkedBlockingQueue<>();
  private final AtomicLong buffered = new AtomicLong();
  private final FlowControl flow;
  private volatile boolean cancelled;
  private ByteBuffer head;

  ChunkTask(Assign assign, FlowControl flow) {
    this.assign = assign;
    this.flow = flow;
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

  void cancel() {
    cancelled = true;
  }

  boolean cancelled() {
    return cancelled;
  }

  /** Called on the network thread as input arrives. */
  void offer(ByteBuffer slice) {
    slices.add(slice);
    if (buffered.addAndGet(slice.remaining()) > HIGH_WATER_BYTES) {
      flow.pause();
    }
  }

  /**
   * The next at most {@code max} bytes of input, waiting for them to arrive.
   *
   * @throws CancellationException if the chunk is cancelled while waiting
   */
  ByteBuffer next(long max) throws InterruptedException {
    while (head == null || !head.hasRemaining()) {
      head = slices.poll(100, TimeUnit.MILLISECONDS);
      if (cancelled) {
        throw new CancellationException("chunk " + key() + " cancelled");
      }
    }
    ByteBuffer out;
    if (head.remaining() <= max) {
      out = head;
      head = null;
    } else {
      out = head.duplicate();
      out.limit(out.position() + (int) max);
      head.position(head.position() + (int) max);
    }
    if (buffered.addAndGet(-out.remaining()) < LOW_WATER_BYTES) {
      flow.resume();
    }
    return out;
  }
}
