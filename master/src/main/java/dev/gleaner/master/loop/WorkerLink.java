package dev.gleaner.master.loop;

import dev.gleaner.protocol.Assign;
import dev.gleaner.protocol.Error;

/**
 * A worker's session as the control loop sees it: the verbs its decisions go out by. The network
 * implements it and builds the frames; every method is safe to call from any thread, and a message
 * to a closed connection is dropped (the loss is reported separately).
 */
public interface WorkerLink {
  String workerId();

  String host();

  int cores();

  /** The worker process's random instance number from its Hello (0 from a peer that sends none). */
  long instance();

  /** The relay its connection came through (the one nearest it); "" when it came to the master directly. */
  default String via() {
    return "";
  }

  /**
   * The relay its connection came through nearest the master: the site a failure of which takes it
   * with the rest of that subtree; "" when it came directly.
   */
  default String site() {
    return via();
  }

  /** Milliseconds since anything was heard from the worker. */
  long silentMillis();

  /** Whether the connection is still open. */
  boolean isOpen();

  /** Units the worker's process says it computed so far, reported or not (its last heartbeat); 0 if unknown. */
  default long unitsComputed() {
    return 0;
  }

  /**
   * Hands the worker a chunk: {@code template} is what every chunk of the job shares (its id,
   * workload and parameters), completed with this chunk's range, checkpoints, input and lease.
   */
  void assign(Assign template, long chunkId, long start, long end, long[] checkpoints, long inputBytes, int leaseMs);

  /**
   * Streams the input bytes {@code [from, to)} of a chunk through the master's port, served by
   * increasing {@code rank}, then in the order asked, as many at once as the port's rule lets, the
   * worker's link taken as {@code linkRate} bytes/s (NaN: not known); the transfer is reported to
   * {@code streamed}. Returns false if the relay in front of the worker sends them instead, from its
   * own copy of the file (nothing crosses the master's port).
   */
  boolean stream(String job, long chunkId, FileInputSource input, long from, long to, int rank, double linkRate,
      Streamed streamed);

  /** The chunk now ends at {@code end}: the worker stops there, and its input stops streaming there. */
  void truncate(String job, long chunkId, long end);

  /** The worker stops computing the chunk, and its input stops streaming. */
  void cancel(String job, long chunkId);

  /** The chunk's input stops streaming (the chunk no longer stands; the worker is told nothing). */
  void stopStream(String job, long chunkId);

  /**
   * The chunk's pieces up to {@code end} are taken care of: durable, or (not {@code counted}) not
   * counting, so the worker may forget them.
   */
  void ack(String job, long chunkId, long end, boolean counted);

  /** Asks the worker to leave: it drains as on SIGTERM and exits. */
  void askToLeave(String reason);

  /** Ends the session with an error the worker can read, and one log line. */
  void refuse(Error.Code code, String message);

  /** Told when a stream's last slice is queued on its connection. */
  @FunctionalInterface
  interface Streamed {
    void streamed(long bytes, double seconds);
  }
}
