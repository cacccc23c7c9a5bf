package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.Held;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.JobMemory;
import dev.gleaner.common.control.state.Member;
import dev.gleaner.common.util.RangeSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Jobs taken up, and the chunks a restart kept: a job a restarted master takes up again comes with
 * the chunks its store says were handed out and not finished, and with its memories (the same
 * recovery lists, the same homes, the checks it had picked). Each such chunk's unsaved units stay
 * reserved for its worker for a grace: a worker that kept computing through the restart claims the
 * chunk when it connects and goes on with it; the units of a worker that does not come back in time,
 * or of one that comes back without it, go to others as if it had been lost then. Of two chunks
 * over the same units, the later (the master's newer decision) is kept.
 */
public final class Restarts {
  /** Chunks in the order they were handed out (a worker computes them in that order). */
  private static final Comparator<Chunk> BY_ID = Comparator.comparingLong((Chunk c) -> c.id);

  private final ControlState s;
  private final Rerouting rerouting;
  private final PlanTriggers triggers;

  Restarts(ControlState s, Rerouting rerouting, PlanTriggers triggers) {
    this.s = s;
    this.rerouting = rerouting;
    this.triggers = triggers;
  }

  /**
   * A job to run, with the chunks its store says were handed out (ids below the job's first chunk
   * id, each with {@code acked} the end of its committed pieces) and its memories (null: none).
   *
   * @throws IllegalArgumentException if the job is known already, a chunk is not one of its own, or
   *     a memory does not parse
   */
  public void add(JobDef def, List<Held> handedOut, double graceSeconds, String planMemory, String checksMemory,
      double now) {
    if (s.jobs.containsKey(def.id())) {
      throw new IllegalArgumentException("job " + def.id() + " is already known");
    }
    List<Held> newestFirst = new ArrayList<>(handedOut);
    newestFirst.sort((a, b) -> Long.compare(b.chunkId(), a.chunkId()));
    for (Held h : newestFirst) {
      if (!h.job().equals(def.id()) || h.chunkId() >= def.firstChunkId()) {
        throw new IllegalArgumentException("chunk " + h + " is not a chunk of job " + def.id() + " below id "
            + def.firstChunkId());
      }
    }
    JobLedger j = s.ledger(def);
    // a memory that does not parse throws before the job is known
    JobMemory.restore(j, planMemory, checksMemory);
    s.add(j);
    // what was given back is already stored
    j.planMemory = JobMemory.planVersion(j);
    j.checksMemory = JobMemory.checksVersion(j);
    RangeSet taken = new RangeSet();
    for (Held h : newestFirst) {
      if (h.acked() >= h.end() || taken.intersects(h.acked(), h.end()) || j.committed.containsAll(h.acked(), h.end())) {
        continue;
      }
      Member m = s.members.computeIfAbsent(h.worker(), id -> Member.unseen(id, def.workload(), now));
      if (!m.state.down()) {
        continue;
      }
      Chunk c = new Chunk(h.chunkId(), j, m, h.start(), h.end(), h.checkpoints());
      c.cursor = h.acked();
      c.startedAt = now;
      c.progressAt = now;
      c.reservedUntil = now + graceSeconds;
      j.chunks.put(c.id, c);
      m.chunks.add(c);
      m.chunks.sort(BY_ID);
      s.touch(m);
      j.unplanned.remove(c.cursor, c.end);
      taken.add(c.cursor, c.end);
      s.reserved++;
    }
    s.workChanged = true;
  }

  /**
   * A worker opened a new session while its old one looked alive: what it claims of the chunks it
   * holds stays with it, reserved until it takes them up (the old session is lost next).
   */
  void keepClaimed(Member m, List<Held> claims, double now) {
    for (Held h : claims) {
      JobLedger j = s.jobs.get(h.job());
      Chunk c = j == null ? null : j.chunks.get(h.chunkId());
      if (c != null && c.worker == m && !c.reserved()) {
        c.reservedUntil = now;
        s.reserved++;
        s.touch(m);
      }
    }
  }

  /**
   * The worker's connection is gone but the worker most likely is not (the relay it came through
   * went away): each chunk it holds stays reserved for it for the chunk's lease, for it to take up
   * when it comes back another way (it goes on computing meanwhile); what it does not claim by then
   * goes to others, as at a master's restart.
   */
  public void hold(Member m, double now) {
    for (Chunk c : m.chunks) {
      // a check goes back to its job's checks at the loss, as always: nothing of it is lost
      if (!c.reserved() && c.check == null) {
        c.reservedUntil = now + s.lease(m, c);
        c.progressAt = now;
        s.reserved++;
      }
    }
    s.touch(m);
  }

  /** The worker's claims taken up or cancelled; its reserved chunks it did not claim go to others. */
  void takeUp(Member m, List<Held> claims, double now) {
    Set<Chunk> claimed = new HashSet<>();
    for (Held h : claims) {
      JobLedger j = s.jobs.get(h.job());
      Chunk c = j == null ? null : j.chunks.get(h.chunkId());
      boolean live = j != null && j.phase.open();
      if (live && c != null && c.worker == m && c.reserved() && c.start == h.start() && h.acked() <= c.end) {
        c.reservedUntil = Double.NaN;
        s.reserved--;
        claimed.add(c);
        if (h.acked() > c.cursor) {
          // acknowledged as saved elsewhere (a duplicate) after the store's last piece of this chunk
          long from = c.cursor;
          c.cursor = h.acked();
          rerouting.rerouteOrphans(j, m.id, List.of(JobLedger.part(from, c.cursor, c.checkpoints)), null, now);
        }
        if (h.end() < c.end) {
          // the worker stops earlier than the store says (a truncation the store missed, a stop)
          long oldEnd = c.end;
          c.end = Math.max(c.cursor, h.end());
          rerouting.rerouteOrphans(j, m.id, List.of(JobLedger.part(c.end, oldEnd, c.checkpoints)), null, now);
        } else if (h.end() > c.end) {
          // it may have computed past a truncation it missed: such a piece is taken (and counted once)
          c.assignedEnd = Math.max(c.assignedEnd, h.end());
          s.emit(new Action.Truncate(m.id, j.def.id(), c.id, c.end, false,
              "its worker came back past a truncation it missed"));
        }
        c.progressAt = now;
        if (c.cursor >= c.end) {
          // nothing of it is left to report: its pieces on the way are duplicates
          s.removeChunk(c, now);
          claimed.remove(c);
        }
      } else {
        if (j != null && c == null && h.chunkId() < j.nextChunkId) {
          // its pieces still on the way are acknowledged and not counted, not refused
          j.ended.putIfAbsent(h.chunkId(), m.id);
        }
        s.emit(new Action.Cancel(m.id, h.job(), h.chunkId(), j == null ? "the master knows no job " + h.job()
            : !live ? "job " + h.job() + " has ended" : "the master no longer keeps this chunk for worker " + m.id));
      }
    }
    for (Chunk c : List.copyOf(m.chunks)) {
      if (c.reserved() && !claimed.contains(c)) {
        release(c, "worker " + m.id + " came back without it", now);
      }
    }
    m.chunks.sort(BY_ID);
    if (!m.chunks.isEmpty()) {
      m.chunks.get(0).started(now);
    }
    s.touch(m);
  }

  /**
   * Reserved chunks whose workers did not come back within the grace go to others; so do those of a
   * job with nothing else left for an idle worker, once {@link ControlConfig#IDLE_RESERVED_SECONDS}
   * have passed.
   */
  void expire(double now) {
    if (s.reserved == 0) {
      return;
    }
    for (JobLedger j : s.live()) {
      boolean idle = false;
      boolean idleKnown = false;
      for (Chunk c : List.copyOf(j.chunks.values())) {
        if (!c.reserved() || !c.worker.state.down()) {
          continue;
        }
        if (c.reservedUntil <= now) {
          release(c, "worker " + c.worker.id + " did not come back for its chunk " + c.id, now);
        } else if (now - c.progressAt >= ControlConfig.IDLE_RESERVED_SECONDS) {
          if (!idleKnown) {
            idle = j.active() && j.unstarted() == 0 && s.waiting.anyBelowWindow(j::takes);
            idleKnown = true;
          }
          if (idle) {
            release(c, "worker " + c.worker.id + " is not back and others are idle", now);
          }
        }
      }
    }
  }

  /** A reserved chunk's units go to the others: its worker did not claim it in time. */
  private void release(Chunk c, String why, double now) {
    JobLedger j = c.job;
    s.removeChunk(c, now);
    s.emit(new Action.Withdrawn(c.worker.id, j.def.id(), c.id));
    if (j.phase.open()) {
      rerouting.rerouteOrphans(j, c.worker.id,
          List.of(JobLedger.part(c.cursor, Math.max(c.cursor, c.end), c.checkpoints)), null, now);
      if (j.active()) {
        triggers.replanLater(j, why);
      }
    }
  }
}
