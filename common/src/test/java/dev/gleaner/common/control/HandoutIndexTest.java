package dev.gleaner.common.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.control.state.Chunk;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.Member;
import dev.gleaner.common.control.state.WorkQueue;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;

/**
 * The hand-out's indexes against brute-force scans of the controller's state, after every event
 * of random runs (joins, pieces, commits, losses, returns, drains, failures, ticks): the copy an
 * idle worker splits is one the old scan over every copy would pick (equal finish, up to
 * rounding), the queue it steals from has the longest backlog, the holder it takes a copy not
 * started from holds most beyond the window, and the count of workers that take a job is right.
 * Nobody with nothing in hand waits while unstarted work of a job it takes remains.
 */
class HandoutIndexTest {
  /** A copy as the worker holding it sees it. */
  private static final class Held {
    final String worker;
    final String job;
    final long id;
    long end;
    final long[] checkpoints;
    long cursor;

    Held(Action.Assign a) {
      worker = a.worker();
      job = a.job();
      id = a.chunkId();
      end = a.end();
      checkpoints = a.checkpoints();
      cursor = a.start();
    }

    long nextCut() {
      long cut = end;
      for (long k : checkpoints) {
        if (k > cursor && k < cut) {
          cut = k;
        }
      }
      return cut;
    }
  }

  private record Pending(String worker, String job, long copy, long start, long end) {}

  private final Map<String, Held> held = new LinkedHashMap<>();
  private final List<Pending> pending = new ArrayList<>();
  private final Map<String, Boolean> up = new LinkedHashMap<>();
  private Controller c;
  private SplittableRandom r;
  private double now;

  private static String key(String job, long id) {
    return job + "#" + id;
  }

  private void apply(List<Action> actions) {
    for (Action a : actions) {
      if (a instanceof Action.Assign x) {
        held.put(key(x.job(), x.chunkId()), new Held(x));
      } else if (a instanceof Action.Truncate x) {
        Held h = held.get(key(x.job(), x.chunkId()));
        if (h != null) {
          h.end = Math.max(h.cursor, x.end());
        }
      } else if (a instanceof Action.Cancel x) {
        held.remove(key(x.job(), x.chunkId()));
      } else if (a instanceof Action.Withdrawn x) {
        held.remove(key(x.job(), x.chunkId()));
      }
    }
  }

  @Property(tries = 80)
  void theIndexesAnswerAsTheScansWould(@ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long seed) {
    // one instance serves every try
    held.clear();
    pending.clear();
    up.clear();
    r = new SplittableRandom(seed);
    int window = 1 + r.nextInt(3);
    double lead = r.nextBoolean() ? 0 : r.nextDouble() * 30;
    int maxWindow = window + r.nextInt(4);
    c = new Controller(new ControlConfig(window, lead, maxWindow, r.nextBoolean() ? 0 : 1, 0.3, r.nextDouble() * 3,
        0.5, r.nextBoolean() ? 1 : 0.5, 120, 10, 3));
    now = 0;
    // two jobs on the same workload: a holder's list mixes their chunks
    String[] strategies = {"self", "equal", "distrib", "proportional"};
    for (String id : List.of("a", "b")) {
      long units = 1000 + r.nextLong(200_000);
      long chunk = r.nextBoolean() ? 0 : 1 + r.nextLong(units / 4);
      c.addJob(JobDef.of(id, "w", 0, units, strategies[r.nextInt(strategies.length)])
          .withChunking(chunk, r.nextInt(4)).withMinWorkers(1 + r.nextInt(3)).withReplication(r.nextInt(4) == 0), now);
    }
    int names = 0;
    for (int step = 0; step < 400; step++) {
      now += r.nextInt(3) == 0 ? 0 : r.nextDouble() * 4;
      int kind = r.nextInt(20);
      List<String> upIds = up.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
      if (kind < 2 || upIds.isEmpty()) {
        String id = names < 9 && (up.isEmpty() || r.nextBoolean()) ? "w" + names++
            : new ArrayList<>(up.keySet()).get(r.nextInt(up.size()));
        if (!Boolean.TRUE.equals(up.get(id))) {
          up.put(id, true);
          // some speeds are known from a calibration, some not
          Map<String, Double> calibrated = r.nextInt(4) == 0 ? Map.of() : Map.of("w", 10 + r.nextDouble() * 2000);
          c.workerJoined(new WorkerInfo(id, Set.of("w"), 1, calibrated, Double.POSITIVE_INFINITY, 0, 0), now);
        }
      } else if (kind < 10 && !held.isEmpty()) {
        piece();
      } else if (kind < 13 && !pending.isEmpty()) {
        Pending p = pending.remove(r.nextInt(pending.size()));
        c.committed(p.worker(), p.job(), p.copy(), p.start(), p.end(), (p.end() - p.start()) / (50 + r.nextDouble()
            * 2000), now);
      } else if (kind == 13) {
        String id = upIds.get(r.nextInt(upIds.size()));
        up.put(id, false);
        dropHeldOf(id);
        c.workerLost(id, "test", r.nextBoolean(), now);
      } else if (kind == 14 && r.nextInt(3) == 0) {
        String id = upIds.get(r.nextInt(upIds.size()));
        c.workerDraining(id, now);
      } else if ((kind == 15 || kind == 16) && !held.isEmpty()) {
        // a worker's first copy: the one whose lease and progress count
        Held h = new ArrayList<>(held.values()).get(r.nextInt(held.size()));
        Held first = held.values().stream().filter(k -> k.worker.equals(h.worker)).findFirst().orElseThrow();
        c.reporting(first.worker, first.job, first.id, now);
      } else if (kind == 17 && !held.isEmpty() && r.nextInt(4) == 0) {
        Held h = new ArrayList<>(held.values()).get(r.nextInt(held.size()));
        c.chunkFailed(h.worker, h.job, h.id, "test", now);
      } else {
        c.tick(now);
      }
      apply(c.ready().actions());
      check(seed, step);
    }
  }

  /** Reports the next piece of a copy (mostly a worker's first), and commits it now or later. */
  private void piece() {
    List<Held> all = new ArrayList<>(held.values());
    Held h = all.get(r.nextInt(all.size()));
    if (r.nextInt(4) != 0) {
      // workers compute their chunks in order
      for (Held k : all) {
        if (k.worker.equals(h.worker)) {
          h = k;
          break;
        }
      }
    }
    if (!Boolean.TRUE.equals(up.get(h.worker)) || h.cursor >= h.end) {
      return;
    }
    long from = h.cursor;
    long to = h.nextCut();
    h.cursor = to;
    if (h.cursor >= h.end) {
      held.remove(key(h.job, h.id));
    }
    JobLedger jl = c.state().jobs.get(h.job);
    Chunk live = jl.chunks.get(h.id);
    String state = live == null ? "no live copy, ended by " + jl.ended.get(h.id) : "live: worker " + live.worker + " cursor "
        + live.cursor + " end " + live.end + " assignedEnd " + live.assignedEnd + ", member "
        + c.state().members.get(h.worker).state;
    Verdict v = c.piece(h.worker, h.job, h.id, from, to, now);
    assertTrue(v != Verdict.REFUSE, "piece [" + from + ", " + to + ") of " + h.job + "#" + h.id + " by " + h.worker
        + " refused; " + state);
    if (v == Verdict.COMMIT) {
      pending.add(new Pending(h.worker, h.job, h.id, from, to));
    } else if (v == Verdict.CHECK || v == Verdict.TIE_BREAK) {
      c.checked(h.worker, h.job, h.id, true, false, now);
    }
  }

  private void dropHeldOf(String worker) {
    held.values().removeIf(h -> h.worker.equals(worker));
  }

  private void check(long seed, int step) {
    String at = "seed " + seed + ", step " + step + ", t=" + now + ": ";
    for (JobLedger j : c.state().jobs.values()) {
      assertNull(c.views().checkLedger(j.def.id()), at + c.views().checkLedger(j.def.id()));
      if (!j.active()) {
        continue;
      }
      checkSplit(j, at);
      checkSteal(j, at);
      checkSurplus(j, at);
      assertEquals(c.state().members.values().stream().filter(m -> m.up() && j.takes(m)).count(),
          c.state().accepting(j), at);
      if (unstarted(j)) {
        for (Member m : c.state().members.values()) {
          assertTrue(!m.up() || !j.takes(m) || !m.chunks.isEmpty(), at + m.id + " is idle while job " + j.def.id()
              + " has unstarted work");
        }
      }
    }
  }

  private static boolean unstarted(JobLedger j) {
    dev.gleaner.common.util.RangeSet q = j.queued();
    q.removeAll(j.savedSet());
    q.removeAll(j.held());
    return !q.isEmpty();
  }

  /** The old scan: every copy that may be split, the one whose holder finishes it last. */
  private void checkSplit(JobLedger j, String at) {
    double splitSeconds = c.config().splitSeconds();
    double best = Double.NEGATIVE_INFINITY;
    for (Chunk k : j.chunks.values()) {
      if (!k.replica && k.check == null) {
        best = Math.max(best, finish(k));
      }
    }
    c.state().refile();
    Chunk chosen = j.finishes.latest(now, c.config().splitSeconds());
    double tol = 1e-9 * Math.max(1, Math.abs(best));
    if (Math.abs(best - splitSeconds) <= tol) {
      return;
    }
    if (best <= splitSeconds) {
      assertNull(chosen, at + "the scan finds no copy worth splitting in job " + j.def.id() + ", the index " + chosen);
    } else {
      assertNotNull(chosen, at + "the scan splits a copy finishing in " + best + " s, the index none");
      assertEquals(best, finish(chosen), tol, at + "the index splits " + chosen + " of a holder finishing sooner");
    }
  }

  /** Seconds until the copy's holder is through it: its chunks in order, only the first one moving on with time. */
  private double finish(Chunk k) {
    Member m = k.worker;
    double s = c.state().speed(m, k.job);
    if (!(s > 0)) {
      return 0;
    }
    double t = 0;
    for (int i = 0; i < m.chunks.size(); i++) {
      Chunk x = m.chunks.get(i);
      double position = x.cursor;
      if (i == 0 && !Double.isNaN(x.startedAt)) {
        position = Math.min(x.end, x.cursor + s * Math.max(0, now - x.progressAt));
      }
      t += (x.end - position) / s;
      if (x == k) {
        break;
      }
    }
    return t;
  }

  /** For each up worker as the thief: the other queue of longest backlog, by summing every queue. */
  private void checkSteal(JobLedger j, String at) {
    Map<String, Double> backlog = new HashMap<>();
    for (WorkQueue q : j.queues.all()) {
      long units = 0;
      for (var p : q) {
        units += p.units();
      }
      double s = c.state().speed(c.state().members.get(q.owner), j);
      backlog.put(q.owner, units / (s > 0 ? s : 1));
    }
    for (Member m : c.state().members.values()) {
      double best = 0;
      for (Map.Entry<String, Double> e : backlog.entrySet()) {
        if (!e.getKey().equals(m.id) && e.getValue() > best) {
          best = e.getValue();
        }
      }
      WorkQueue q = j.queues.longest(m.id);
      if (best == 0) {
        assertNull(q, at + "no queue to steal from for " + m.id + ", the index gives " + q);
      } else {
        assertNotNull(q, at + "the index finds no queue for " + m.id);
        assertEquals(best, backlog.get(q.owner), 1e-12 * best, at + "the index steals from " + q.owner);
      }
    }
  }

  /** The holder of most chunks beyond the window whose last copy is of this job and may move. */
  private void checkSurplus(JobLedger j, String at) {
    int most = 0;
    for (Member m : c.state().members.values()) {
      int n = m.chunks.size();
      if (n > c.config().window()) {
        Chunk last = m.chunks.get(n - 1);
        if (last.job == j && !last.replica && last.check == null && !last.reserved()) {
          most = Math.max(most, n);
        }
      }
    }
    c.state().refile();
    Chunk chosen = j.surplus.most(null);
    if (most == 0) {
      assertNull(chosen, at + "no holder beyond the window, the index gives " + chosen);
    } else {
      assertNotNull(chosen, at + "the index finds no holder beyond the window");
      assertEquals(most, chosen.worker.chunks.size(), at);
      assertEquals(chosen, chosen.worker.chunks.get(most - 1), at);
    }
  }
}
