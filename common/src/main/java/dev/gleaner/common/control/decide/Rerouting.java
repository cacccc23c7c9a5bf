package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.Homes;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.Member;
import dev.gleaner.common.control.state.WorkQueue;
import dev.gleaner.common.plan.ChunkPlan;
import dev.gleaner.common.util.RangeSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where work nobody has any more goes: a worker's chunks and queue taken back, and the parts of
 * them that nobody else covers sent along the recovery lists (Klonowska's static lists, fixed at
 * the first plan: paper 004). Each part goes to the back of the queue of the first up worker on
 * its home's list; with none, to the front of the shared pool.
 */
final class Rerouting {
  private final ControlState s;

  Rerouting(ControlState s) {
    this.s = s;
  }

  /**
   * Takes the worker's chunks and queue of a job back: the unsaved rest of each chunk, then its
   * queue, as chunks keeping their checkpoints. With {@code cancelWhy}, the worker is told to stop
   * each chunk (a worker that is gone is not: its chunks are withdrawn). Checks go back to the
   * job's checks.
   */
  List<ChunkPlan> takeBack(Member m, JobLedger j, String cancelWhy, double now) {
    List<ChunkPlan> parts = new ArrayList<>();
    for (Chunk c : List.copyOf(m.chunks)) {
      if (c.job != j || c.reserved()) {
        continue;
      }
      s.emit(cancelWhy != null ? new Action.Cancel(m.id, j.def.id(), c.id, cancelWhy)
          : new Action.Withdrawn(m.id, j.def.id(), c.id));
      s.removeChunk(c, now);
      if (c.check != null) {
        j.checks.addFirst(c.check);
        s.workChanged = true;
        continue;
      }
      if (c.cursor < c.end) {
        // (a chunk collected at a cancel ends where its worker had reported up to: nothing of it is left)
        parts.add(JobLedger.part(c.cursor, c.end, c.checkpoints));
      }
    }
    WorkQueue q = j.queues.remove(m.id);
    if (q != null) {
      parts.addAll(q.toList());
    }
    return parts;
  }

  /**
   * Sends the parts of these chunks that nobody has any more (see {@link #orphans}) along the
   * recovery lists, from worker {@code from}.
   */
  void rerouteOrphans(JobLedger j, String from, List<ChunkPlan> chunks, String exceptQueue, double now) {
    reroute(j, from, orphans(j, chunks, exceptQueue), now);
  }

  /** The parts of these chunks that nobody has any more, as chunks keeping their checkpoints. */
  List<ChunkPlan> orphans(JobLedger j, List<ChunkPlan> chunks, String exceptQueue) {
    RangeSet covered = j.covered(exceptQueue);
    List<ChunkPlan> orphans = new ArrayList<>();
    for (ChunkPlan c : chunks) {
      RangeSet o = RangeSet.of(c.start(), c.end());
      o.removeAll(covered);
      for (long[] r : o.ranges()) {
        orphans.add(JobLedger.part(r[0], r[1], c.checkpoints()));
        covered.add(r[0], r[1]);
      }
    }
    return orphans;
  }

  /**
   * Sends orphaned work along the recovery lists: each part goes to the back of the queue of the
   * first up worker on its home's list (the lost worker is the home of work that had none); with no
   * such worker, to the front of the pool.
   */
  void reroute(JobLedger j, String from, List<ChunkPlan> orphans, double now) {
    if (orphans.isEmpty()) {
      return;
    }
    Map<List<String>, long[]> moved = new LinkedHashMap<>();
    List<ChunkPlan> toPool = new ArrayList<>();
    for (ChunkPlan c : orphans) {
      for (Homes.Part p : j.homes.parts(c.start(), c.end(), from)) {
        String to = j.firstOnList(p.home(), candidate -> {
          Member w = s.members.get(candidate);
          return w != null && w.up() && !candidate.equals(from) && j.takes(w);
        });
        ChunkPlan part = JobLedger.part(p.from(), p.to(), c.checkpoints());
        j.homes.assign(p.from(), p.to(), p.home());
        if (to == null) {
          toPool.add(part);
        } else {
          j.queue(to).addLast(part);
          s.waiting.wake(s.members.get(to));
        }
        long[] n = moved.computeIfAbsent(List.of(p.home(), to == null ? "" : to), k -> new long[2]);
        n[0] += part.units();
        n[1]++;
      }
    }
    for (int i = toPool.size() - 1; i >= 0; i--) {
      j.pool.addFirst(toPool.get(i));
    }
    for (Map.Entry<List<String>, long[]> e : moved.entrySet()) {
      Action.Rerouted r = new Action.Rerouted(j.def.id(), from, e.getKey().get(0), e.getKey().get(1), e.getValue()[0],
          (int) e.getValue()[1]);
      j.reroutes.add(r);
      s.emit(r);
    }
    s.workChanged = true;
  }
}
