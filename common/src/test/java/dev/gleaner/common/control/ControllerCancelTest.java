package dev.gleaner.common.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.util.RangeSet;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A cancel with a grace keeps what the workers computed since their last pieces: each copy being
 * computed is truncated where its worker has reported up to, the final piece it then sends counts,
 * and the job ends CANCELLED once those are in, its worker is lost, or the grace has passed.
 */
class ControllerCancelTest {
  private final Controller c = new Controller();
  /** The first copy of each worker (the one it computes), then the next ones it holds. */
  private Action.Assign a1;
  private Action.Assign b1;
  /** Where a's first piece ended. */
  private long aSaved;

  private static <T extends Action> List<T> only(List<Action> actions, Class<T> type) {
    return actions.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
  }

  /** Job j over [0, 100000) on workers a and b, each holding two chunks of 250 units. */
  @BeforeEach
  void twoWorkersComputing() {
    c.addJob(JobDef.of("j", "primes", 0, 100_000, "self").withChunking(1000, 3), 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 100), 0);
    c.workerJoined(WorkerInfo.of("b", "primes", 100), 0);
    List<Action.Assign> given = only(c.ready().actions(), Action.Assign.class);
    a1 = given.stream().filter(x -> x.worker().equals("a")).findFirst().orElseThrow();
    b1 = given.stream().filter(x -> x.worker().equals("b")).findFirst().orElseThrow();
    assertTrue(given.size() > 2, "each worker holds more than the copy it computes: " + given);
    // a saved a first piece of its copy (as a drain would); b none yet
    aSaved = a1.start() + 100;
    assertEquals(Verdict.COMMIT, c.piece("a", "j", a1.chunkId(), a1.start(), aSaved, 1));
    c.committed("a", "j", a1.chunkId(), a1.start(), aSaved, 1, 1);
  }

  private static RangeSet done(long... bounds) {
    RangeSet r = new RangeSet();
    for (int i = 0; i < bounds.length; i += 2) {
      r.add(bounds[i], bounds[i + 1]);
    }
    return r;
  }

  @Test
  void theWorkersLastPiecesCountAndTheJobEndsOnceTheyAreIn() {
    assertTrue(c.cancel("j", "enough", 10, 4));
    List<Action> at = c.ready().actions();
    List<Action.Truncate> truncated = only(at, Action.Truncate.class);
    assertEquals(2, truncated.size(), "the two chunks being computed: " + at);
    assertTrue(truncated.stream().anyMatch(t -> t.chunkId() == a1.chunkId() && t.end() == aSaved),
        "a's copy ends where a has reported up to: " + truncated);
    assertTrue(truncated.stream().anyMatch(t -> t.chunkId() == b1.chunkId() && t.end() == b1.start()), "" + truncated);
    assertTrue(truncated.stream().noneMatch(Action.Truncate::split), "a cancel's stop is no split");
    assertTrue(only(at, Action.Cancel.class).stream().noneMatch(x -> x.chunkId() == a1.chunkId() || x.chunkId() == b1.chunkId()),
        "the chunks being computed are not cancelled");
    assertTrue(!only(at, Action.Cancel.class).isEmpty(), "the chunks not started are: " + at);
    assertEquals(JobPhase.ENDING, c.views().job("j").phase());

    // b reports what it computed up to its current step, marked final
    assertEquals(Verdict.COMMIT, c.piece("b", "j", b1.chunkId(), b1.start(), b1.start() + 120, true, 5));
    c.committed("b", "j", b1.chunkId(), b1.start(), b1.start() + 120, 1.2, 5);
    assertEquals(JobPhase.ENDING, c.views().job("j").phase(), "a's last piece is not in yet");
    long aFrom = aSaved;
    assertEquals(Verdict.COMMIT, c.piece("a", "j", a1.chunkId(), aFrom, aFrom + 70, true, 5.5));
    assertEquals(JobPhase.ENDING, c.views().job("j").phase(), "its last piece is being made durable");
    c.committed("a", "j", a1.chunkId(), aFrom, aFrom + 70, 0.7, 5.6);

    Action.Finished f = only(c.ready().actions(), Action.Finished.class).get(0);
    assertEquals(JobPhase.CANCELLED, f.phase());
    RangeSet expected = RangeSet.of(0, 100_000);
    expected.removeAll(done(a1.start(), aFrom + 70, b1.start(), b1.start() + 120));
    assertEquals(expected, f.notDone());
    assertTrue(f.message().contains("enough"), f.message());
  }

  @Test
  void aPieceSentBeforeTheTruncationArrivedDoesNotEndTheCopyItsFinalPieceDoes() {
    c.cancel("j", "enough", 10, 4);
    c.ready().actions();
    long from = aSaved;
    long cp = aSaved + 50;
    // a's next checkpoint piece was on the way: it reaches past the new end, and counts
    assertEquals(Verdict.COMMIT, c.piece("a", "j", a1.chunkId(), from, cp, false, 4.1));
    c.committed("a", "j", a1.chunkId(), from, cp, 0.5, 4.1);
    assertEquals(Verdict.COMMIT, c.piece("a", "j", a1.chunkId(), cp, cp + 30, true, 4.3));
    c.committed("a", "j", a1.chunkId(), cp, cp + 30, 0.3, 4.3);
    assertTrue(c.views().committedUnits("j").containsAll(a1.start(), cp + 30));
    assertEquals(JobPhase.ENDING, c.views().job("j").phase(), "b's last piece is not in yet");
  }

  @Test
  void afterTheGraceTheCopiesLeftAreCancelledAndTheJobEnds() {
    c.cancel("j", "enough", 10, 4);
    c.ready().actions();
    c.tick(13.9);
    assertEquals(JobPhase.ENDING, c.views().job("j").phase());
    c.tick(14);
    List<Action> end = c.ready().actions();
    assertEquals(2, only(end, Action.Cancel.class).size(), "the two chunks that did not report: " + end);
    Action.Finished f = only(end, Action.Finished.class).get(0);
    assertEquals(JobPhase.CANCELLED, f.phase());
    RangeSet expected = RangeSet.of(0, 100_000);
    expected.remove(a1.start(), aSaved);
    assertEquals(expected, f.notDone());
  }

  @Test
  void aWorkerLostMeanwhileIsNotWaitedFor() {
    c.cancel("j", "enough", 10, 4);
    c.ready().actions();
    c.piece("b", "j", b1.chunkId(), b1.start(), b1.start() + 100, true, 5);
    c.committed("b", "j", b1.chunkId(), b1.start(), b1.start() + 100, 1, 5);
    c.workerLost("a", "closed", true, 6);
    Action.Finished f = only(c.ready().actions(), Action.Finished.class).get(0);
    assertEquals(JobPhase.CANCELLED, f.phase());
    assertEquals(aSaved - a1.start() + 100, c.views().job("j").committed());
  }

  @Test
  void aSecondCancelWithoutAGraceEndsTheWait() {
    c.cancel("j", "enough", 10, 4);
    c.ready().actions();
    assertTrue(c.cancel("j", "now", 0, 5));
    Action.Finished f = only(c.ready().actions(), Action.Finished.class).get(0);
    assertEquals(JobPhase.CANCELLED, f.phase());
    assertTrue(f.message().contains("now"), f.message());
  }

  @Test
  void nothingIsHandedOutWhileTheLastPiecesComeIn() {
    c.cancel("j", "enough", 10, 4);
    c.ready().actions();
    c.workerJoined(WorkerInfo.of("c", "primes", 100), 5);
    c.tick(6);
    assertTrue(only(c.ready().actions(), Action.Assign.class).isEmpty());
  }

  @Test
  void withoutAGraceEveryCopyIsCancelledAtOnce() {
    c.cancel("j", "enough", 0, 4);
    List<Action> at = c.ready().actions();
    assertTrue(only(at, Action.Truncate.class).isEmpty());
    assertTrue(only(at, Action.Cancel.class).stream().anyMatch(x -> x.chunkId() == a1.chunkId()));
    assertEquals(JobPhase.CANCELLED, only(at, Action.Finished.class).get(0).phase());
  }
}
