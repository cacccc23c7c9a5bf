package dev.gleaner.worker;

import java.util.concurrent.atomic.LongAdder;

/**
 * What a worker has done since it started, counted as it happens: read by {@code gleaner worker
 * --metrics-port} (Prometheus) and by tests. Plain adders, so the worker module needs no metrics
 * library; every count only grows.
 */
public final class WorkerCounters {
  final LongAdder chunksAssigned = new LongAdder();
  final LongAdder chunksFailed = new LongAdder();
  final LongAdder unitsReported = new LongAdder();
  final LongAdder piecesReported = new LongAdder();
  final LongAdder unitsAcknowledged = new LongAdder();
  final LongAdder unitsDiscarded = new LongAdder();
  final LongAdder inputBytes = new LongAdder();
  final LongAdder connects = new LongAdder();
  final LongAdder disconnects = new LongAdder();
  final LongAdder vacates = new LongAdder();
  final LongAdder unitsComputed = new LongAdder();

  /** Units computed here, step by step, reported or not yet (a piece is reported at its checkpoint). */
  public long unitsComputed() {
    return unitsComputed.sum();
  }

  /** Chunks the master handed to this worker. */
  public long chunksAssigned() {
    return chunksAssigned.sum();
  }

  /** Chunks that failed here (their units go to others). */
  public long chunksFailed() {
    return chunksFailed.sum();
  }

  /** Units in the pieces this worker computed and reported (before the master's acknowledgement). */
  public long unitsReported() {
    return unitsReported.sum();
  }

  /** Pieces this worker computed and reported. */
  public long piecesReported() {
    return piecesReported.sum();
  }

  /**
   * Units the master acknowledged as durable: saved from this worker's pieces, or already saved from
   * another worker's copy of the same units (a tail taken over, a replica).
   */
  public long unitsAcknowledged() {
    return unitsAcknowledged.sum();
  }

  /**
   * Units the master acknowledged without keeping them: another copy saved part of the piece first,
   * or its chunk was cancelled or its job ended. Computed here in vain; nothing is lost.
   */
  public long unitsDiscarded() {
    return unitsDiscarded.sum();
  }

  /** Input bytes received from the master. */
  public long inputBytes() {
    return inputBytes.sum();
  }

  /** Logins to the master (the first and every reconnection). */
  public long connects() {
    return connects.sum();
  }

  /** Connections to the master lost. */
  public long disconnects() {
    return disconnects.sum();
  }

  /** Times its owner took the computer back and it vacated. */
  public long vacates() {
    return vacates.sum();
  }
}
