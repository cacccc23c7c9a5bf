package dev.gleaner.common.workload;

import java.nio.ByteBuffer;

/**
 * The computation of one chunk on a worker. The worker calls {@link #compute} with consecutive
 * ranges and calls {@link #take} at every checkpoint; one computation is driven by one thread at a
 * time.
 */
public interface ChunkComputation extends AutoCloseable {
  /**
   * Called before the first {@link #compute} of each piece (the units up to the next checkpoint
   * or the chunk's end); the piece's result is what {@link #take} returns after it.
   */
  default void beginPiece(long from, long to) {}

  /**
   * Computes the units {@code [from, to)}, which start where the previous call ended.
   *
   * @param input for workloads with input, the bytes of exactly those units (byte offsets);
   *     {@code null} otherwise
   * @param cancel polled by long computations; when it reports true, stop early by throwing
   *     {@link java.util.concurrent.CancellationException}
   */
  void compute(long from, long to, ByteBuffer input, Cancellation cancel) throws Exception;

  /** The result of the units computed since the previous {@code take}, and starts afresh. */
  byte[] take();

  /**
   * The largest result of one piece the master takes ({@code gleaner master --max-result-mib}), told
   * before the first piece: a computation that buffers output it does not control (a program's
   * stdout) stops buffering past it. Others need not care; the worker checks every result anyway.
   */
  default void limitResult(long maxBytes) {}

  @Override
  default void close() {}

  /** Asks whether the computation should stop. */
  @FunctionalInterface
  interface Cancellation {
    boolean cancelled();

    Cancellation NEVER = () -> false;
  }
}
