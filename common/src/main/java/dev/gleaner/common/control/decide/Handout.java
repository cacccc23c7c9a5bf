package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.Member;
import dev.gleaner.common.control.state.WorkQueue;
import dev.gleaner.common.estimate.Estimate;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Checkpointing;
import dev.gleaner.common.plan.ChunkPlan;
import java.util.Iterator;
import java.util.List;

/**
 * The hand-out: which chunk a worker with a free slot gets from its own queue, else the pool
 * (capped: guided self-scheduling), else a check to compute again, each piece cut to what fits
 * before the job's deadline or the worker's declared end and to what its hazard allows; and how a
 * chunk is made (recorded, its Assign and its input's Stream decided). {@link Stealing} takes from
 * others when this finds nothing; {@link Serving} decides who looks when.
 */
final class Handout {
  private final ControlState s;

  Handout(ControlState s) {
    this.s = s;
  }

  /** Gives the worker one chunk from its queue or the pool of a running job it takes; false if none. */
  boolean planned(Member m, double now) {
    return planned(m, s.live(), now);
  }

  /** As {@link #planned(Member, double)}, looking at these jobs in this order. */
  boolean planned(Member m, List<JobLedger> jobs, double now) {
    for (JobLedger j : jobs) {
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
    return false;
  }

  /** Gives the worker the first committed piece it may compute again for comparison (not one it committed or checked). */
  boolean check(Member m, double now) {
    return check(m, s.live(), now);
  }

  /** As {@link #check(Member, double)}, looking at these jobs in this order. */
  boolean check(Member m, List<JobLedger> jobs, double now) {
    for (JobLedger j : jobs) {
      if (j.active() && j.takes(m) && check(j, m, now)) {
        return true;
      }
    }
    return false;
  }

  private boolean check(JobLedger j, Member m, double now) {
    for (Iterator<JobLedger.Check> it = j.checks.iterator(); it.hasNext(); ) {
      JobLedger.Check k = it.next();
      if (!k.excluded().contains(m.id)) {
        it.remove();
        assign(j, m, new ChunkPlan(k.start(), k.end(), new long[0]), now, false).check = k;
        s.touch(m);
        return true;
      }
    }
    return false;
  }

  /** Below its window, or below the most it may hold while what it holds is done within the lead time. */
  boolean wantsMore(Member m, double now) {
    int held = m.chunks.size();
    ControlConfig config = s.config;
    return held < config.window()
        || held < config.maxWindow() && config.lead() > 0 && busySeconds(m, now) < config.lead() && knownPace(m);
  }

  /** Whether the worker's time for each chunk it holds is known. */
  private boolean knownPace(Member m) {
    JobLedger last = null;
    for (Chunk c : m.chunks) {
      // a worker's chunks are mostly of one job: one look-up per run of them
      if (c.job != last) {
        last = c.job;
        // and its link, for a job that streams input: until then its time per chunk is not known
        if (!(s.speed(m, last) > 0) || last.def.hasInput() && !s.estimator.bandwidth(m.id).known()) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * The most units a worker takes at once from the pool or another worker's queue: a sixteenth of
   * the time the job still needs on all workers (or to its deadline, if sooner), at this worker's
   * speed; never less than {@code splitSeconds} of work, nor than the job's chunk size. Pieces of
   * the worker's own plan are taken as planned. (Guided self-scheduling: pieces shrink as the job
   * nears its end, so the last ones finish together.)
   */
  long poolCap(JobLedger j, Member m, double now) {
    double sm = s.speed(m, j);
    if (!(sm > 0)) {
      return probeUnits(j, s.accepting(j));
    }
    if (!(now - j.speedSumAt < 1)) {
      double total = 0;
      for (Member w : s.members.values()) {
        double speed = w.up() && j.takes(w) ? s.speed(w, j) : Double.NaN;
        if (speed > 0) {
          total += speed;
        }
      }
      j.speedSum = total;
      j.speedSumAt = now;
    }
    double total = j.speedSum;
    double left = j.units() - j.committed.size() - j.pending.size();
    double seconds = Math.min(left / Math.max(sm, total), j.def.deadline() - now);
    double cap = Math.ceil(sm * Math.max(s.config.splitSeconds(), seconds / 16));
    return (long) Math.max(Math.max(1, j.def.chunkUnits()), Math.min(Long.MAX_VALUE / 2, cap));
  }

  /**
   * The most units a worker takes at once from its own queue: its plan's pieces as planned when
   * the plan knew a risk for it (their sizes then come from paper 000's Theorems 2-3, trading eps
   * against the work an interruption loses), otherwise no more than from the pool: evenly spaced
   * default checkpoints are no basis for a piece's size.
   */
  private long ownCap(JobLedger j, Member m, double now) {
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
  private ChunkPlan fit(JobLedger j, Member m, ChunkPlan c, double now) {
    double speed = s.speed(m, j);
    long take = c.units();
    if (!(speed > 0)) {
      take = Math.min(take, probeUnits(j, s.accepting(j)));
    } else {
      double limit = Math.min(j.def.deadline(), m.availableUntil);
      if (Double.isFinite(limit)) {
        Estimate eps = s.estimator.eps();
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

  /** A probe chunk's units while no speed is known: the job's chunk size, or a sixteenth of a worker's share. */
  static long probeUnits(JobLedger j, int workers) {
    if (j.def.chunkUnits() > 0) {
      return j.def.chunkUnits();
    }
    return Math.max(1, j.units() / (16L * Math.max(1, workers)));
  }

  /** Seconds from now until the holder finishes this chunk (its chunks ahead of it first). */
  double finishSeconds(Chunk c, double now) {
    double speed = s.throughput(c.worker, c.job);
    if (!(speed > 0)) {
      return 0;
    }
    double t = 0;
    for (Chunk k : c.worker.chunks) {
      t += k.secondsLeft(now, speed);
      if (k == c) {
        break;
      }
    }
    return t;
  }

  /**
   * Seconds until the worker is through everything it holds, its input's time over its link included
   * (a worker behind a thin link holds less ahead than one on a fast one).
   */
  double busySeconds(Member m, double now) {
    double t = 0;
    JobLedger last = null;
    double speed = Double.NaN;
    for (Chunk k : m.chunks) {
      if (k.job != last) {
        last = k.job;
        speed = s.throughput(m, last);
      }
      if (speed > 0) {
        t += k.secondsLeft(now, speed);
      }
    }
    return t;
  }

  /**
   * The chunk with no piece longer than the worker's checkpoint interval under its estimated hazard
   * ({@link Checkpointing#youngDaly}, with the measured eps), in units at its speed: a crash at the
   * worst moment loses at most one interval of its work, whatever the plan laid out (a plan's share
   * past paper 000's validity bound, the tail after its checkpoints, a pool chunk, another's queue).
   * Before the first saved piece measures eps, the store's last durable write stands for it, and
   * before that {@link ControlConfig#EPS_PRIOR}: the first chunks, the largest of a plan, are
   * bounded too. For a worker whose owner policy saves its piece as it vacates, the hazard is that
   * of crashes only ({@link dev.gleaner.common.estimate.Estimator#crashRate}). Unchanged while the
   * worker has no hazard or its speed is not known yet.
   */
  ChunkPlan hazardBounded(JobLedger j, Member m, ChunkPlan c, double now) {
    Estimate eps = s.estimator.eps();
    double speed = s.speed(m, j);
    if (!(speed > 0)) {
      return c;
    }
    // a worker that saves its piece when its owner comes back loses work only to crashes
    double rate = m.savesOnVacate ? s.estimator.crashRate(m.id, now) : s.estimator.risk(m.id, now).rate();
    double seconds = Checkpointing.youngDaly(eps.known() && eps.value() > 0 ? eps.value() : ControlConfig.EPS_PRIOR,
        rate);
    return Double.isFinite(seconds)
        ? Checkpointing.bounded(c, seconds * speed, j.def.align(), Checkpointing.MAX_CHUNKS) : c;
  }

  /** Hands the worker the planned chunk, cut by its hazard: its Assign, and its input's Stream. */
  Chunk assign(JobLedger j, Member m, ChunkPlan planned, double now, boolean replica) {
    ChunkPlan c = hazardBounded(j, m, planned, now);
    Chunk chunk = new Chunk(j.nextChunkId++, j, m, c.start(), c.end(), c.checkpoints());
    chunk.replica = replica;
    j.chunks.put(chunk.id, chunk);
    m.chunks.add(chunk);
    m.heldBack = null;
    if (m.chunks.size() == 1) {
      chunk.started(now);
    }
    s.touch(m);
    long bytes = j.def.hasInput() ? (long) Math.ceil(c.units() * j.def.bytesPerUnit()) : 0;
    s.emit(new Action.Assign(m.id, j.def.id(), chunk.id, c.start(), c.end(), c.checkpoints(), bytes,
        s.lease(m, chunk)));
    if (bytes > 0) {
      s.emit(new Action.Stream(m.id, j.def.id(), chunk.id, c.start(), c.end(),
          j.rank.getOrDefault(m.id, Integer.MAX_VALUE), s.estimator.bandwidth(m.id).value()));
    }
    return chunk;
  }
}
