package dev.gleaner.common.sim;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.Verdict;
import dev.gleaner.common.util.RangeSet;

/**
 * What simulated workers compute: each computes its chunks in order at its true speed, a piece once its
 * input is there (the piece before it done), and saves a piece at every checkpoint, paying {@code commitDelay} seconds (the
 * papers' eps) before it goes on; every piece goes to the real controller. The controller's
 * truncations and cancels of a chunk cut or stop the piece under way and the chunk's streams.
 */
final class SimPieces {
  private final SimClock clock;
  private final Controller controller;
  private final ClosedLoop.Setup setup;
  private final SimPorts.Port port;
  private final SimFigures figures;
  /** Every range the controller said to commit: none may be said twice. */
  /** Units committed so far, by job. */
  private final java.util.Map<String, RangeSet> commits = new java.util.HashMap<>();

  SimPieces(SimClock clock, Controller controller, ClosedLoop.Setup setup, SimPorts.Port port, SimFigures figures) {
    this.clock = clock;
    this.controller = controller;
    this.setup = setup;
    this.port = port;
    this.figures = figures;
  }

  /** The worker takes the chunk, behind those it holds. */
  void assign(SimHost h, Action.Assign a) {
    h.chunks.add(new SimChunk(a));
    advance(h);
  }

  /** Starts the next piece if the worker is free and its next chunk's input is there. */
  void advance(SimHost h) {
    if (!h.up || h.computing != null) {
      return;
    }
    SimChunk c = h.chunks.peekFirst();
    if (c == null) {
      return;
    }
    long to = c.nextBoundary(c.cursor, c.end);
    if (!c.inputThere(to)) {
      // a real worker computes a piece as its input comes and ends it once the last byte is there
      return;
    }
    h.computing = c;
    startPiece(h, c, c.cursor, to, clock.now());
  }

  /**
   * The owner is back: the worker saves what it computed of its piece under way, a piece of its own
   * (the vacate's save costs no eps here: the real worker makes it within its grace, on the owner's
   * time).
   */
  void savePartial(SimHost h) {
    SimChunk c = h.computing;
    if (!h.up || c == null) {
      return;
    }
    double now = clock.now();
    long at = h.reached(now);
    if (at <= h.pieceFrom) {
      return;
    }
    double seconds = (at - h.pieceFrom) / h.host.speed();
    figures.busySeconds += now - h.pieceStart;
    figures.lostUnits += h.computed(now) - (at - h.pieceFrom);
    h.computing = null;
    h.token++;
    long from = h.pieceFrom;
    c.cursor = at;
    record(h, c, from, at, seconds);
  }

  /**
   * The chunk now ends at {@code end}. A piece under way past it is cut there, or, for a stop that is
   * not a split (a cancel, the deadline) and comes after the worker has passed {@code end}, reports
   * what it computed so far.
   */
  void truncate(SimHost h, long chunkId, long end, boolean split) {
    SimChunk c = h == null ? null : h.find(chunkId);
    if (c == null) {
      return;
    }
    double now = clock.now();
    if (h.computing == c && h.pieceTo > end) {
      double position = h.pieceFrom + h.host.speed() * (now - h.pieceStart);
      if (!split && position >= end) {
        // a cancel's or the deadline's stop: the worker reports what it computed up to now and stops
        long at = h.reached(now);
        if (at > h.pieceFrom) {
          startPiece(h, c, h.pieceFrom, at, h.pieceStart);
        } else {
          figures.busySeconds += now - h.pieceStart;
          h.computing = null;
          h.token++;
        }
        c.end = Math.max(at, h.pieceFrom);
      } else if (position < end) {
        startPiece(h, c, h.pieceFrom, end, h.pieceStart);
        c.end = end;
      } else {
        c.end = h.pieceTo;
      }
    } else {
      c.end = Math.max(end, c.cursor);
    }
    port.truncate(c, end);
    if (c.cursor >= c.end && h.computing != c) {
      c.gone = true;
      h.chunks.remove(c);
      advance(h);
    }
  }

  /** The chunk is cancelled: what the worker computed of it is dropped, and it goes on with its next. */
  void cancel(SimHost h, long chunkId) {
    SimChunk c = h == null ? null : h.find(chunkId);
    if (c == null) {
      return;
    }
    c.gone = true;
    h.chunks.remove(c);
    if (h.computing == c) {
      double now = clock.now();
      figures.busySeconds += now - h.pieceStart;
      figures.cancelledUnits += h.computed(now);
      h.computing = null;
      h.token++;
    }
    port.cancel(c);
    advance(h);
  }

  private void startPiece(SimHost h, SimChunk c, long from, long to, double startedAt) {
    h.pieceFrom = from;
    h.pieceTo = to;
    h.pieceStart = startedAt;
    long token = ++h.token;
    double seconds = (to - from) / h.host.speed();
    // saving the piece costs the worker eps (the papers' per-chunk overhead) before it goes on
    clock.at(startedAt + seconds + setup.commitDelay(), () -> {
      if (h.token == token) {
        pieceDone(h, c, from, to, seconds);
      }
    });
  }

  private void pieceDone(SimHost h, SimChunk c, long from, long to, double seconds) {
    h.computing = null;
    figures.busySeconds += clock.now() - h.pieceStart;
    figures.savingUnits += setup.commitDelay() * h.host.speed();
    c.cursor = to;
    record(h, c, from, to, seconds);
    if (c.cursor >= c.end) {
      c.gone = true;
      h.chunks.remove(c);
    }
    advance(h);
  }

  /** The piece [from, to) of the worker's chunk reaches the controller, and is committed if it says so. */
  private void record(SimHost h, SimChunk c, long from, long to, double seconds) {
    double now = clock.now();
    Verdict v = controller.piece(h.host.id(), c.job, c.id, from, to, now);
    if (v == Verdict.REFUSE) {
      throw new IllegalStateException("the controller refused piece [" + from + ", " + to + ") of chunk " + c.id
          + " from " + h.host.id() + " at t=" + now);
    }
    if (v == Verdict.DUPLICATE || v == Verdict.DISCARD) {
      figures.duplicateUnits += to - from;
    }
    if (v == Verdict.COMMIT) {
      RangeSet commits = this.commits.computeIfAbsent(c.job, k -> new RangeSet());
      if (commits.intersects(from, to)) {
        throw new IllegalStateException("units of [" + from + ", " + to + ") would be counted twice (chunk " + c.id
            + " of job " + c.job + " on " + h.host.id() + " at t=" + now + ")");
      }
      commits.add(from, to);
      figures.longestPieceSeconds = Math.max(figures.longestPieceSeconds, seconds);
      controller.committed(h.host.id(), c.job, c.id, from, to, seconds, setup.commitDelay(), now);
    } else if (v == Verdict.CHECK || v == Verdict.TIE_BREAK) {
      // simulated workers are honest: every check agrees
      controller.checked(h.host.id(), c.job, c.id, true, false, now);
    }
  }
}
