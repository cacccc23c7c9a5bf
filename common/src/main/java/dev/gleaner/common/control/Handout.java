package dev.gleaner.common.control;

import dev.gleaner.common.estimate.Estimate;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Checkpointing;
import dev.gleaner.common.plan.ChunkPlan;
import java.util.List;

/**
 * The controller's hand-out: which copy a worker with a free slot gets next. Its own queue, else the
 * pool (capped: guided self-scheduling), each piece cut to what fits before the job's deadline or
 * the worker's declared end; a worker with nothing in hand steals the back of the longest queue,
 * then the tail of the copy that would finish last (truncating it), or a replica of it when its
 * holder is likely lost first, then a copy not started yet by a worker that holds more than the
 * window. Each of those is found in O(log n) through the job's {@link Queues}, {@link Finishes} and
 * {@link Surplus}; {@link Waiters} decides who looks when.
 */
final class Handout {
  private final Controller ctl;

  Handout(Controller ctl) {
    this.ctl = ctl;
  }

  /** Below its window, or below the most it may hold while what it holds is done within the lead time. */
  boolean wantsMore(Member m, double now) {
    int held = m.copies.size();
    ControlConfig config = ctl.config;
    return held < config.window()
        || held < config.maxWindow() && config.lead() > 0 && busySeconds(m, now) < config.lead() && knownSpeed(m);
  }

  boolean knownSpeed(Member m) {
    JobLedger last = null;
    for (Copy c : m.copies) {
      // a worker's copies are mostly of one job: one look-up per run of them
      if (c.job != last) {
        last = c.job;
        if (!(speed(m, last) > 0)) {
          return false;
        }
      }
    }
    return true;
  }

  /** Gives the worker one copy if there is one for it; false if none. */
  boolean take(Member m, double now) {
    for (JobLedger j : ctl.live()) {
      if (!j.active() || !j.takes(m)) {
        continue;
      }
      ChunkPlan c = fromQueue(j, j.queues.get(m.id), m, now, ownCap(j, m, now));
      if (c == null) {
        c = fromQueue(j, j.pool, m, now, poolCap(j, m, now));
      }
      if (c != null) {
        assign(j, m, c, now, false);
        return true;
      }
    }
    // committed pieces to compute again for comparison, by a worker that has not done them
    for (JobLedger j : ctl.live()) {
      if (j.active() && j.takes(m) && check(j, m, now)) {
        return true;
      }
    }
    if (!m.copies.isEmpty()) {
      return false;
    }
    // nothing planned for it and nothing in its hands: no idle worker while work remains
    for (JobLedger j : ctl.live()) {
      if (j.active() && j.takes(m) && steal(j, m, now)) {
        return true;
      }
    }
    for (JobLedger j : ctl.live()) {
      if (j.active() && j.takes(m) && split(j, m, now)) {
        return true;
      }
    }
    for (JobLedger j : ctl.live()) {
      if (j.active() && j.takes(m) && unload(j, m, now)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The most units a worker takes at once from the pool or another worker's queue: a sixteenth of
   * the time the job still needs on all workers (or to its deadline, if sooner), at this worker's
   * speed; never less than {@code splitSeconds} of work, nor than the job's chunk size. Pieces of
   * the worker's own plan are taken as planned. (Guided self-scheduling: pieces shrink as the job
   * nears its end, so the last ones finish together.)
   */
  long poolCap(JobLedger j, Member m, double now) {
    double sm = speed(m, j);
    if (!(sm > 0)) {
      return probeUnits(j, accepting(j));
    }
    if (!(now - j.speedSumAt < 1)) {
      double total = 0;
      for (Member w : ctl.members.values()) {
        double s = w.up() && j.takes(w) ? speed(w, j) : Double.NaN;
        if (s > 0) {
          total += s;
        }
      }
      j.speedSum = total;
      j.speedSumAt = now;
    }
    double total = j.speedSum;
    double left = j.units() - j.committed.size() - j.pending.size();
    double seconds = Math.min(left / Math.max(sm, total), j.def.deadline() - now);
    double cap = Math.ceil(sm * Math.max(ctl.config.splitSeconds(), seconds / 16));
    return (long) Math.max(Math.max(1, j.def.chunkUnits()), Math.min(Long.MAX_VALUE / 2, cap));
  }

  /**
   * The most units a worker takes at once from its own queue: its plan's pieces as planned when
   * the plan knew a risk for it (their sizes then come from paper 000's Theorems 2-3, trading eps
   * against the work an interruption loses), otherwise no more than from the pool: evenly spaced
   * default checkpoints are no basis for a piece's size.
   */
  long ownCap(JobLedger j, Member m, double now) {
    Worker planned = j.planned.get(m.id);
    return planned != null && planned.risk() > 0 ? Long.MAX_VALUE : poolCap(j, m, now);
  }

  /**
   * The head of a queue, minus what is already saved, at most {@code cap} units, cut to what fits
   * the worker; null if none.
   */
  ChunkPlan fromQueue(JobLedger j, WorkQueue q, Member m, double now, long cap) {
    while (q != null && !q.isEmpty()) {
      ChunkPlan c = q.peekFirst();
      if (j.savedAny(c.start(), c.end())) {
        q.pollFirst();
        List<long[]> gaps = j.unsaved(c.start(), c.end());
        for (int i = gaps.size() - 1; i >= 0; i--) {
          q.addFirst(JobLedger.part(gaps.get(i)[0], gaps.get(i)[1], c.checkpoints()));
        }
        continue;
      }
      ChunkPlan fit = fit(j, m, c, now);
      if (fit == null) {
        return null;
      }
      if (fit.units() > cap) {
        long cut = Math.min(fit.end(), j.def.align().applyAsLong(fit.start() + cap));
        if (cut < fit.end()) {
          fit = JobLedger.part(fit.start(), cut, fit.checkpoints());
        }
      }
      q.pollFirst();
      if (fit.end() < c.end()) {
        q.addFirst(JobLedger.part(fit.end(), c.end(), c.checkpoints()));
      }
      return fit;
    }
    return null;
  }

  /**
   * The part of c this worker should take: a probe chunk while its speed is unknown; what it can
   * finish before the job's deadline or its own declared end; null when nothing fits.
   */
  ChunkPlan fit(JobLedger j, Member m, ChunkPlan c, double now) {
    double speed = speed(m, j);
    long take = c.units();
    if (!(speed > 0)) {
      take = Math.min(take, probeUnits(j, accepting(j)));
    } else {
      double limit = Math.min(j.def.deadline(), m.availableUntil);
      if (Double.isFinite(limit)) {
        Estimate eps = ctl.estimator.eps();
        double seconds = limit - now - busySeconds(m, now) - (eps.known() ? eps.value() : 0);
        double fits = Math.floor(seconds * speed);
        if (!(fits >= 1)) {
          return null;
        }
        take = (long) Math.min(take, fits);
      }
    }
    if (take >= c.units()) {
      return c;
    }
    long cut = Math.min(c.end(), j.def.align().applyAsLong(c.start() + take));
    return cut >= c.end() ? c : JobLedger.part(c.start(), cut, c.checkpoints());
  }

  int accepting(JobLedger j) {
    return ctl.accepting(j);
  }

  long probeUnits(JobLedger j, int workers) {
    if (j.def.chunkUnits() > 0) {
      return j.def.chunkUnits();
    }
    return Math.max(1, j.units() / (16L * Math.max(1, workers)));
  }

  /** Takes (part of) the back of the queue that would take longest to run; false if all are empty. */
  boolean steal(JobLedger j, Member m, double now) {
    // each failed attempt drops an item that was already saved, so this ends
    for (int attempts = 0; attempts < 1_000_000; attempts++) {
      Boolean taken = stealOnce(j, m, now);
      if (taken != null) {
        return taken;
      }
    }
    return false;
  }

  /** True if it took something, false if there is nothing to take, null to try again. */
  Boolean stealOnce(JobLedger j, Member m, double now) {
    WorkQueue longest = j.queues.longest(m.id);
    if (longest == null) {
      return Boolean.FALSE;
    }
    Member victim = ctl.members.get(longest.owner);
    WorkQueue q = longest;
    ChunkPlan last = q.pollLast();
    ChunkPlan taken = last;
    if (q.isEmpty() && last.units() > 1) {
      double sv = speed(victim, j);
      double sm = speed(m, j);
      double share = sv > 0 && sm > 0 ? sm / (sv + sm) : 0.5;
      long cut = last.end() - Math.round(last.units() * share);
      if (!(sm > 0)) {
        cut = Math.max(cut, last.end() - probeUnits(j, accepting(j)));
      }
      if (cut > last.start() && cut < last.end()) {
        cut = Math.min(last.end(), j.def.align().applyAsLong(cut));
      }
      if (cut > last.start() && cut < last.end()) {
        q.addLast(JobLedger.part(last.start(), cut, last.checkpoints()));
        taken = JobLedger.part(cut, last.end(), last.checkpoints());
      }
    }
    WorkQueue mine = j.queue(m.id);
    mine.addFirst(taken);
    ChunkPlan c = fromQueue(j, mine, m, now, poolCap(j, m, now));
    if (c == null) {
      // all of it was saved already, or nothing of it fits this worker
      return mine.isEmpty() ? null : Boolean.FALSE;
    }
    assign(j, m, c, now, false);
    return true;
  }

  /**
   * Splits off the tail of the running copy that would finish last and gives it to this idle
   * worker (B1); replicates it instead when the holder is likely to be lost before finishing.
   */
  boolean split(JobLedger j, Member m, double now) {
    Copy c = splitCandidate(j, now);
    if (c == null || c.worker == m) {
      // (a worker with nothing in hand holds no copy: the second cannot happen)
      return false;
    }
    double latest = finishSeconds(c, now);
    double sh = speed(c.worker, j);
    double sm = speed(m, j);
    double thief = sm > 0 ? sm : sh;
    boolean waiting = !computing(c);
    // the holder does [from, x) after `ahead` seconds, the thief [x, end): both finish together
    double from = waiting ? c.cursor : c.position(now, sh);
    double ahead = waiting ? finishSeconds(c, now) - (c.end - c.cursor) / sh : 0;
    double keep = Math.max(0, ((c.end - from) / thief - ahead) / (1 / sh + 1 / thief));
    long x = (long) Math.ceil(from + keep);
    if (!waiting) {
      x = Math.max(x, Math.max(c.cursor + 1, (long) Math.ceil(from + sh * ctl.config.splitMargin())));
    }
    if (!(sm > 0)) {
      // a worker of unknown speed gets a probe's worth, not a share
      x = Math.max(x, c.end - probeUnits(j, accepting(j)));
    }
    x = Math.max(x, c.cursor);
    if (x > c.cursor && x < c.end) {
      x = Math.min(c.end, j.def.align().applyAsLong(x));
    }
    if (x >= c.end) {
      return false;
    }
    Worker holder = ctl.estimator.worker(c.worker.id, j.def.workload(), j.def.hasInput(), j.def.bytesPerUnit(),
        j.def.risk(), now);
    double lostFirst = holder == null ? 0 : j.def.risk().interrupted(holder, latest);
    if (!waiting && lostFirst >= ctl.config.replicateAbove()) {
      // the same units from where the holder's next piece starts, cut at the same checkpoints: the
      // two copies report identical pieces, and the first commit of each wins
      c.replica = true;
      ctl.touch(c.worker);
      j.replicated = true;
      assign(j, m, JobLedger.part(c.cursor, c.end, c.checkpoints), now, true);
      return true;
    }
    long oldEnd = c.end;
    if (x == c.cursor && waiting) {
      ctl.out.add(new Action.Cancel(c.worker.id, j.def.id(), c.id, "moved to idle worker " + m.id));
      ctl.removeCopy(c, now);
    } else {
      c.end = x;
      ctl.touch(c.worker);
      ctl.out.add(new Action.Truncate(c.worker.id, j.def.id(), c.id, x, true, "its tail goes to idle worker " + m.id));
    }
    assign(j, m, JobLedger.part(x, oldEnd, c.checkpoints), now, false);
    return true;
  }

  /** The running copy of the job that would finish last, if later than {@code splitSeconds} from now; else null. */
  Copy splitCandidate(JobLedger j, double now) {
    ctl.refile();
    return j.finishes.latest(now, ctl.config.splitSeconds());
  }

  /** Whether an idle worker could split a copy of the job now. */
  boolean hasSplit(JobLedger j, double now) {
    return splitCandidate(j, now) != null;
  }

  /** Whether an idle worker could take a copy not started from a worker holding more than the window. */
  boolean hasSurplus(JobLedger j) {
    ctl.refile();
    return j.surplus.most(null) != null;
  }

  /**
   * Takes the copy the worker holding most beyond the window would start last: a worker that came
   * after the pool ran dry gets work that would otherwise wait behind another worker's window. The
   * holder is told to drop it (it has not started it; if it has, what it reports is discarded).
   */
  boolean unload(JobLedger j, Member m, double now) {
    ctl.refile();
    Copy c = j.surplus.most(m);
    if (c == null) {
      return false;
    }
    ctl.out.add(new Action.Cancel(c.worker.id, j.def.id(), c.id, "moved to idle worker " + m.id));
    ctl.removeCopy(c, now);
    assign(j, m, JobLedger.part(c.cursor, c.end, c.checkpoints), now, false);
    return true;
  }

  /** Whether the copy is its holder's first and has started: the only one that progresses with time. */
  static boolean computing(Copy c) {
    return !Double.isNaN(c.startedAt) && !c.worker.copies.isEmpty() && c.worker.copies.get(0) == c;
  }

  /** Whether an idle worker may take the tail of the copy, or a replica of it. */
  static boolean splittable(Copy c) {
    return !c.replica && c.check == null;
  }

  /** Whether the copy may move whole to another worker: not started, not a replica or check, not kept for a returning worker. */
  static boolean movable(Copy c) {
    return splittable(c) && !c.reserved() && !computing(c);
  }

  /**
   * Seconds the holder still needs for its {@code i}-th copy at {@code s} units/s: a worker computes
   * its copies in order, so only its first one, once started, moves on with the clock.
   */
  static double secondsLeft(Member m, int i, double now, double s) {
    Copy k = m.copies.get(i);
    double at = i == 0 && !Double.isNaN(k.startedAt) ? k.position(now, s) : k.cursor;
    return (k.end - at) / s;
  }

  /** Seconds from now until the holder finishes this copy (its copies ahead of it first). */
  double finishSeconds(Copy c, double now) {
    double s = speed(c.worker, c.job);
    if (!(s > 0)) {
      return 0;
    }
    double t = 0;
    List<Copy> held = c.worker.copies;
    for (int i = 0; i < held.size(); i++) {
      t += secondsLeft(c.worker, i, now, s);
      if (held.get(i) == c) {
        break;
      }
    }
    return t;
  }

  /** Seconds until the worker is through everything it holds. */
  double busySeconds(Member m, double now) {
    double t = 0;
    JobLedger last = null;
    double s = Double.NaN;
    for (int i = 0; i < m.copies.size(); i++) {
      JobLedger j = m.copies.get(i).job;
      if (j != last) {
        last = j;
        s = speed(m, j);
      }
      if (s > 0) {
        t += secondsLeft(m, i, now, s);
      }
    }
    return t;
  }

  double speed(Member m, JobLedger j) {
    return speed(m, j.def.workload());
  }

  /** The worker's estimated speed for the workload, units/s; NaN while unknown. */
  double speed(Member m, String workload) {
    Estimate e = ctl.estimator.speed(m.id, workload);
    return e.known() ? e.value() : Double.NaN;
  }

  /**
   * The checkpoint round trip assumed, in seconds, until one is measured and before the store's own
   * write time is known ({@link Controller#durableWrite}): a piece saved over a slow network to a
   * disk that syncs. Larger than the real one makes the pieces longer than the best
   * (sqrt of the ratio), never unbounded.
   */
  static final double EPS_PRIOR = 1;

  /**
   * The chunk with no piece longer than the worker's checkpoint interval under its estimated hazard
   * ({@link Checkpointing#youngDaly}, with the measured eps), in units at its speed: a crash at the
   * worst moment loses at most one interval of its work, whatever the plan laid out (a plan's share
   * past paper 000's validity bound, the tail after its checkpoints, a pool chunk, another's queue).
   * Before the first saved piece measures eps, the store's last durable write stands for it (see
   * {@link Controller#durableWrite}), and before that {@link #EPS_PRIOR}: the first copies, the
   * largest of a plan, are bounded too. For a worker whose owner policy saves its piece as it
   * vacates, the hazard is that of crashes only ({@link dev.gleaner.common.estimate.Estimator#crashRate}).
   * Unchanged while the worker has no hazard or its speed is not known yet.
   */
  ChunkPlan hazardBounded(JobLedger j, Member m, ChunkPlan c, double now) {
    Estimate eps = ctl.estimator.eps();
    double speed = speed(m, j);
    if (!(speed > 0)) {
      return c;
    }
    // a worker that saves its piece when its owner comes back loses work only to crashes
    double rate = m.savesOnVacate ? ctl.estimator.crashRate(m.id, now) : ctl.estimator.risk(m.id, now).rate();
    double seconds = Checkpointing.youngDaly(eps.known() && eps.value() > 0 ? eps.value() : EPS_PRIOR, rate);
    return Double.isFinite(seconds)
        ? Checkpointing.bounded(c, seconds * speed, j.def.align(), Checkpointing.MAX_CHUNKS) : c;
  }

  /** Gives the worker the first check it may take (not one it committed or checked); false if none. */
  boolean check(JobLedger j, Member m, double now) {
    for (java.util.Iterator<JobLedger.Check> it = j.checks.iterator(); it.hasNext(); ) {
      JobLedger.Check k = it.next();
      if (!k.excluded().contains(m.id)) {
        it.remove();
        assign(j, m, new ChunkPlan(k.start(), k.end(), new long[0]), now, false).check = k;
        ctl.touch(m);
        return true;
      }
    }
    return false;
  }

  Copy assign(JobLedger j, Member m, ChunkPlan planned, double now, boolean replica) {
    ChunkPlan c = hazardBounded(j, m, planned, now);
    Copy copy = new Copy(j.nextCopyId++, j, m, c.start(), c.end(), c.checkpoints());
    copy.replica = replica;
    j.copies.put(copy.id, copy);
    m.copies.add(copy);
    if (m.copies.size() == 1) {
      copy.started(now);
    }
    ctl.touch(m);
    long bytes = j.def.hasInput() ? (long) Math.ceil(c.units() * j.def.bytesPerUnit()) : 0;
    ctl.out.add(new Action.Assign(m.id, j.def.id(), copy.id, c.start(), c.end(), c.checkpoints(), bytes,
        ctl.lease(m, copy)));
    if (bytes > 0) {
      ctl.out.add(new Action.Stream(m.id, j.def.id(), copy.id, c.start(), c.end(), j.rank.getOrDefault(m.id, Integer.MAX_VALUE)));
    }
    return copy;
  }
}
