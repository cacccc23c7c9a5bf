package dev.gleaner.worker;

/**
 * The pace a connection reads a chunk's input at while it streams in, for the master's word of it
 * ({@code InputPace}): the bytes read over spans of at least {@link #SPAN_NANOS}, each span from one
 * read to a later one of the same chunk, counting the bytes read after its first.
 *
 * <p>A span counts only bytes that came as they were read. So none starts at a read that came right
 * after the one before it ({@link #WAITED_NANOS}: a backlog read in one go), nor at the first read
 * after reading {@link #paused} (what waited in the socket buffer meanwhile); and a wait longer than a
 * span between two reads (nothing was sent: the master between two streams) ends the span without a
 * word. The master weighs what is left: whether the chunk's stream was on the wire all through, and
 * whether the other links on it could explain the pace.
 *
 * <p>Confined to the connection's event loop.
 */
final class ReadPace {
  /** The shortest span a pace is told over: a few TCP round trips and tbf refills, well under a long transfer. */
  static final long SPAN_NANOS = 250_000_000L;
  /** A read this long after the one before it waited on the wire, not in the socket buffer. */
  static final long WAITED_NANOS = ChunkTask.FIRST_READ_NANOS;

  private String job;
  private long chunk;
  private boolean any;
  private long lastRead;
  /** The first read after reading resumed: a backlog. */
  private boolean resumed;
  /** When the span began, or -1 while none has. */
  private long from = -1;
  private long bytes;

  /**
   * A read of {@code size} bytes of the chunk's input at {@code now} (nanoseconds); the bytes and
   * nanoseconds of the span it closes, else null.
   */
  long[] read(String jobId, long chunkId, long size, long now) {
    boolean waited = !any || now - lastRead > WAITED_NANOS;
    boolean idle = any && now - lastRead > SPAN_NANOS;
    any = true;
    lastRead = now;
    if (resumed) {
      // the first read that waited since reading stopped takes what waited meanwhile; a slice of the
      // read that stopped it (a frame ending within it) comes with none
      resumed = !waited;
      from = -1;
      return null;
    }
    if (!jobId.equals(job) || chunkId != chunk) {
      job = jobId;
      chunk = chunkId;
      from = -1;
    }
    if (from < 0 || idle) {
      from = waited ? now : -1;
      bytes = 0;
      return null;
    }
    bytes += size;
    if (now - from < SPAN_NANOS) {
      return null;
    }
    long[] span = {bytes, now - from};
    from = now;
    bytes = 0;
    return span;
  }

  /** Reading stopped (the worker has enough input waiting): what it reads next waited in the socket buffer. */
  void paused() {
    resumed = true;
    from = -1;
  }
}
