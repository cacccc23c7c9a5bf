package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.Member;
import dev.gleaner.common.control.state.WorkQueue;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The workers shared among owners, and among one owner's jobs. While every live job is one owner's
 * at one priority, jobs are served in the order they came (nothing here runs). Once two owners, or
 * two priorities of one owner, have jobs running, each job gets a target of workers:
 *
 * <ul>
 *   <li>the up workers are dealt out one at a time to the owner whose jobs still want one (a worker
 *       each for what they hold and for each piece waiting) and who has the fewest for its weight
 *       ({@link ControlState#shareWeights}, 1 unless an operator set one), so an owner that wants
 *       less than its share lends the rest and takes it back when it wants it;
 *   <li>an owner's workers go to its jobs by priority, highest first, then by arrival.
 * </ul>
 *
 * <p>A worker asking for work is offered the jobs furthest below their targets first ({@link #order});
 * one that has nothing for it passes it on to the next, so a share nobody uses is lent. When a job
 * below its target has work waiting and no worker is coming free for it, the master takes workers
 * back from jobs above theirs ({@link #preempt}): the longest-running chunk of the job furthest above
 * its target is cut a little ahead of where its worker is now ({@code splitMargin} seconds of its
 * work, as a split is cut), so what it computed, and the piece it is computing, are reported and
 * kept; the rest of the chunk, and the chunks it had not started, go back to their job's pool. No
 * unit is lost. A worker already past the cut (faster than its estimate) reports a piece past it, which
 * counts if it comes first; the same units from the worker given the tail are then discarded (as
 * after a split).
 *
 * <p>Each pump with jobs contested looks at every worker once (their held chunks), and each worker
 * served sorts the running jobs: fine for the tens of workers and handful of jobs of a shared lab.
 */
final class FairShare {
  private final ControlState s;
  /** Each job's target, and each job's workers, as counted at the last {@link #count}. */
  private final Map<JobLedger, Integer> target = new HashMap<>();
  private final Map<JobLedger, Integer> held = new HashMap<>();
  private final Map<JobLedger, Integer> arrival = new HashMap<>();

  FairShare(ControlState s) {
    this.s = s;
  }

  /** Whether jobs of two owners, or two priorities of one owner, are running: then shares are kept. */
  boolean contested() {
    JobDef.Tenant first = null;
    for (JobLedger j : s.live()) {
      if (!j.active()) {
        continue;
      }
      if (first == null) {
        first = j.def.tenant();
      } else if (!first.equals(j.def.tenant())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Counts each running job's workers (those whose chunk under way is of it, and not being taken
   * back) and deals out the targets; to be called once a pump, before {@link #order} and
   * {@link #preempt}.
   */
  void count() {
    target.clear();
    held.clear();
    arrival.clear();
    List<JobLedger> jobs = new ArrayList<>();
    for (JobLedger j : s.live()) {
      if (j.active()) {
        arrival.put(j, arrival.size());
        held.put(j, 0);
        jobs.add(j);
      }
    }
    int up = 0;
    for (Member m : s.members.values()) {
      if (!m.up()) {
        continue;
      }
      up++;
      JobLedger j = runningJob(m);
      if (j != null && held.containsKey(j)) {
        held.merge(j, 1, Integer::sum);
      }
    }
    // each owner's jobs, by priority then arrival; what each wants
    Map<String, List<JobLedger>> byOwner = new LinkedHashMap<>();
    for (JobLedger j : jobs) {
      byOwner.computeIfAbsent(j.def.tenant().owner(), o -> new ArrayList<>()).add(j);
    }
    Map<String, Integer> wants = new HashMap<>();
    for (Map.Entry<String, List<JobLedger>> e : byOwner.entrySet()) {
      e.getValue().sort(Comparator.comparingInt((JobLedger j) -> j.def.tenant().priority()).reversed()
          .thenComparingInt(arrival::get));
      int sum = 0;
      for (JobLedger j : e.getValue()) {
        sum = (int) Math.min(up, (long) sum + wants(j, up));
      }
      wants.put(e.getKey(), sum);
    }
    // the workers dealt out one at a time: to the owner who wants one and has the fewest for its weight
    Map<String, Integer> dealt = new HashMap<>();
    for (int k = 0; k < up; k++) {
      String best = null;
      double bestLoad = Double.POSITIVE_INFINITY;
      for (String owner : byOwner.keySet()) {
        int d = dealt.getOrDefault(owner, 0);
        double load = (d + 1) / weight(owner);
        if (d < wants.get(owner) && load < bestLoad) {
          best = owner;
          bestLoad = load;
        }
      }
      if (best == null) {
        break;
      }
      dealt.merge(best, 1, Integer::sum);
    }
    for (Map.Entry<String, List<JobLedger>> e : byOwner.entrySet()) {
      int left = dealt.getOrDefault(e.getKey(), 0);
      for (JobLedger j : e.getValue()) {
        int t = Math.min(left, wants(j, up));
        target.put(j, t);
        left -= t;
      }
    }
  }

  /** An owner's weight: as an operator set it, else 1. */
  private double weight(String owner) {
    Double w = s.shareWeights.get(owner);
    return w != null ? w : 1;
  }

  /**
   * Workers the job can use now: those it holds and one for each piece waiting (all, before its first
   * plan), no more than the workers that take it.
   */
  private int wants(JobLedger j, int up) {
    up = Math.min(up, s.accepting(j));
    long n = held.getOrDefault(j, 0);
    if (!j.unplanned.isEmpty()) {
      return up;
    }
    n += j.pool.size();
    for (WorkQueue q : j.queues.all()) {
      n += q.size();
      if (n >= up) {
        return up;
      }
    }
    return (int) Math.min(up, n);
  }

  /**
   * The job the worker serves: that of the last chunk it holds (the one it goes on to: a worker that
   * took the next job's chunk behind its current one is that job's already), unless that chunk is
   * being taken back (the worker is coming free).
   */
  static JobLedger runningJob(Member m) {
    if (m.chunks.isEmpty()) {
      return null;
    }
    Chunk c = m.chunks.get(m.chunks.size() - 1);
    return c.preempted ? null : c.job;
  }

  /**
   * The running jobs the worker may take, the furthest below its target first (the worker itself
   * not counted in what its job holds), then by priority and arrival.
   */
  List<JobLedger> order(Member m) {
    JobLedger own = runningJob(m);
    List<JobLedger> jobs = new ArrayList<>();
    for (JobLedger j : held.keySet()) {
      if (j.active() && j.takes(m)) {
        jobs.add(j);
      }
    }
    jobs.sort(Comparator.comparingInt((JobLedger j) -> target.get(j) - held.get(j) + (j == own ? 1 : 0)).reversed()
        .thenComparing(Comparator.comparingInt((JobLedger j) -> j.def.tenant().priority()).reversed())
        .thenComparingInt(arrival::get));
    return jobs;
  }

  /**
   * The worker, which served {@code before} (null: nothing, or coming free), just got a chunk: if it
   * now serves another job, that job holds one more and {@code before} one less.
   */
  void gave(Member m, JobLedger before) {
    JobLedger now = runningJob(m);
    if (now != before) {
      if (before != null) {
        held.computeIfPresent(before, (j, n) -> n - 1);
      }
      if (now != null) {
        held.computeIfPresent(now, (j, n) -> n + 1);
      }
    }
  }

  /**
   * Takes workers back from jobs above their targets for jobs below theirs that have work waiting,
   * as many as the idle workers and those already coming free do not cover (see the class comment).
   */
  void preempt(double now) {
    int need = 0;
    List<JobLedger> hungry = new ArrayList<>();
    for (Map.Entry<JobLedger, Integer> e : target.entrySet()) {
      JobLedger j = e.getKey();
      int below = e.getValue() - held.get(j);
      if (below > 0 && waiting(j)) {
        need += below;
        hungry.add(j);
      }
    }
    if (need == 0) {
      return;
    }
    int coming = 0;
    for (Member m : s.members.values()) {
      JobLedger j = m.up() ? runningJob(m) : null;
      // idle, being taken back, or serving a job that is ending: it comes free
      if (m.up() && (j == null || !held.containsKey(j))) {
        coming++;
      }
    }
    // bounded: each pass cuts one worker or returns
    for (int cuts = need - coming; cuts > 0; cuts--) {
      Chunk c = null;
      JobLedger from = null;
      List<Map.Entry<JobLedger, Integer>> over = new ArrayList<>(held.entrySet());
      over.sort(Comparator.comparingInt((Map.Entry<JobLedger, Integer> e) -> e.getValue()
          - target.getOrDefault(e.getKey(), 0)).reversed());
      for (Map.Entry<JobLedger, Integer> e : over) {
        if (e.getValue() - target.getOrDefault(e.getKey(), 0) <= 0) {
          break;
        }
        // the job furthest above its target that has a worker the hungry jobs can use
        c = longestRunning(e.getKey(), hungry);
        if (c != null) {
          from = e.getKey();
          break;
        }
      }
      if (c == null) {
        return;
      }
      held.merge(from, -1, Integer::sum);
      cut(c, now);
    }
  }

  /** Whether the job has pieces waiting for a worker. */
  private static boolean waiting(JobLedger j) {
    return !j.pool.isEmpty() || j.queues.anyQueued();
  }

  /** The job's chunk under way that started first, on a worker that may take one of the hungry jobs; null if none. */
  private Chunk longestRunning(JobLedger over, List<JobLedger> hungry) {
    Chunk best = null;
    for (Member m : s.members.values()) {
      if (!m.up() || runningJob(m) != over || m.chunks.get(0).job != over) {
        continue;
      }
      Chunk c = m.chunks.get(0);
      if (!c.splittable() || c.reserved() || !hungry.stream().anyMatch(j -> j.takes(m))) {
        continue;
      }
      double at = Double.isNaN(c.startedAt) ? Double.POSITIVE_INFINITY : c.startedAt;
      double bestAt = best == null || Double.isNaN(best.startedAt) ? Double.POSITIVE_INFINITY : best.startedAt;
      if (best == null || at < bestAt) {
        best = c;
      }
    }
    return best;
  }

  /**
   * Frees the chunk's worker: the chunk is cut {@code splitMargin} seconds of work ahead of where its
   * worker probably is (not at all if it ends sooner), and what lies past the cut goes back to its
   * job's pool, with every chunk the worker holds behind it that it has not started.
   */
  private void cut(Chunk c, double now) {
    JobLedger j = c.job;
    Member m = c.worker;
    c.preempted = true;
    List<Chunk> behind = new ArrayList<>(m.chunks.subList(1, m.chunks.size()));
    // the last first, so that each job's pool has them back in their order
    java.util.Collections.reverse(behind);
    for (Chunk k : behind) {
      if (k.movable()) {
        s.emit(new Action.Cancel(m.id, k.job.def.id(), k.id, "preempted: its worker goes to a job below its share"));
        s.removeChunk(k, now);
        k.job.pool.addFirst(JobLedger.part(k.cursor, k.end, k.checkpoints));
      }
    }
    double speed = s.throughput(m, j);
    if (!c.computing()) {
      s.emit(new Action.Cancel(m.id, j.def.id(), c.id, "preempted: its worker goes to a job below its share"));
      s.removeChunk(c, now);
      j.pool.addFirst(JobLedger.part(c.cursor, c.end, c.checkpoints));
    } else if (speed > 0) {
      long x = (long) Math.ceil(c.position(now, speed) + speed * s.config.splitMargin());
      x = Math.max(x, c.cursor + 1);
      if (x < c.end) {
        x = Math.min(c.end, j.def.align().applyAsLong(x));
      }
      if (x < c.end) {
        long oldEnd = c.end;
        c.end = x;
        s.emit(new Action.Truncate(m.id, j.def.id(), c.id, x, true,
            "preempted: its worker goes to a job below its share once it reaches " + x));
        j.pool.addFirst(JobLedger.part(x, oldEnd, c.checkpoints));
      }
    }
    // (a worker of unknown speed finishes its chunk, a probe's worth, before it moves)
    s.touch(m);
    s.workChanged = true;
  }
}
