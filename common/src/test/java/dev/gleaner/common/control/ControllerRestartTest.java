package dev.gleaner.common.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.util.RangeSet;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A master that restarts (or a worker that reconnects) while workers keep computing: the chunks
 * they hold are claimed and go on, nothing is handed out twice, and what nobody claims in time
 * goes to the others.
 */
class ControllerRestartTest {
  private final Controller c = new Controller();

  private static <T extends Action> List<T> only(List<Action> actions, Class<T> type) {
    return actions.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
  }

  /** The restarted master's view: job j over [0, 1000), units [0, 200) committed, two chunks out. */
  private void restartedWithTwoCopiesOut(double grace) {
    RangeSet remaining = RangeSet.of(200, 1000);
    JobDef def = new JobDef("j", "primes", 0, 1000, remaining, "self", 100, 0, 1, Double.POSITIVE_INFINITY, false, 0,
        x -> x, dev.gleaner.common.model.RiskModel.LINEAR, 8);
    c.addJob(def, List.of(
        new Held("a", "j", 5, 100, 300, 200, new long[] {200}),   // a saved [100, 200) of it before the restart
        new Held("b", "j", 7, 300, 400, 300, new long[0])), grace, 0);
  }

  @Test
  void aWorkerThatKeptComputingThroughARestartClaimsItsCopyAndItsNextPieceCounts() {
    restartedWithTwoCopiesOut(60);
    c.workerJoined(WorkerInfo.of("c", "primes", 100), 1);
    List<Action> first = c.ready().actions();
    for (Action.Assign x : only(first, Action.Assign.class)) {
      assertTrue(x.chunkId() >= 8, "ids are never reused: " + x);
      assertTrue(x.start() >= 400, "nobody else gets the reserved units [200, 400): " + x);
    }
    assertNull(c.views().checkLedger("j"));
    // a comes back holding copy 5, its piece [100, 200) acknowledged, [200, 300) computed meanwhile
    c.workerJoined(WorkerInfo.of("a", "primes", 100), List.of(new Held("a", "j", 5, 100, 300, 200, new long[] {200})), 2);
    assertTrue(only(c.ready().actions(), Action.Cancel.class).isEmpty(), "its claim stands");
    assertEquals(Verdict.COMMIT, c.piece("a", "j", 5, 200, 300, 2));
    c.committed("a", "j", 5, 200, 300, 1, 2);
    assertTrue(c.views().committedUnits("j").containsAll(100, 300));
    assertNull(c.views().checkLedger("j"));
  }

  @Test
  void aPieceCommittedBeforeTheRestartButNotAcknowledgedComesBackAsADuplicate() {
    restartedWithTwoCopiesOut(60);
    // the ack of [100, 200) was lost with the master: the worker claims from 100 and sends it again
    c.workerJoined(WorkerInfo.of("a", "primes", 100), List.of(new Held("a", "j", 5, 100, 300, 100, new long[] {200})), 1);
    assertEquals(Verdict.DUPLICATE, c.piece("a", "j", 5, 100, 200, 1));
    assertEquals(Verdict.COMMIT, c.piece("a", "j", 5, 200, 300, 1));
  }

  @Test
  void reservedUnitsOfAWorkerThatDoesNotComeBackGoToOthersAfterTheGrace() {
    restartedWithTwoCopiesOut(30);
    c.workerJoined(WorkerInfo.of("c", "primes", 1e6), 1);
    List<Action.Assign> got = new ArrayList<>(only(c.ready().actions(), Action.Assign.class));
    c.tick(10);
    got.addAll(only(c.ready().actions(), Action.Assign.class));
    assertTrue(got.stream().noneMatch(x -> x.start() < 400 && x.end() > 200), "still reserved at 10 s: " + got);
    c.tick(31);
    // c holds its window; finish what it has until the released units come its way
    for (int round = 0; round < 50 && got.stream().noneMatch(x -> x.start() < 400 && x.end() > 200); round++) {
      for (Action.Assign x : List.copyOf(got)) {
        if (c.piece("c", "j", x.chunkId(), x.start(), x.end(), 32 + round) == Verdict.COMMIT) {
          c.committed("c", "j", x.chunkId(), x.start(), x.end(), 0.001, 32 + round);
        }
      }
      got.clear();
      got.addAll(only(c.ready().actions(), Action.Assign.class));
    }
    assertTrue(got.stream().anyMatch(x -> x.start() < 400 && x.end() > 200), "the reserved units went to c: " + got);
    assertNull(c.views().checkLedger("j"));
    // a comes back late: its claim is cancelled, and its pieces on the way are acknowledged, not refused
    c.workerJoined(WorkerInfo.of("a", "primes", 100), List.of(new Held("a", "j", 5, 100, 300, 200, new long[] {200})), 40);
    List<Action.Cancel> cancels = only(c.ready().actions(), Action.Cancel.class);
    assertEquals(1, cancels.size());
    assertEquals(5, cancels.get(0).chunkId());
    Verdict late = c.piece("a", "j", 5, 200, 300, 40);
    assertTrue(late == Verdict.DISCARD || late == Verdict.DUPLICATE, "a late piece does not count: " + late);
  }

  @Test
  void whenNothingElseIsLeftIdleWorkersTakeReservedUnitsBeforeTheGraceEnds() {
    JobDef def = new JobDef("j", "primes", 0, 1000, RangeSet.of(0, 100), "self", 100, 0, 1, Double.POSITIVE_INFINITY,
        false, 0, x -> x, dev.gleaner.common.model.RiskModel.LINEAR, 10);
    c.addJob(def, List.of(new Held("a", "j", 3, 0, 100, 0, new long[0])), 600, 0);
    c.workerJoined(WorkerInfo.of("b", "primes", 100), 1);
    assertTrue(only(c.ready().actions(), Action.Assign.class).isEmpty(), "only reserved units are left");
    c.tick(ControlConfig.IDLE_RESERVED_SECONDS - 1);
    assertTrue(only(c.ready().actions(), Action.Assign.class).isEmpty());
    c.tick(ControlConfig.IDLE_RESERVED_SECONDS + 1);
    List<Action.Assign> got = only(c.ready().actions(), Action.Assign.class);
    assertEquals(100, got.stream().mapToLong(Action.Assign::units).sum(), "b is idle: it takes them: " + got);
    assertNull(c.views().checkLedger("j"));
  }

  @Test
  void aWorkerThatRestartedLosesItsReservedCopiesToOthersAtOnce() {
    restartedWithTwoCopiesOut(600);
    c.workerJoined(WorkerInfo.of("b", "primes", 1e6), List.of(), 1);
    List<Action.Assign> got = only(c.ready().actions(), Action.Assign.class);
    assertTrue(got.stream().anyMatch(x -> x.start() <= 300 && x.end() > 300), "[300, 400) is free again: " + got);
    assertNull(c.views().checkLedger("j"));
  }

  @Test
  void aClaimOfACopyTheMasterNeverGaveThisWorkerIsCancelled() {
    restartedWithTwoCopiesOut(60);
    // b claims a's copy (a bug, or a worker lying about its id's history)
    c.workerJoined(WorkerInfo.of("b", "primes", 100), List.of(new Held("b", "j", 5, 100, 300, 200, new long[0]),
        new Held("b", "j", 7, 300, 400, 300, new long[0])), 1);
    List<Action.Cancel> cancels = only(c.ready().actions(), Action.Cancel.class);
    assertEquals(List.of(5L), cancels.stream().map(Action.Cancel::chunkId).toList());
    assertEquals(Verdict.REFUSE, c.piece("b", "j", 5, 200, 300, 1), "a's copy is not b's");
    assertEquals(Verdict.COMMIT, c.piece("b", "j", 7, 300, 400, 1));
  }

  @Test
  void ofTwoStoredCopiesOverTheSameUnitsTheLaterIsKept() {
    JobDef def = new JobDef("j", "primes", 0, 1000, RangeSet.of(0, 1000), "self", 100, 0, 1, Double.POSITIVE_INFINITY,
        false, 0, x -> x, dev.gleaner.common.model.RiskModel.LINEAR, 10);
    // copy 3 went to a; a was lost and its units went to b as copy 9
    c.addJob(def, List.of(new Held("a", "j", 3, 0, 100, 0, new long[0]), new Held("b", "j", 9, 0, 100, 0, new long[0])),
        60, 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 100), List.of(new Held("a", "j", 3, 0, 100, 0, new long[0])), 1);
    assertEquals(List.of(3L), only(c.ready().actions(), Action.Cancel.class).stream().map(Action.Cancel::chunkId).toList());
    c.workerJoined(WorkerInfo.of("b", "primes", 100), List.of(new Held("b", "j", 9, 0, 100, 0, new long[0])), 1);
    assertTrue(only(c.ready().actions(), Action.Cancel.class).isEmpty());
    assertEquals(Verdict.COMMIT, c.piece("b", "j", 9, 0, 100, 2));
  }

  @Test
  void aReconnectBeforeTheOldSessionWasSeenToEndKeepsTheCopiesItClaims() {
    c.addJob(JobDef.of("j", "primes", 0, 1_000_000, "self").withChunking(1000, 0), 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 100), 0);
    List<Action.Assign> out = only(c.ready().actions(), Action.Assign.class);
    Action.Assign first = out.get(0);
    // a new session of a, the old one not yet noticed as closed: it still computes `first`
    c.workerJoined(WorkerInfo.of("a", "primes", 100),
        List.of(new Held("a", "j", first.chunkId(), first.start(), first.end(), first.start(), new long[0])), 1);
    List<Action> after = c.ready().actions();
    assertTrue(only(after, Action.Cancel.class).stream().noneMatch(x -> x.chunkId() == first.chunkId()),
        "the copy it claims stays: " + after);
    assertEquals(Verdict.COMMIT, c.piece("a", "j", first.chunkId(), first.start(), first.end(), 2));
    assertNull(c.views().checkLedger("j"));
  }

  @Test
  void aJobWhoseUnitsWereAllSavedBeforeTheRestartEndsWithoutAWorker() {
    JobDef def = new JobDef("j", "primes", 0, 1000, new RangeSet(), "self", 100, 0, 3, Double.POSITIVE_INFINITY, false,
        0, x -> x, dev.gleaner.common.model.RiskModel.LINEAR, 8);
    c.addJob(def, List.of(), 60, 0);
    c.tick(1);
    List<Action.Finished> ended = only(c.ready().actions(), Action.Finished.class);
    assertEquals(1, ended.size(), "it does not wait for its three workers: nothing is left to compute");
    assertEquals(JobPhase.DONE, ended.get(0).phase());
  }

  /** What b was handed with a's first copy. */
  private final List<Action.Assign> handedToB = new ArrayList<>();

  /** Job j over [0, 10^5) in chunks of 1000; a and b joined; returns a's first copy. */
  private Action.Assign aHoldsACopy() {
    c.addJob(JobDef.of("j", "primes", 0, 100_000, "self").withChunking(1000, 0), 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 100), 0);
    c.workerJoined(WorkerInfo.of("b", "primes", 100), 0);
    List<Action.Assign> first = only(c.ready().actions(), Action.Assign.class);
    first.stream().filter(x -> x.worker().equals("b")).forEach(handedToB::add);
    return first.stream().filter(x -> x.worker().equals("a")).findFirst().orElseThrow();
  }

  @Test
  void aWorkerWhoseRelayWentAwayKeepsItsCopiesForItsLeaseAndTakesThemUpFromAnotherWay() {
    Action.Assign first = aHoldsACopy();
    c.workerLost("a", "connection closed", true, true, 1);
    c.tick(2);
    List<Action.Assign> others = only(c.ready().actions(), Action.Assign.class);
    assertTrue(others.stream().noneMatch(x -> x.start() < first.end() && x.end() > first.start()),
        "nobody else gets a's copy while it is held: " + others);
    c.workerJoined(WorkerInfo.of("a", "primes", 100),
        List.of(new Held("a", "j", first.chunkId(), first.start(), first.end(), first.start(), new long[0])), 3);
    assertTrue(only(c.ready().actions(), Action.Cancel.class).stream().noneMatch(x -> x.chunkId() == first.chunkId()),
        "its claim stands");
    assertEquals(Verdict.COMMIT, c.piece("a", "j", first.chunkId(), first.start(), first.end(), 4));
    assertNull(c.views().checkLedger("j"));
  }

  @Test
  void aWorkerLostOnItsOwnConnectionLosesItsCopiesAtOnce() {
    Action.Assign first = aHoldsACopy();
    c.workerLost("a", "connection closed", true, false, 1);
    c.workerJoined(WorkerInfo.of("a", "primes", 100),
        List.of(new Held("a", "j", first.chunkId(), first.start(), first.end(), first.start(), new long[0])), 2);
    assertTrue(only(c.ready().actions(), Action.Cancel.class).stream().anyMatch(x -> x.chunkId() == first.chunkId()),
        "its copy went back to the job when it was lost: the claim is cancelled");
  }

  @Test
  void theCopiesHeldForAWorkerThatDoesNotComeBackGoToOthersAfterTheirLease() {
    Action.Assign first = aHoldsACopy();
    c.workerLost("a", "connection closed", true, true, 1);
    // b computes everything else it is given; a's copy comes its way once the lease has passed
    boolean got = false;
    for (int round = 0; round < 2000 && !got; round++) {
      double now = 2 + round;
      c.tick(now);
      List<Action.Assign> given = new ArrayList<>(only(c.ready().actions(), Action.Assign.class));
      if (round == 0) {
        given.addAll(handedToB);
      }
      for (Action.Assign x : given) {
        got |= x.start() < first.end() && x.end() > first.start();
        if (c.piece("b", "j", x.chunkId(), x.start(), x.end(), now) == Verdict.COMMIT) {
          c.committed("b", "j", x.chunkId(), x.start(), x.end(), 0.001, now);
        }
      }
    }
    assertTrue(got, "a's copy went to b in the end");
    assertTrue(c.views().committedUnits("j").containsAll(first.start(), first.end()));
    assertNull(c.views().checkLedger("j"));
  }
}
