package dev.gleaner.common.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * {@code verify: FRACTION}: that share of the committed units is computed again by another worker;
 * a disagreement goes to a third, the majority stands, and three different results fail the job.
 * Results are not the controller's business: the test plays the body, saying what compared equal.
 */
class ControllerCheckTest {
  private final Controller c = new Controller();
  /** Who committed each range, as the COMMIT verdicts said. */
  private final Map<Long, String> committer = new HashMap<>();
  private final List<String> checkers = new ArrayList<>();

  /**
   * Runs the job: every copy is computed whole by its worker; a check's outcome comes from
   * {@code agrees} (worker, is it a tie-break) and {@code withDissent}. Returns the last time.
   */
  private double run(double t, Predicate<String[]> agrees, Predicate<String> withDissent) {
    List<Action.Assign> work = new ArrayList<>(c.ready().actions().stream().filter(Action.Assign.class::isInstance)
        .map(Action.Assign.class::cast).toList());
    for (int step = 0; step < 10_000 && !work.isEmpty(); step++) {
      Action.Assign a = work.remove(0);
      t += 1;
      Verdict v = c.piece(a.worker(), a.job(), a.chunkId(), a.start(), a.end(), t);
      if (v == Verdict.COMMIT) {
        committer.put(a.start(), a.worker());
        c.committed(a.worker(), a.job(), a.chunkId(), a.start(), a.end(), 1, t);
      } else if (v == Verdict.CHECK || v == Verdict.TIE_BREAK) {
        checkers.add(a.worker());
        assertNotEquals(committer.get(a.start()), a.worker(), "a worker never checks its own piece");
        boolean tie = v == Verdict.TIE_BREAK;
        c.checked(a.worker(), a.job(), a.chunkId(), agrees.test(new String[] {a.worker(), Boolean.toString(tie)}),
            tie && withDissent.test(a.worker()), t);
      }
      c.ready().actions().stream().filter(Action.Assign.class::isInstance).map(Action.Assign.class::cast).forEach(work::add);
    }
    return t;
  }

  private void start(double verify, String... workers) {
    c.addJob(JobDef.of("j", "primes", 0, 1000, "self").withChunking(100, 0).withVerify(verify), 0);
    for (String w : workers) {
      c.workerJoined(WorkerInfo.of(w, "primes", 100), 0);
    }
  }

  @Test
  void theAskedShareIsComputedAgainByAnotherWorkerBeforeTheJobIsDone() {
    start(0.5, "a", "b");
    run(0, x -> true, x -> false);
    JobView v = c.views().job("j");
    assertEquals(JobPhase.DONE, v.phase());
    assertEquals(1000, v.committed());
    assertTrue(v.verified() >= 500 && v.verified() <= 600, "half the units, give or take a piece: " + v.verified());
    assertTrue(v.mismatches().isEmpty());
    assertNull(c.views().checkLedger("j"));
  }

  @Test
  void withoutVerifyNothingIsComputedTwice() {
    start(0, "a", "b");
    run(0, x -> true, x -> false);
    assertEquals(JobPhase.DONE, c.views().job("j").phase());
    assertEquals(0, c.views().job("j").verified());
    assertTrue(checkers.isEmpty());
  }

  @Test
  void aCheckerThatDisagreesIsOutvotedByAThirdWorker() {
    start(1, "a", "b", "liar");
    // the liar's checks disagree; tie-breaks (by an honest third) agree with the committed result
    run(0, x -> !x[0].equals("liar"), x -> false);
    JobView v = c.views().job("j");
    assertEquals(JobPhase.DONE, v.phase());
    assertEquals(1000, v.verified());
    assertTrue(!v.mismatches().isEmpty() && v.mismatches().stream().allMatch(m -> m.contains("liar disagreed")),
        v.mismatches().toString());
    assertTrue(v.message().contains("liar disagreed"), v.message());
  }

  @Test
  void aWrongCommittedResultIsReplacedWhenTwoOthersAgreeAgainstIt() {
    start(1, "a", "b", "liar");
    // every check of the liar's pieces disagrees, and the tie-break sides with the dissent
    run(0, x -> false, x -> true);
    JobView v = c.views().job("j");
    assertEquals(JobPhase.DONE, v.phase());
    assertTrue(v.mismatches().stream().anyMatch(m -> m.contains("result was wrong")), v.mismatches().toString());
  }

  @Test
  void threeDifferentResultsFailTheJob() {
    start(1, "a", "b", "c");
    run(0, x -> false, x -> false);
    JobView v = c.views().job("j");
    assertEquals(JobPhase.FAILED, v.phase());
    assertTrue(v.message().contains("three different results"), v.message());
  }

  @Test
  void checksNobodyMayTakeEndTheJobAfterAWaitSayingSo() {
    start(1, "a");
    double t = run(0, x -> true, x -> false);
    c.tick(t + 1);
    assertEquals(JobPhase.RUNNING, c.views().job("j").phase());
    assertTrue(c.views().job("j").message().startsWith("waiting for a worker that may check"), c.views().job("j").message());
    c.tick(t + 2 + ControlConfig.CHECK_WAIT_SECONDS);
    JobView v = c.views().job("j");
    assertEquals(JobPhase.DONE, v.phase(), "never a job that waits forever");
    assertTrue(v.mismatches().stream().anyMatch(m -> m.contains("1000 units picked for checking were not checked")),
        v.mismatches().toString());
  }

  @Test
  void aCheckerWhoseResultCannotBeReadIsNotAskedAgainAndCountsNothingAgainstTheJob() {
    start(1, "a", "b", "garbler");
    List<Action.Assign> work = new ArrayList<>(c.ready().actions().stream().filter(Action.Assign.class::isInstance)
        .map(Action.Assign.class::cast).toList());
    java.util.Set<Long> garbledStarts = new java.util.HashSet<>();
    double t = 0;
    for (int step = 0; step < 10_000 && !work.isEmpty(); step++) {
      Action.Assign a = work.remove(0);
      t += 1;
      boolean check = c.views().committedUnits("j").containsAll(a.start(), a.end());
      if (check && a.worker().equals("garbler")) {
        // its check results cannot be read: the body refuses them before comparing
        assertTrue(garbledStarts.add(a.start()), "the same check is not given to it twice: " + a);
        c.badResult("garbler", a.job(), a.chunkId(), "malformed", t);
      } else {
        Verdict v = c.piece(a.worker(), a.job(), a.chunkId(), a.start(), a.end(), t);
        if (v == Verdict.COMMIT) {
          c.committed(a.worker(), a.job(), a.chunkId(), a.start(), a.end(), 1, t);
        } else if (v == Verdict.CHECK || v == Verdict.TIE_BREAK) {
          c.checked(a.worker(), a.job(), a.chunkId(), true, false, t);
        }
      }
      c.ready().actions().stream().filter(Action.Assign.class::isInstance).map(Action.Assign.class::cast).forEach(work::add);
    }
    assertTrue(!garbledStarts.isEmpty(), "the garbler got checks");
    assertEquals(JobPhase.DONE, c.views().job("j").phase(), c.views().job("j").message());
    assertEquals(1000, c.views().job("j").verified());
  }

  @Test
  void aCheckWithNobodyElseToTakeItWaitsForAnotherWorker() {
    start(1, "a");
    run(0, x -> true, x -> false);
    assertEquals(JobPhase.RUNNING, c.views().job("j").phase(), "a alone cannot check its own pieces");
    c.workerJoined(WorkerInfo.of("b", "primes", 100), 2000);
    run(2000, x -> true, x -> false);
    assertEquals(JobPhase.DONE, c.views().job("j").phase());
    assertEquals(1000, c.views().job("j").verified());
  }
}
