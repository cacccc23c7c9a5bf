package dev.gleaner.common.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.util.RangeSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A job's plan (its recovery lists and homes) and its verification (the checks it picked) survive a
 * master restart through the texts the controller hands out ({@link Action.Remember}) and takes back.
 */
class JobMemoryTest {
  /** The latest memories a controller handed out for a job: {plan, checks}. */
  private static String[] remembered(List<Action> actions, String[] into) {
    for (Action a : actions) {
      if (a instanceof Action.Remember r) {
        if (r.plan() != null) {
          into[0] = r.plan();
        }
        if (r.checks() != null) {
          into[1] = r.checks();
        }
      }
    }
    return into;
  }

  /** Computes every copy handed out whole; checks agree. Returns the memories seen. */
  private static String[] run(Controller c, String[] memory) {
    double t = 0;
    List<Action> actions = new ArrayList<>(c.ready().actions());
    remembered(actions, memory);
    List<Action.Assign> work = new ArrayList<>(actions.stream().filter(Action.Assign.class::isInstance)
        .map(Action.Assign.class::cast).toList());
    for (int step = 0; step < 10_000 && !work.isEmpty(); step++) {
      Action.Assign a = work.remove(0);
      t += 1;
      Verdict v = c.piece(a.worker(), a.job(), a.chunkId(), a.start(), a.end(), t);
      if (v == Verdict.COMMIT) {
        c.committed(a.worker(), a.job(), a.chunkId(), a.start(), a.end(), 1, t);
      } else if (v == Verdict.CHECK || v == Verdict.TIE_BREAK) {
        c.checked(a.worker(), a.job(), a.chunkId(), true, false, t);
      }
      c.tick(t);
      List<Action> next = c.ready().actions();
      remembered(next, memory);
      next.stream().filter(Action.Assign.class::isInstance).map(Action.Assign.class::cast).forEach(work::add);
    }
    return memory;
  }

  @Test
  void checksPickedBeforeARestartAreStillCheckedAfterIt() {
    Controller before = new Controller();
    JobDef def = JobDef.of("j", "primes", 0, 1000, "self").withChunking(100, 0).withVerify(1);
    before.addJob(def, 0);
    before.workerJoined(WorkerInfo.of("a", "primes", 100), 0);
    // a alone computes everything; no one else may check its pieces yet
    String[] memory = run(before, new String[2]);
    assertEquals(1000, before.views().job("j").committed());
    assertEquals(JobPhase.RUNNING, before.views().job("j").phase());
    assertTrue(memory[1].contains("check 0 100 a ~ a"), memory[1]);

    // the master restarts with every unit committed and the checks pending
    JobDef resumed = new JobDef("j", "primes", 0, 1000, new RangeSet(), "self", 100, 0, 1, Double.POSITIVE_INFINITY,
        false, 0, x -> x, dev.gleaner.common.model.RiskModel.LINEAR, 20, 1);
    Controller after = new Controller();
    after.addJob(resumed, List.of(), 60, memory[0], memory[1], 0);
    after.workerJoined(WorkerInfo.of("b", "primes", 100), 0);
    run(after, new String[2]);
    assertEquals(JobPhase.DONE, after.views().job("j").phase());
    assertEquals(1000, after.views().job("j").verified(), "b checked what a computed before the restart");

    // without the memories, the restarted job would have ended with nothing checked
    Controller forgetful = new Controller();
    forgetful.addJob(resumed, List.of(), 60, 0);
    forgetful.workerJoined(WorkerInfo.of("b", "primes", 100), 0);
    run(forgetful, new String[2]);
    assertEquals(0, forgetful.views().job("j").verified());
  }

  @Test
  void checksOutOnAWorkerWhenTheMasterStopsAreMadeAfterTheRestart() {
    Controller before = new Controller();
    before.addJob(JobDef.of("j", "primes", 0, 1000, "self").withChunking(100, 0).withVerify(1), 0);
    before.workerJoined(WorkerInfo.of("a", "primes", 100), 0);
    run(before, new String[2]);
    // b takes checks (its window), then the master stops before b reports them
    before.workerJoined(WorkerInfo.of("b", "primes", 100), 100);
    long out = before.ready().actions().stream().filter(Action.Assign.class::isInstance).count();
    assertTrue(out >= 1, "b holds checks");
    before.tick(200);
    String[] memory = remembered(before.ready().actions(), new String[2]);
    assertEquals(10, memory[1].lines().filter(l -> l.startsWith("check ")).count(), memory[1]);

    JobDef resumed = new JobDef("j", "primes", 0, 1000, new RangeSet(), "self", 100, 0, 1, Double.POSITIVE_INFINITY,
        false, 0, x -> x, dev.gleaner.common.model.RiskModel.LINEAR, 20, 1);
    Controller after = new Controller();
    after.addJob(resumed, List.of(), 60, memory[0], memory[1], 0);
    after.workerJoined(WorkerInfo.of("c", "primes", 100), 0);
    run(after, new String[2]);
    assertEquals(JobPhase.DONE, after.views().job("j").phase());
    assertEquals(1000, after.views().job("j").verified());
  }

  @Test
  void theRecoveryListsOfTheFirstPlanStandAfterARestart() {
    Controller before = new Controller();
    before.addJob(JobDef.of("j", "primes", 0, 100_000, "distrib").withMinWorkers(5), 0);
    String[] ids = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < ids.length; i++) {
      before.workerJoined(WorkerInfo.of(ids[i], "primes", 100 * (i + 1)), 0);
    }
    before.tick(1);
    String[] memory = remembered(before.ready().actions(), new String[2]);
    Map<String, List<String>> lists = before.views().recovery("j", 16);
    assertEquals(5, lists.size());

    JobDef resumed = new JobDef("j", "primes", 0, 100_000, RangeSet.of(0, 100_000), "distrib", 0, 0, 1,
        Double.POSITIVE_INFINITY, false, 0, x -> x, dev.gleaner.common.model.RiskModel.LINEAR, 100);
    // after the restart the workers come back in another order, with other speeds measured
    Controller after = new Controller();
    after.addJob(resumed, List.of(), 60, memory[0], memory[1], 0);
    Controller forgetful = new Controller();
    forgetful.addJob(resumed, List.of(), 60, 0);
    for (int i = ids.length - 1; i >= 0; i--) {
      after.workerJoined(WorkerInfo.of(ids[i], "primes", 100 * (ids.length - i)), 0);
      forgetful.workerJoined(WorkerInfo.of(ids[i], "primes", 100 * (ids.length - i)), 0);
    }
    after.ready().actions();
    forgetful.ready().actions();
    assertEquals(lists, after.views().recovery("j", 16));
    assertNotEquals(lists, forgetful.views().recovery("j", 16), "planned afresh, the lists would differ");
  }

  @Test
  void aMemoryThatDoesNotParseIsRefusedNotHalfUsed() {
    Controller c = new Controller();
    JobDef def = JobDef.of("j", "primes", 0, 1000, "self");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> c.addJob(def, List.of(), 60, "replans 2\nbogus line\n", null, 0));
    assertTrue(e.getMessage().contains("'bogus line'"), e.getMessage());
    c.addJob(def, List.of(), 60, null, null, 0);
    assertEquals(JobPhase.QUEUED, c.views().job("j").phase());
  }
}
