package dev.gleaner.deploy;

import java.util.ArrayList;
import java.util.List;

/**
 * Every piece a worker sent towards the master, as the chaos proxies saw it go through: what the
 * workers computed and reported, to set beside what the store committed.
 */
final class ReportedPieces {
  /** One piece forwarded to the master at {@code atMillis}. */
  record Piece(String workerId, String jobId, long start, long end, long atMillis) {}

  private final List<Piece> pieces = new ArrayList<>();

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
