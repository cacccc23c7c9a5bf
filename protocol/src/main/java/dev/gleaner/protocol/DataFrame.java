package dev.gleaner.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;

/**
 * A received {@link Data} message whose payload is a slice of the frame it arrived in, not a copy:
 * what a {@link FrameDecoder} built with {@code sliceData} emits for data frames. The receiver owns
 * one reference and must {@link #release()} it when the payload has been consumed.
 */
public final class DataFrame extends AbstractReferenceCounted {
  private final String jobId;
  private final long chunkId;
  private final boolean last;
  private final ByteBuf payload;
  private final long arrivingSince;

  DataFrame(String jobId, long chunkId, boolean last, ByteBuf payload, long arrivingSince) {
    this.jobId = jobId;
    this.chunkId = chunkId;
    this.last = last;
    this.payload = payload;
    this.arrivingSince = arrivingSince;
  }

  /** When this frame's first bytes arrived ({@link System#nanoTime()}): with its completion, the link's pace. */
  public long arrivingSince() {
    return arrivingSince;
  }

  public String jobId() {
    return jobId;
  }

  public long chunkId() {
    return chunkId;
  }

  public boolean last() {
    return last;
  }

  /** The payload bytes; valid until this frame is released. */
  public ByteBuf payload() {
    return payload;
  }

  @Override
  protected void deallocate() {
    payload.release();
  }

  @Override
  public ReferenceCounted touch(Object hint) {
    payload.touch(hint);
    return this;
  }
}
