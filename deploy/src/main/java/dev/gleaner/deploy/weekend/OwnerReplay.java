package dev.gleaner.deploy.weekend;

import dev.gleaner.common.time.Ticker;
import dev.gleaner.common.trace.OwnerSchedule.Change;
import java.util.List;
import java.util.function.Consumer;

/**
 * Plays a trace's owner changes at {@code speedup} times the trace's pace: change at trace second t
 * is due {@code t / speedup} seconds after {@link #start}. Time comes from the ticker it is given;
 * it never waits itself: {@link #applyDue} carries out what is due, {@link #nanosToNext} says how
 * long until the next, and the caller waits (tests move a fake ticker instead).
 */
public final class OwnerReplay {
  private final List<Change> changes;
  private final double speedup;
  private final Consumer<Change> sink;
  private final Ticker ticker;
  private long startNanos;
  private boolean started;
  private int next;

  public OwnerReplay(List<Change> changes, double speedup, Consumer<Change> sink, Ticker ticker) {
    if (!(speedup > 0) || Double.isInfinite(speedup)) {
      throw new IllegalArgumentException("--speedup must be a positive number, got " + speedup);
    }
    this.changes = List.copyOf(changes);
    this.speedup = speedup;
    this.sink = sink;
    this.ticker = ticker;
  }

  /** Now is trace time 0: the changes at 0 (each node's state at the start) are carried out at once. */
  public void start() {
    if (started) {
      throw new IllegalStateException("the replay has already started");
    }
    started = true;
    startNanos = ticker.nanos();
    applyDue();
  }

  /** When change i is due, nanoseconds after the start. */
  private long dueNanos(int i) {
    return (long) Math.ceil(changes.get(i).at() / speedup * 1e9);
  }

  /** Carries out every change due by now, in order; returns how many. */
  public int applyDue() {
    if (!started) {
      throw new IllegalStateException("start the replay first");
    }
    long elapsed = ticker.nanos() - startNanos;
    int applied = 0;
    while (next < changes.size() && dueNanos(next) <= elapsed) {
      sink.accept(changes.get(next++));
      applied++;
    }
    return applied;
  }

  /** Nanoseconds from now until the next change is due (0 if one is due), or -1 when all are done. */
  public long nanosToNext() {
    if (next >= changes.size()) {
      return -1;
    }
    return Math.max(0, dueNanos(next) - (ticker.nanos() - startNanos));
  }

  public boolean done() {
    return next >= changes.size();
  }

  /** Trace seconds played so far. */
  public double traceSeconds() {
    return (ticker.nanos() - startNanos) / 1e9 * speedup;
  }
}
