package dev.gleaner.common.control;

import java.util.Iterator;
import java.util.LinkedHashSet;

/**
 * The workers that want work, and the order in which a pump serves them: those with nothing in
 * hand first, then those below their window, then those the lead lets hold more; one copy per
 * visit, each worker served going to the back of its line, so that a plan spreads over every
 * worker before anyone tops up (4,000 workers and 100,000 chunks: 25 each, not 32 each for 3,125
 * of them and nothing for the rest).
 *
 * <p>A pump does not look at every waiting worker. A worker with a reason of its own (it joined, a
 * slot of it freed, work was queued for it: {@link #wake}) is visited once. A line is served only
 * when work appeared for everyone (a plan, work rerouted to the pool, a check queued, a tick:
 * {@link #workAppeared}), or when its last visit gave something; it is served in order until a
 * visit finds nothing and nothing is left that anyone of that line could take (the line is dry),
 * or until {@link #FAILURES} visits found nothing (what is left does not fit them: a deadline, a
 * declared end; the next pump goes on with the others). The two lines of workers with copies in
 * hand are served at most {@link #BUDGET} copies per pump, the rest at the next event: those
 * workers are not idle. A pump therefore costs the copies it hands out plus a bounded number of
 * looks, however many workers wait.
 */
final class Waiters {
  /** Visits per line and pump that may find nothing before the line waits for the next pump. */
  static final int FAILURES = 64;
  /** Copies per pump handed to workers that already hold some. */
  static final int BUDGET = 4096;

  private enum Line {
    /** Nothing in hand. */
    IDLE,
    /** Fewer copies than the window. */
    BELOW,
    /** At the window, and the lead lets it hold more. */
    EXTRA
  }

  private final Controller ctl;
  private final Handout handout;
  private final LinkedHashSet<Member> idle = new LinkedHashSet<>();
  private final LinkedHashSet<Member> below = new LinkedHashSet<>();
  private final LinkedHashSet<Member> extra = new LinkedHashSet<>();
  private final LinkedHashSet<Member> fresh = new LinkedHashSet<>();
  private boolean lookIdle;
  private boolean lookBelow;
  private boolean lookExtra;

  Waiters(Controller ctl, Handout handout) {
    this.ctl = ctl;
    this.handout = handout;
  }

  /** The worker has a reason of its own to look at the next pump. */
  void wake(Member m) {
    if (m != null && m.up()) {
      fresh.add(m);
    }
  }

  /** The worker takes nothing any more (down, draining). */
  void forget(Member m) {
    forgetLines(m);
    fresh.remove(m);
  }

  /** Work appeared that any waiting worker might take: every line is served at the next pump. */
  void workAppeared() {
    lookIdle = true;
    lookBelow = true;
    lookExtra = true;
  }

  /** Whether some worker that takes the job waits with fewer copies than the window. */
  boolean anyBelowWindow(JobLedger j) {
    for (Member m : idle) {
      if (j.takes(m)) {
        return true;
      }
    }
    for (Member m : below) {
      if (j.takes(m)) {
        return true;
      }
    }
    return false;
  }

  /** Hands out what waiting workers may take now (see the class comment). */
  void serve(double now) {
    if (now < ctl.storeHoldUntil) {
      // nothing goes out; the fresh wait in their lines for the tick after the hold
      for (Iterator<Member> it = fresh.iterator(); it.hasNext(); ) {
        place(it.next(), false, now);
        it.remove();
      }
      return;
    }
    if (lookIdle) {
      lookIdle = serve(idle, Line.IDLE, now);
    }
    // a visit may wake others (a holder whose copy moved): each is visited too, within a bound
    for (int visits = 0; !fresh.isEmpty() && visits < ctl.members.size() + BUDGET; visits++) {
      Iterator<Member> it = fresh.iterator();
      Member m = it.next();
      it.remove();
      place(m, visit(m, now), now);
    }
    if (lookIdle) {
      // the fresh that found nothing with nothing in hand, behind those who waited longer
      lookIdle = serve(idle, Line.IDLE, now);
    }
    if (lookBelow) {
      lookBelow = serve(below, Line.BELOW, now);
    }
    if (lookExtra) {
      lookExtra = serve(extra, Line.EXTRA, now);
    }
  }

  /**
   * Serves a line in order, one copy per visit; returns whether to serve it again at the next pump
   * (its budget ran out, or too many visits found nothing while something was left).
   */
  private boolean serve(LinkedHashSet<Member> line, Line kind, double now) {
    int failures = 0;
    int given = 0;
    // each worker leaves the idle line when served; the others stop at the budget
    int cap = line.size() + BUDGET + FAILURES;
    for (int visits = 0; !line.isEmpty() && visits < cap; visits++) {
      Iterator<Member> it = line.iterator();
      Member m = it.next();
      it.remove();
      m.line = null;
      if (!m.up() || !handout.wantsMore(m, now)) {
        place(m, false, now);
        continue;
      }
      boolean got = handout.take(m, now);
      place(m, got, now);
      if (got) {
        if (kind != Line.IDLE && ++given >= BUDGET) {
          return true;
        }
      } else if (dry(kind, now)) {
        return false;
      } else if (++failures >= FAILURES) {
        return true;
      }
    }
    return !line.isEmpty();
  }

  /** One look: one copy for the worker if it wants one and one is there for it. */
  private boolean visit(Member m, double now) {
    return m.up() && handout.wantsMore(m, now) && handout.take(m, now);
  }

  /** Puts the worker at the back of the line it belongs to now, if it still wants work. */
  private void place(Member m, boolean gotOne, double now) {
    forgetLines(m);
    if (!m.up() || !handout.wantsMore(m, now)) {
      return;
    }
    int held = m.copies.size();
    LinkedHashSet<Member> line;
    if (held == 0) {
      line = idle;
      lookIdle |= gotOne;
    } else if (held < ctl.config.window()) {
      line = below;
      lookBelow |= gotOne;
    } else {
      line = extra;
      lookExtra |= gotOne;
    }
    line.add(m);
    m.line = line;
  }

  private void forgetLines(Member m) {
    if (m.line != null) {
      m.line.remove(m);
      m.line = null;
    }
  }

  /**
   * Whether nothing is left that a worker of this line could take besides its own queue (work
   * queued for a worker wakes it): for workers with copies in hand, the pool and checks; for
   * idle ones, also other workers' queues, a running copy worth splitting and a copy not started
   * by a holder of more than the window.
   */
  private boolean dry(Line kind, double now) {
    for (JobLedger j : ctl.live()) {
      if (!j.active()) {
        continue;
      }
      if (!j.pool.isEmpty() || !j.checks.isEmpty()) {
        return false;
      }
      if (kind == Line.IDLE && (j.queues.anyQueued() || handout.hasSplit(j, now) || handout.hasSurplus(j))) {
        return false;
      }
    }
    return true;
  }
}
