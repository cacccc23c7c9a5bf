package dev.gleaner.master.control;

import dev.gleaner.protocol.Envelope;
import dev.gleaner.protocol.Error;

/**
 * A worker's session as the control loop sees it: where its actions go. The network package
 * implements it; every method is safe to call from any thread.
 */
public interface WorkerLink {
  /** Units the worker's process says it computed so far, reported or not (its last heartbeat); 0 if unknown. */
  default long unitsComputed() {
    return 0;
  }

  String workerId();

  String host();

  int cores();

  /** The worker process's random instance number from its Hello (0 from a peer that sends none). */
  long instance();

  /** Milliseconds since anything was heard from the worker. */
  long silentMillis();

  /** Whether the connection is still open. */
  boolean isOpen();

  /** Sends a message; dropped when the connection is closed (the loss is reported separately). */
  void send(Envelope message);

  /**
   * Streams the input bytes {@code [from, to)} of a copy through the master's one port, served by
   * increasing {@code rank}, then in the order asked; reports the transfer to the control loop.
   */
  void stream(String job, long copyId, FileInputSource input, long from, long to, int rank);

  /** Stops streaming the copy's input at byte {@code end} (what went out already went out). */
  void truncateStream(String job, long copyId, long end);

  /** Drops the copy's stream. */
  void cancelStream(String job, long copyId);

  /** Ends the session with an error the worker can read, and one log line. */
  void refuse(Error.Code code, String message);
}
