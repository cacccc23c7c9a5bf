package dev.gleaner.common.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Who gets work when there are many workers: a plan spreads over every worker before anyone tops
 * up its window, workers that come after the pool ran dry take chunks others have not started,
 * and a burst of joins makes a handful of re-plans. Scripted events on a fake clock.
 */
class HandoutFairnessTest {
  private final Controller c = new Controller();
  /** Copies each worker holds, in order, as the controller's actions say. */
  private final Map<String, Deque<Action.Assign>> held = new HashMap<>();
  private int planned;
  private Action.Planned lastPlan;

  private void drain() {
    for (Action a : c.ready().actions()) {
      if (a instanceof Action.Assign x) {
        held.computeIfAbsent(x.worker(), k -> new ArrayDeque<>()).add(x);
      } else if (a instanceof Action.Cancel x) {
        held.get(x.worker()).removeIf(h -> h.chunkId() == x.chunkId() && h.job().equals(x.job()));
      } else if (a instanceof Action.Planned x) {
        planned++;
        lastPlan = x;
      }
    }
  }

  private int holding(String worker) {
    return held.getOrDefault(worker, new ArrayDeque<>()).size();
  }

  /** The lead's case at a tenth of its size: fast workers (the lead lets each hold 32), 25 chunks each. */
  private void fastWorkersOnManyChunks(int workers, int chunksEach) {
    c.addJob(JobDef.of("j", "w", 0, 1000L * workers * chunksEach, "self").withChunking(1000, 0)
        .withMinWorkers(workers), 0);
    for (int i = 0; i < workers; i++) {
      c.workerJoined(WorkerInfo.of("w" + i, "w", 1e9), 0);
    }
    drain();
    // the chunks beyond the window go out a budget per pump: ticks at the same instant finish them
    for (int k = 0; k < 20; k++) {
      c.tick(0);
      drain();
    }
  }

  @Test
  void aPlanSpreadsOverEveryWorkerBeforeAnyoneTopsUp() {
    // regression: 3,125 of 4,000 workers took 32 chunks each and 875 got none
    fastWorkersOnManyChunks(400, 25);
    for (int i = 0; i < 400; i++) {
      assertEquals(25, holding("w" + i), "worker w" + i);
    }
    assertNull(c.views().checkLedger("j"));
  }

  @Test
  void workersThatComeAfterThePoolRanDryTakeCopiesNotStarted() {
    fastWorkersOnManyChunks(100, 20);
    for (int i = 0; i < 30; i++) {
      String late = "late" + i;
      c.workerJoined(WorkerInfo.of(late, "w", 1e9), 1);
      drain();
      assertEquals(1, holding(late), late + " gets a copy the moment it joins");
      assertNull(c.views().checkLedger("j"));
    }
    int kept = 0;
    int least = Integer.MAX_VALUE;
    for (int i = 0; i < 100; i++) {
      kept += holding("w" + i);
      least = Math.min(least, holding("w" + i));
    }
    assertEquals(2000 - 30, kept, "the late workers' chunks came from the others");
    assertEquals(19, least, "one each from those that held most");
    // every unit ends committed exactly once, the moved chunks included
    double t = 2;
    List<String> everyone = new ArrayList<>(held.keySet());
    for (int round = 0; round < 100 && c.views().job("j").phase() == JobPhase.RUNNING; round++) {
      for (String w : everyone) {
        Action.Assign a = held.get(w).poll();
        if (a != null) {
          t += 1e-3;
          Verdict v = c.piece(w, "j", a.chunkId(), a.start(), a.end(), t);
          assertEquals(Verdict.COMMIT, v, a.toString());
          c.committed(w, "j", a.chunkId(), a.start(), a.end(), 1e-6, t);
          drain();
        }
      }
    }
    assertEquals(JobPhase.DONE, c.views().job("j").phase());
    assertEquals(2_000_000, c.views().job("j").committed());
    assertEquals(2_000_000, c.views().job("j").shares().values().stream().mapToLong(Long::longValue).sum());
  }

  @Test
  void aBurstOfJoinsMakesAHandfulOfReplans() {
    c.addJob(JobDef.of("j", "w", 0, 10_000_000L, "self").withChunking(1000, 0), 0);
    // 2,000 workers, one every 5 ms: a 10-second burst; one re-plan per second would be 10
    double t = 0;
    for (int i = 0; i < 2000; i++) {
      t = i * 0.005;
      c.workerJoined(WorkerInfo.of("w" + i, "w", 100), t);
      drain();
      if (i % 100 == 0) {
        c.tick(t);
        drain();
      }
    }
    assertTrue(planned <= 2, "the first plan and at most one during the burst: " + planned);
    // once joins stop, the next tick plans for everyone
    c.tick(t + 1.5);
    drain();
    assertTrue(planned <= 3, planned + " plans");
    assertEquals(2000, lastPlan.workers(), "the last plan is for every worker");
    assertNull(c.views().checkLedger("j"));
    assertEquals(JobPhase.RUNNING, c.views().job("j").phase());
  }
}
