package dev.gleaner.master.net;

import java.util.ArrayDeque;

/**
 * How many results over one frame the master joins at once, across all workers. Each may grow to
 * the result limit (--max-result-mib) in memory before it is whole, so the master admits only as
 * many as half its heap holds at that size; a worker that starts one more waits (its connection
 * stops being read, so TCP holds its sender back) until another is whole. An admitted assembly
 * never waits, so one always finishes and frees its place: no cycle of waits.
 */
final class ResultBudget {
  private final int places;
  private int taken;
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();

  ResultBudget(int places) {
    if (places < 1) {
      throw new IllegalArgumentException("at least one assembly must be allowed, got " + places);
    }
    this.places = places;
  }

  /** The places that {@code heapBytes / 2} holds for results of up to {@code maxResultBytes} each; at least one. */
  static ResultBudget forHeap(long heapBytes, long maxResultBytes) {
    return new ResultBudget((int) Math.max(1, Math.min(Integer.MAX_VALUE, heapBytes / 2 / Math.max(1, maxResultBytes))));
  }

  int places() {
    return places;
  }

  /**
   * Takes a place if one is free and returns true; else queues {@code admitted}, which runs once a
   * place is handed to it (on the thread that gives one back), and returns false.
   */
  synchronized boolean takeOrAwait(Runnable admitted) {
    if (taken < places) {
      taken++;
      return true;
    }
    waiting.add(admitted);
    return false;
  }

  /** No longer waits (its connection closed); returns whether it was waiting. */
  synchronized boolean cancel(Runnable admitted) {
    return waiting.remove(admitted);
  }

  /** Gives a place back: to the longest waiting, or free. */
  void give() {
    Runnable next;
    synchronized (this) {
      next = waiting.poll();
      if (next == null) {
        taken--;
      }
    }
    if (next != null) {
      next.run();
    }
  }

  /** Connections waiting for a place. */
  synchronized int waiting() {
    return waiting.size();
  }
}
