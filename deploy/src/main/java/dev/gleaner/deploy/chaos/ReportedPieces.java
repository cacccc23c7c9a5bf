package dev.gleaner.deploy.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * Every piece a worker sent towards the master, and every acknowledgement the master sent back, as
 * the chaos proxies saw them go through: what the workers computed and reported, and what the
 * master promised was durable, to set beside what the store holds.
 */
final class ReportedPieces {
  /** One piece forwarded to the master at {@code atMillis}. */
  record Piece(String workerId, String jobId, long chunkId, long start, long end, long atMillis) {}

  /**
   * The master's acknowledgement of a piece of a chunk ending at {@code end}, passed on to the worker at
   * {@code atMillis}; {@code counted} false when the master says the piece did not count (discarded).
   */
  record Ack(String workerId, String jobId, long chunkId, long end, long atMillis, boolean counted) {}

  private final List<Piece> pieces = new ArrayList<>();
  private final List<Ack> acks = new ArrayList<>();

  synchronized void ack(Ack a) {
    acks.add(a);
  }

  synchronized List<Ack> acks() {
    return List.copyOf(acks);
  }

  synchronized void add(Piece p) {
    pieces.add(p);
    notifyAll();
  }

  synchronized int count() {
    return pieces.size();
  }

  synchronized List<Piece> all() {
    return List.copyOf(pieces);
  }

  /** Waits up to {@code millis} until more than {@code seen} pieces went through; true if they did. */
  synchronized boolean awaitMoreThan(int seen, long millis) throws InterruptedException {
    long until = System.currentTimeMillis() + millis;
    while (pieces.size() <= seen) {
      long left = until - System.currentTimeMillis();
      if (left <= 0) {
        return false;
      }
      wait(left);
    }
    return true;
  }
}
