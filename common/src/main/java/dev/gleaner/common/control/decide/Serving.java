package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.Member;
import dev.gleaner.common.control.state.WaitLines;
import dev.gleaner.common.control.state.WaitLines.Line;
import java.util.List;

/**
 * Who is served at a pump, and in which order: those with nothing in hand first, then those below
 * their window, then those the lead lets hold more; one chunk per visit, each worker served going
 * to the back of its line, so that a plan spreads over every worker before anyone tops up (4,000
 * workers and 100,000 chunks: 25 each, not 32 each for 3,125 of them and nothing for the rest). A
 * visit asks the {@link Handout} (its queue, the pool, checks) and then, for a worker with nothing
 * in hand, {@link Stealing}. While jobs of several owners (or priorities of one owner) run, each
 * worker is offered them in the order of {@link FairShare}, which first takes workers back from jobs
 * above their shares when the jobs below theirs have work waiting.
 *
 * <p>A pump does not look at every waiting worker. A worker with a reason of its own (it joined, a
 * slot of it freed, work was queued for it: {@link WaitLines#wake}) is visited once. A line is
 * served only when work appeared for everyone (a plan, work rerouted to the pool, a check queued,
 * a tick: {@link WaitLines#workAppeared}), or when its last visit gave something; it is served in
 * order until a visit finds nothing and nothing is left that anyone of that line could take (the
 * line is dry), or until {@link #FAILURES} visits found nothing (what is left does not fit them: a
 * deadline, a declared end; the next pump goes on with the others). The two lines of workers with
 * chunks in hand are served at most {@link #BUDGET} chunks per pump, the rest at the next event:
 * those workers are not idle. A pump therefore costs the chunks it hands out plus a bounded number
 * of looks, however many workers wait.
 */
final class Serving {
  /** Visits per line and pump that may find nothing before the line waits for the next pump. */
  static final int FAILURES = 64;
  /** Chunks per pump handed to workers that already hold some. */
  static final int BUDGET = 4096;

  private final ControlState s;
  private final WaitLines lines;
  private final Handout handout;
  private final Stealing stealing;
  private final FairShare share;
  /** Whether jobs of several owners or priorities run at this pump (see {@link FairShare}). */
  private boolean contested;

  Serving(ControlState s, Handout handout, Stealing stealing) {
    this.s = s;
    this.lines = s.waiting;
    this.handout = handout;
    this.stealing = stealing;
    this.share = new FairShare(s);
  }

  /** Hands out what waiting workers may take now (see the class comment). */
  void serve(double now) {
    if (s.workChanged) {
      lines.workAppeared();
      s.workChanged = false;
    }
    if (now < s.storeHoldUntil) {
      // nothing goes out; the woken wait in their lines for the tick after the hold
      for (Member m = lines.pollWoken(); m != null; m = lines.pollWoken()) {
        place(m, false, now);
      }
      return;
    }
    contested = share.contested();
    if (contested) {
      share.count();
      share.preempt(now);
    }
    if (lines.look(Line.IDLE)) {
      lines.look(Line.IDLE, serve(Line.IDLE, now));
    }
    // a visit may wake others (a holder whose chunk moved): each is visited too, within a bound
    for (int visits = 0; lines.anyWoken() && visits < s.members.size() + BUDGET; visits++) {
      Member m = lines.pollWoken();
      place(m, visit(m, now), now);
    }
    if (lines.look(Line.IDLE)) {
      // the woken that found nothing with nothing in hand, behind those who waited longer
      lines.look(Line.IDLE, serve(Line.IDLE, now));
    }
    if (lines.look(Line.BELOW)) {
      lines.look(Line.BELOW, serve(Line.BELOW, now));
    }
    if (lines.look(Line.EXTRA)) {
      lines.look(Line.EXTRA, serve(Line.EXTRA, now));
    }
  }

  /**
   * Serves a line in order, one chunk per visit; returns whether to serve it again at the next pump
   * (its budget ran out, or too many visits found nothing while something was left).
   */
  private boolean serve(Line line, double now) {
    int failures = 0;
    int given = 0;
    // each worker leaves the idle line when served; the others stop at the budget
    int cap = lines.size(line) + BUDGET + FAILURES;
    for (int visits = 0; lines.size(line) > 0 && visits < cap; visits++) {
      Member m = lines.poll(line);
      if (!m.up() || !handout.wantsMore(m, now)) {
        place(m, false, now);
        continue;
      }
      boolean got = take(m, now);
      place(m, got, now);
      if (got) {
        if (line != Line.IDLE && ++given >= BUDGET) {
          return true;
        }
      } else if (dry(line, now)) {
        return false;
      } else if (++failures >= FAILURES) {
        return true;
      }
    }
    return lines.size(line) > 0;
  }

  /** One look: one chunk for the worker if it wants one and one is there for it. */
  private boolean visit(Member m, double now) {
    return m.up() && handout.wantsMore(m, now) && take(m, now);
  }

  /**
   * Gives the worker one chunk if there is one for it: its queue or the pool, a check, and for a
   * worker with nothing in hand what it may take from others; false if none.
   */
  private boolean take(Member m, double now) {
    m.heldBack = null;
    if (contested) {
      // the job furthest below its share first; a worker that holds chunks may take pieces planned for
      // others too, since a job planned over every worker is served by its share of them
      JobLedger before = FairShare.runningJob(m);
      for (JobLedger j : share.order(m)) {
        List<JobLedger> one = List.of(j);
        if (handout.planned(m, one, now) || handout.check(m, one, now)
            || stealing.take(m, one, !m.chunks.isEmpty(), now)) {
          share.gave(m, before);
          return true;
        }
      }
      return false;
    }
    if (handout.planned(m, now) || handout.check(m, now)) {
      return true;
    }
    // nothing planned for it and nothing in its hands: no idle worker while work remains
    return m.chunks.isEmpty() && stealing.take(m, now);
  }

  /** Puts the worker at the back of the line it belongs to now, if it still wants work. */
  private void place(Member m, boolean gotOne, double now) {
    lines.place(m, m.up() && handout.wantsMore(m, now), m.chunks.size(), s.config.window(), gotOne);
  }

  /**
   * Whether nothing is left that a worker of this line could take besides its own queue (work
   * queued for a worker wakes it): for workers with chunks in hand, the pool and checks; for
   * idle ones, also other workers' queues, a running chunk worth splitting and a chunk not started
   * by a holder of more than the window.
   */
  private boolean dry(Line line, double now) {
    for (JobLedger j : s.live()) {
      if (!j.active()) {
        continue;
      }
      if (!j.pool.isEmpty() || !j.checks.isEmpty()) {
        return false;
      }
      if (line == Line.IDLE && (j.queues.anyQueued() || stealing.hasSplit(j, now) || stealing.hasSurplus(j))) {
        return false;
      }
    }
    return true;
  }
}
