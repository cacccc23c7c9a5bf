package dev.gleaner.common.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.plan.Checkpointing;
import dev.gleaner.common.util.RangeSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The controller on scripted event sequences: no socket, no clock but the numbers passed in. */
class ControllerTest {
  private final Controller c = new Controller();
  private final List<Action> log = new ArrayList<>();

  private List<Action> drain() {
    List<Action> a = c.ready().actions();
    log.addAll(a);
    return a;
  }

  private static <T extends Action> List<T> only(List<Action> actions, Class<T> type) {
    return actions.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
  }

  private static WorkerInfo unknownSpeed(String id) {
    return new WorkerInfo(id, Set.of("primes"), 1, Map.of(), Double.POSITIVE_INFINITY, 0, 0);
  }

  /** Reports every piece of a copy and commits it; returns the verdicts. */
  private List<Verdict> complete(Action.Assign a, double now) {
    List<Verdict> verdicts = new ArrayList<>();
    long at = a.start();
    List<Long> bounds = new ArrayList<>();
    for (long k : a.checkpoints()) {
      bounds.add(k);
    }
    bounds.add(a.end());
    for (long b : bounds) {
      Verdict v = c.piece(a.worker(), a.job(), a.chunkId(), at, b, now);
      verdicts.add(v);
      if (v == Verdict.COMMIT) {
        c.committed(a.worker(), a.job(), a.chunkId(), at, b, 1, now);
      }
      at = b;
    }
    return verdicts;
  }

  @Test
  void theWorkerWhoseArrivalStartsTheJobIsPlannedWithItsOwnSpeed() {
    // the old runtime planned the last joiner with 1 unit/s per core: the fastest got 37 of 2e9 units
    c.addJob(JobDef.of("j", "primes", 0, 2_000_000_000L, "proportional").withMinWorkers(3), 0);
    c.workerJoined(WorkerInfo.of("slow", "primes", 1e6), 0);
    c.workerJoined(WorkerInfo.of("mid", "primes", 2e6), 0);
    assertTrue(only(drain(), Action.Assign.class).isEmpty(), "min-workers 3: nothing before the third");
    c.workerJoined(WorkerInfo.of("fast", "primes", 1e8), 0);
    // each share goes out piece by piece (its checkpoints); the pieces show the shares
    Map<String, Long> firstPiece = only(drain(), Action.Assign.class).stream()
        .collect(Collectors.toMap(Action.Assign::worker, Action.Assign::units, (x, y) -> x));
    assertEquals(100.0, (double) firstPiece.get("fast") / firstPiece.get("slow"), 1,
        "shares in proportion to the calibrated speeds: " + firstPiece);
    assertEquals(1.943e9, 10.0 * firstPiece.get("fast"), 0.01e9, "the fastest gets ~97% of the work: " + firstPiece);
  }

  @Test
  void aWorkerOfUnknownSpeedIsNeverPlannedOnlyProbed() {
    c.addJob(JobDef.of("j", "primes", 0, 1_000_000, "distrib").withMinWorkers(2), 0);
    c.workerJoined(WorkerInfo.of("known", "primes", 1000), 0);
    c.workerJoined(unknownSpeed("unknown"), 0);
    List<Action> first = drain();
    Action.Planned plan = only(first, Action.Planned.class).get(0);
    assertEquals(1, plan.workers(), "only the worker of known speed is planned");
    List<Action.Assign> toUnknown = only(first, Action.Assign.class).stream()
        .filter(a -> a.worker().equals("unknown")).toList();
    assertEquals(2, toUnknown.size(), "it is not idle: it takes from the planned worker's queue");
    for (Action.Assign a : toUnknown) {
      assertTrue(a.units() <= 1_000_000 / 32, "probes, not a share: " + a);
    }
    // its first piece makes its speed known; on the next tick, it is planned like the others
    complete(toUnknown.get(0), 2);
    assertTrue(c.estimates().speed("unknown", "primes").known());
    assertEquals(1, c.estimates().speed("unknown", "primes").observations());
  }

  @Test
  void nobodysSpeedKnownMeansProbeChunksThenAPlan() {
    c.addJob(JobDef.of("j", "primes", 0, 10_000, "distrib").withChunking(100, 0), 0);
    c.workerJoined(unknownSpeed("a"), 0);
    List<Action> first = drain();
    assertTrue(only(first, Action.Planned.class).get(0).reason().startsWith("no worker's speed is known yet"));
    Action.Assign a = only(first, Action.Assign.class).get(0);
    assertEquals(100, a.units());
    complete(a, 1);
    c.tick(2);
    List<Action> next = drain();
    Action.Planned replan = only(next, Action.Planned.class).get(0);
    assertEquals("distrib", replan.strategy());
    assertEquals(1, replan.workers());
  }

  /**
   * A first job across links and speeds nobody knows runs on probe chunks until they measure the
   * workers: its first plan waits for the workers still holding a probe (a plan over the first one
   * measured would hand out chunks sized for it alone), and comes once they are all measured.
   */
  @Test
  void theFirstPlanWaitsForTheWorkersStillMeasuredByTheirProbes() {
    Map<String, Action.Assign> probe = probesToThreeUnknownWorkers();
    measure(probe.get("a"), 10_000, 1);
    c.tick(2);
    assertTrue(only(drain(), Action.Planned.class).isEmpty(), "b and c are still measured by their probes");
    measure(probe.get("b"), 5_000, 2.5);
    c.tick(3);
    assertTrue(only(drain(), Action.Planned.class).isEmpty(), "c is still measured by its probe");
    measure(probe.get("c"), 2_500, 3.5);
    c.tick(4);
    Action.Planned plan = only(drain(), Action.Planned.class).get(0);
    assertEquals("distrib", plan.strategy());
    assertEquals(3, plan.workers(), "every worker measured: the plan comes at once, over all three");
  }

  /** A worker whose probe never comes back holds the first plan back only so long. */
  @Test
  void theFirstPlanGoesOnWithoutAProbeThatDoesNotComeBack() {
    Map<String, Action.Assign> probe = probesToThreeUnknownWorkers();
    measure(probe.get("a"), 10_000, 1);
    measure(probe.get("b"), 5_000, 2.5);
    c.tick(3);
    assertTrue(only(drain(), Action.Planned.class).isEmpty(), "c is still measured by its probe");
    c.tick(ControlConfig.PROBE_WAIT_SECONDS);
    Action.Planned plan = only(drain(), Action.Planned.class).get(0);
    assertEquals("distrib", plan.strategy());
    assertEquals(2, plan.workers());
  }

  /** For a job with input a worker is known once its link is, its speed being known from its calibration. */
  @Test
  void aWorkerOfKnownSpeedWhoseLinkIsNotMeasuredYetHoldsTheFirstPlanToo() {
    c.addJob(JobDef.of("j", "grep", 0, 10_000_000, "distrib").withInput(1, x -> x).withChunking(100_000, 0)
        .withMinWorkers(3), 0);
    for (String id : List.of("a", "b", "c")) {
      c.workerJoined(WorkerInfo.of(id, "grep", 1e6), 0);
    }
    List<Action> first = drain();
    assertTrue(only(first, Action.Planned.class).get(0).reason().startsWith("no worker's link is known yet"));
    Map<String, Action.Assign> probe = only(first, Action.Assign.class).stream()
        .collect(Collectors.toMap(Action.Assign::worker, a -> a, (x, y) -> x));
    Action.Assign a = probe.get("a");
    c.streamed("a", "j", a.chunkId(), a.units(), a.units() / 10_000.0, true, 1);
    c.tick(2);
    assertTrue(only(drain(), Action.Planned.class).isEmpty(), "the links of b and c are still being measured");
    for (String id : List.of("b", "c")) {
      Action.Assign p = probe.get(id);
      c.streamed(id, "j", p.chunkId(), p.units(), p.units() / 5_000.0, true, 2.5);
    }
    c.tick(3);
    assertEquals(3, only(drain(), Action.Planned.class).get(0).workers());
  }

  /** A job with input over three workers nobody knows: its probe chunk to each, by worker. */
  private Map<String, Action.Assign> probesToThreeUnknownWorkers() {
    c.addJob(JobDef.of("j", "grep", 0, 10_000_000, "distrib").withInput(1, x -> x).withChunking(100_000, 0)
        .withMinWorkers(3), 0);
    for (String id : List.of("a", "b", "c")) {
      c.workerJoined(new WorkerInfo(id, Set.of("grep"), 1, Map.of(), Double.POSITIVE_INFINITY, 0, 0), 0);
    }
    List<Action> first = drain();
    assertTrue(only(first, Action.Planned.class).get(0).reason().startsWith("no worker's"));
    Map<String, Action.Assign> probe = only(first, Action.Assign.class).stream()
        .collect(Collectors.toMap(Action.Assign::worker, a -> a, (x, y) -> x));
    assertEquals(Set.of("a", "b", "c"), probe.keySet());
    return probe;
  }

  /** The probe chunk's input arrived at {@code bytesPerSecond}, and its worker computed and saved it. */
  private void measure(Action.Assign probe, double bytesPerSecond, double now) {
    c.streamed(probe.worker(), probe.job(), probe.chunkId(), probe.units(), probe.units() / bytesPerSecond, true,
        now - 0.5);
    complete(probe, now);
  }

  @Test
  void aLateJoinerIsPlannedInWithTheWorkNotHandedOutYet() {
    c.addJob(JobDef.of("j", "primes", 0, 1_000_000, "equal").withMinWorkers(2).withChunking(0, 9), 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 1000), 0);
    c.workerJoined(WorkerInfo.of("b", "primes", 500), 0);
    long handedOut = only(drain(), Action.Assign.class).stream().mapToLong(Action.Assign::units).sum();
    c.workerJoined(WorkerInfo.of("c", "primes", 1000), 100);
    List<Action> after = drain();
    Action.Planned replan = only(after, Action.Planned.class).get(0);
    assertEquals(3, replan.workers());
    assertEquals(1_000_000 - handedOut, replan.units(), "everything but the pieces the workers hold");
    assertTrue(only(after, Action.Assign.class).stream().anyMatch(x -> x.worker().equals("c")));
    assertNull(c.views().checkLedger("j"));
  }

  @Test
  void beforeTheNextReplanALateJoinerTakesTheBackOfTheQueueThatWouldTakeLongest() {
    c.addJob(JobDef.of("j", "primes", 0, 1_000_000, "equal").withMinWorkers(2).withChunking(0, 9), 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 1000), 0);
    c.workerJoined(WorkerInfo.of("b", "primes", 500), 0);
    drain();
    // within a second of the last plan: b's queue would take longest (800 s against a's 400 s)
    c.workerJoined(WorkerInfo.of("c", "primes", 1000), 0.5);
    List<Action> taken = drain();
    assertTrue(only(taken, Action.Planned.class).isEmpty());
    assertTrue(only(taken, Action.Truncate.class).isEmpty(), "queued work first, running chunks untouched");
    List<Action.Assign> toC = only(taken, Action.Assign.class).stream().filter(x -> x.worker().equals("c")).toList();
    assertEquals(950_000, toC.get(0).start(), "the back of b's queue, its last piece: " + toC);
    // at most a sixteenth of the time the job still needs, at c's speed (guided self-scheduling)
    assertTrue(toC.get(0).units() <= 50_000 && toC.get(0).units() >= 25_000, toC.toString());
    assertNull(c.views().checkLedger("j"));
  }

  @Test
  void withNothingQueuedAnIdleWorkerTakesACopyItsHolderHasNotStarted() {
    c.addJob(JobDef.of("j", "primes", 0, 1_000_000, "self").withMinWorkers(2).withChunking(250_000, 0), 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 1000), 0);
    c.workerJoined(WorkerInfo.of("b", "primes", 500), 0);
    List<Action.Assign> held = only(drain(), Action.Assign.class);
    Action.Assign bSecond = held.stream().filter(x -> x.worker().equals("b")).reduce((x, y) -> y).orElseThrow();
    // b starts its second copy only at 500 s; c, joining at 100 s, is done with it by 350 s
    c.workerJoined(WorkerInfo.of("c", "primes", 1000), 100);
    List<Action> moved = drain();
    Action.Cancel cancel = only(moved, Action.Cancel.class).get(0);
    assertEquals(bSecond.chunkId(), cancel.chunkId());
    Action.Assign toC = only(moved, Action.Assign.class).get(0);
    assertEquals("c", toC.worker());
    assertEquals(bSecond.start(), toC.start());
    assertEquals(bSecond.end(), toC.end());
    assertNull(c.views().checkLedger("j"));
  }

  @Test
  void withNothingQueuedAnIdleWorkerTakesTheTailOfTheCopyThatWouldFinishLast() {
    Controller one = new Controller(ControlConfig.defaults().withWindow(1));
    one.addJob(JobDef.of("j", "primes", 0, 1_000_000, "self").withMinWorkers(2).withChunking(500_000, 0), 0);
    one.workerJoined(WorkerInfo.of("a", "primes", 1000), 0);
    one.workerJoined(WorkerInfo.of("b", "primes", 500), 0);
    Map<String, Action.Assign> held = only(one.ready().actions(), Action.Assign.class).stream()
        .collect(Collectors.toMap(Action.Assign::worker, x -> x));
    // b needs 1000 s for its 500,000 units, a 500 s; c joins at 100 s
    one.workerJoined(WorkerInfo.of("c", "primes", 1000), 100);
    List<Action> split = one.ready().actions();
    Action.Truncate t = only(split, Action.Truncate.class).get(0);
    assertEquals("b", t.worker(), "the copy that would finish last is b's");
    Action.Assign tail = only(split, Action.Assign.class).stream().filter(x -> x.worker().equals("c")).findFirst()
        .orElseThrow();
    assertEquals(t.end(), tail.start());
    assertEquals(held.get("b").end(), tail.end());
    // b is 50,000 in at t=100; it keeps a third of the other 450,000, c (twice as fast) the rest
    long bStart = held.get("b").start();
    assertEquals(bStart + 50_000 + 150_000, t.end(), 1, "balanced cut: " + t);
    assertNull(one.views().checkLedger("j"));
  }

  @Test
  void aHolderPastTheCutReportsAPieceThatCountsOnceAndTheOverlapGoesBackToTheQueue() {
    c.addJob(JobDef.of("j", "primes", 0, 1000, "self").withChunking(1000, 0), 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 1), 0);
    Action.Assign first = only(drain(), Action.Assign.class).get(0);
    c.workerJoined(WorkerInfo.of("b", "primes", 1), 10);
    List<Action> split = drain();
    Action.Truncate t = only(split, Action.Truncate.class).get(0);
    Action.Assign tail = only(split, Action.Assign.class).get(0);
    // a missed the truncation and reports past the cut
    long past = t.end() + 50;
    assertEquals(Verdict.COMMIT, c.piece("a", "j", first.chunkId(), 0, past, 20));
    c.committed("a", "j", first.chunkId(), 0, past, 20, 20);
    // b's first piece overlaps what a committed: discarded, its own rest goes back to the queue
    assertEquals(Verdict.DISCARD, c.piece("b", "j", tail.chunkId(), tail.start(), past + 100, 21));
    assertNull(c.views().checkLedger("j"));
    assertEquals(past, c.views().job("j").committed());
    // everything else is still there for someone: b takes it and the job ends exact
    for (int round = 0; round < 20 && !c.views().job("j").phase().ended(); round++) {
      c.tick(30 + round);
      for (Action.Assign a : only(drain(), Action.Assign.class)) {
        complete(a, 30 + round);
      }
      for (Action.Assign a : only(log, Action.Assign.class)) {
        if (a.chunkId() == tail.chunkId()) {
          // finish b's original copy after the discarded piece
          Verdict v = c.piece("b", "j", a.chunkId(), past + 100, a.end(), 30 + round);
          if (v == Verdict.COMMIT) {
            c.committed("b", "j", a.chunkId(), past + 100, a.end(), 1, 30 + round);
          }
        }
      }
    }
    assertEquals(JobPhase.DONE, c.views().job("j").phase());
    assertEquals(1000, c.views().job("j").committed());
  }

  @Test
  void aPieceForACopyNeverAssignedIsRefusedAndARetransmissionIsADuplicate() {
    c.addJob(JobDef.of("j", "primes", 0, 1000, "self").withChunking(100, 0), 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 10), 0);
    c.workerJoined(WorkerInfo.of("b", "primes", 10), 0);
    Action.Assign a = only(drain(), Action.Assign.class).stream().filter(x -> x.worker().equals("a")).findFirst()
        .orElseThrow();
    long mid = a.start() + 50;
    assertEquals(Verdict.REFUSE, c.piece("b", "j", a.chunkId(), a.start(), mid, 1), "not b's copy");
    assertEquals(Verdict.REFUSE, c.piece("a", "j", 999, 0, 10, 1), "no such copy");
    assertEquals(Verdict.REFUSE, c.piece("a", "j", a.chunkId(), a.start() + 1, mid, 1), "does not start at the cursor");
    assertEquals(Verdict.COMMIT, c.piece("a", "j", a.chunkId(), a.start(), mid, 1));
    // resent while its first copy is being made durable: acknowledged, but not as saved
    assertEquals(Verdict.DISCARD, c.piece("a", "j", a.chunkId(), a.start(), mid, 1));
    assertEquals(Verdict.COMMIT, c.piece("a", "j", a.chunkId(), mid, a.end(), 1));
    c.committed("a", "j", a.chunkId(), a.start(), mid, 1, 1);
    assertEquals(Verdict.DUPLICATE, c.piece("a", "j", a.chunkId(), a.start(), mid, 1), "resent once durable");
    c.committed("a", "j", a.chunkId(), mid, a.end(), 1, 1);
    assertEquals(Verdict.DUPLICATE, c.piece("a", "j", a.chunkId(), mid, a.end(), 2), "a finished copy, resent");
  }

  /**
   * Three workers behind relay A and three behind relay B: each one's first successor is behind the
   * other relay, so when A is lost with its three workers, their work goes to B's three, one each,
   * not all to the first worker past A's.
   */
  @Test
  void aRelaysWorkersLostTogetherSpreadTheirWorkOverTheOtherSite() {
    c.addJob(JobDef.of("j", "primes", 0, 600_000, "equal").withMinWorkers(6).withChunking(0, 3), 0);
    List<String> a = List.of("a1", "a2", "a3");
    for (String id : List.of("a1", "a2", "a3", "b1", "b2", "b3")) {
      c.workerJoined(WorkerInfo.of(id, "primes", 100).withRelay(id.startsWith("a") ? "A" : "B"), 0);
    }
    drain();
    Map<String, List<String>> lists = c.views().recovery("j", 1);
    for (Map.Entry<String, List<String>> e : lists.entrySet()) {
      assertNotEquals(e.getKey().charAt(0), e.getValue().get(0).charAt(0), "first successor of " + e.getKey()
          + " in " + lists);
    }
    for (String id : a) {
      c.workerLost(id, "relay A died", true, 10);
    }
    java.util.Set<String> to = new java.util.HashSet<>();
    for (Action.Rerouted r : only(drain(), Action.Rerouted.class)) {
      to.add(r.to());
    }
    assertEquals(java.util.Set.of("b1", "b2", "b3"), to);
  }

  @Test
  void aLostWorkersUnsavedUnitsFollowItsRecoveryListThenTheJobIsReplanned() {
    c.addJob(JobDef.of("j", "primes", 0, 600_000, "equal").withMinWorkers(6).withChunking(0, 3), 0);
    for (String id : List.of("w0", "w1", "w2", "w3", "w4", "w5")) {
      c.workerJoined(WorkerInfo.of(id, "primes", 100), 0);
    }
    List<Action.Assign> first = only(drain(), Action.Assign.class);
    // w0's share is [0, 100,000); it saves its first piece
    Action.Assign w0 = first.stream().filter(a -> a.worker().equals("w0")).findFirst().orElseThrow();
    assertEquals(0, w0.start());
    complete(w0, 10);
    List<String> list = c.views().recovery("j", Integer.MAX_VALUE).get("w0");
    assertEquals(5, list.size());
    c.workerLost("w0", "test", true, 20);
    List<Action> after = drain();
    Action.Rerouted r = only(after, Action.Rerouted.class).get(0);
    assertEquals("w0", r.origin());
    assertEquals(list.get(0), r.to(), "to the first live worker on w0's list");
    assertEquals(100_000 - w0.units(), r.units(), "only the units after the last checkpoint");
    assertNull(c.views().checkLedger("j"));
    assertEquals(1, c.views().job("j").reroutes().size());
    assertEquals(1, c.estimates().risk("w0", 20).interruptions());
  }

  /**
   * Whatever the plan laid out, no piece handed to a worker at risk holds more than its checkpoint
   * interval under its hazard (Young's, at the measured eps) of its work: a crash loses at most that.
   */
  @Test
  void noPieceHoldsMoreThanTheWorkersHazardIntervalOfWork() {
    c.overhead(0.05);
    c.addJob(JobDef.of("j", "primes", 0, 2_000_000_000L, "equal").withMinWorkers(2).withChunking(0, 1), 0);
    // 10 interruptions in 10 hours up: a checkpoint every minute or so
    c.workerJoined(new WorkerInfo("risky", Set.of("primes"), 1, Map.of("primes", 1e5), Double.POSITIVE_INFINITY, 10,
        36_000), 0);
    c.workerJoined(WorkerInfo.of("steady", "primes", 1e5), 0);
    List<Action.Assign> assigns = only(drain(), Action.Assign.class);
    assertTrue(!assigns.isEmpty());
    int bounded = 0;
    for (Action.Assign a : assigns) {
      double rate = c.estimates().risk(a.worker(), 0).rate();
      double seconds = dev.gleaner.common.plan.Checkpointing.youngDaly(0.05, rate);
      long previous = a.start();
      for (int k = 0; k <= a.checkpoints().length; k++) {
        long at = k < a.checkpoints().length ? a.checkpoints()[k] : a.end();
        assertTrue(at - previous <= Math.ceil(seconds * 1e5), a + ": a piece of " + (at - previous) / 1e5 + " s of work, over "
            + seconds + " s");
        previous = at;
      }
      if (a.worker().equals("risky")) {
        assertTrue(Double.isFinite(seconds) && seconds < 600, "a risky worker's interval: " + seconds);
        assertTrue(a.checkpoints().length + 1 >= a.units() / (seconds * 1e5), a.toString());
        bounded++;
      }
    }
    assertTrue(bounded > 0, "the risky worker was handed work: " + assigns);
  }

  /**
   * Before any piece is saved, the store's own write time stands for eps: a fresh master's first
   * pieces are cut for a 2 ms round trip, not for the 1 s assumed when nothing is known (22 times
   * longer pieces, each lost whole by a crash). The first piece saved replaces it.
   */
  @Test
  void beforeAnyPieceIsSavedTheStoresWriteTimeStandsForEps() {
    // as on a master: the worker joins, its session's write completes, then a job comes
    c.workerJoined(new WorkerInfo("risky", Set.of("primes"), 1, Map.of("primes", 1e5), Double.POSITIVE_INFINITY, 10,
        36_000), 0);
    assertTrue(!c.estimates().eps().known());
    c.durableWrite(0.002);
    assertEquals(0.002, c.estimates().eps().value(), 1e-12);
    c.addJob(JobDef.of("j", "primes", 0, 2_000_000_000L, "equal").withMinWorkers(1).withChunking(0, 1), 1);
    List<Action.Assign> assigns = only(drain(), Action.Assign.class);
    assertTrue(!assigns.isEmpty());
    double rate = c.estimates().risk("risky", 1).rate();
    double bound = Checkpointing.youngDaly(0.002, rate) * 1e5;
    assertTrue(Checkpointing.youngDaly(ControlConfig.EPS_PRIOR, rate) * 1e5 > 20 * bound);
    for (Action.Assign a : assigns) {
      long previous = a.start();
      for (int k = 0; k <= a.checkpoints().length; k++) {
        long at = k < a.checkpoints().length ? a.checkpoints()[k] : a.end();
        assertTrue(at - previous <= Math.ceil(bound), a + ": a piece of " + (at - previous) + " units, over " + bound);
        previous = at;
      }
    }
    c.overhead(0.05);
    c.durableWrite(0.001);
    assertEquals(0.05, c.estimates().eps().value(), 1e-12, "a measured round trip is not replaced by a write's time");
  }

  /**
   * Paper 000's checkpoints trade eps against the work an interruption loses: a plan lays them out
   * for a worker whose interruptions are crashes, not for one whose owner policy saves its piece as
   * it vacates. Both have the same history, 10 interruptions in 10 hours.
   */
  @Test
  void aPlansCheckpointsGuardOnlyAgainstInterruptionsThatLoseWork() {
    c.overhead(0.05);
    c.addJob(JobDef.of("j", "primes", 0, 20_000_000_000L, "distrib").withMinWorkers(2), 0);
    c.workerJoined(new WorkerInfo("lent", Set.of("primes"), 1, Map.of("primes", 1e5), Double.POSITIVE_INFINITY, 10,
        36_000).withSavesOnVacate(true), 0);
    c.workerJoined(new WorkerInfo("crashy", Set.of("primes"), 1, Map.of("primes", 1e5), Double.POSITIVE_INFINITY, 10,
        36_000), 0);
    List<Action.Assign> assigns = only(drain(), Action.Assign.class);
    double interval = Checkpointing.youngDaly(0.05, c.estimates().risk("crashy", 0).rate()) * 1e5;
    long crashy = firstPiece(assigns, "crashy");
    long lent = firstPiece(assigns, "lent");
    assertTrue(crashy <= Math.ceil(interval), "the crashing worker's first piece: " + crashy + " units, over " + interval);
    assertTrue(lent > 10 * interval, "the lent worker's first piece: " + lent + " units, cut for returns that lose nothing");
  }

  /** The first piece of the worker's first copy among the assignments. */
  private static long firstPiece(List<Action.Assign> assigns, String worker) {
    Action.Assign a = assigns.stream().filter(x -> x.worker().equals(worker)).findFirst().orElseThrow();
    return (a.checkpoints().length > 0 ? a.checkpoints()[0] : a.end()) - a.start();
  }

  /**
   * A worker whose owner policy saves its piece as it vacates loses work only to crashes: its pieces
   * are bounded by the crash hazard, not by its owner's returns, until a crash is seen.
   */
  @Test
  void aWorkerThatSavesAsItVacatesIsBoundedByCrashesOnly() {
    c.overhead(0.05);
    c.addJob(JobDef.of("j", "primes", 0, 2_000_000_000L, "equal").withMinWorkers(2).withChunking(0, 1), 0);
    WorkerInfo lent = new WorkerInfo("lent", Set.of("primes"), 1, Map.of("primes", 1e5), Double.POSITIVE_INFINITY, 10,
        36_000).withSavesOnVacate(true);
    c.workerJoined(lent, 0);
    c.workerJoined(WorkerInfo.of("other", "primes", 1e5), 0);
    Action.Assign first = only(drain(), Action.Assign.class).stream().filter(a -> a.worker().equals("lent"))
        .findFirst().orElseThrow();
    assertTrue(first.checkpoints().length < 10, "10 owner returns in 10 hours, none a crash: not cut " + first);
    // its owner comes back: it vacates, an interruption but no crash; then "other" crashes
    c.workerVacated("lent", "vacated: owner back", 10);
    assertEquals(0, c.estimates().crashRate("lent", 10), 0);
    assertEquals(11, c.estimates().risk("lent", 10).interruptions());
    c.workerLost("other", "connection closed", true, 20);
    c.workerJoined(lent, 30);
    double rate = c.estimates().crashRate("lent", 30);
    assertTrue(rate > 0, "the fleet has seen a crash");
    List<Action.Assign> later = only(drain(), Action.Assign.class).stream().filter(a -> a.worker().equals("lent"))
        .toList();
    double bound = dev.gleaner.common.plan.Checkpointing.youngDaly(0.05, rate) * 1e5;
    assertTrue(!later.isEmpty(), "the returned worker is handed work");
    for (Action.Assign a : later) {
      long previous = a.start();
      for (int k = 0; k <= a.checkpoints().length; k++) {
        long at = k < a.checkpoints().length ? a.checkpoints()[k] : a.end();
        assertTrue(at - previous <= Math.ceil(bound) + 1, a + ": a piece over the crash interval " + bound / 1e5 + " s");
        previous = at;
      }
    }
  }

  @Test
  void aWorkerRefusedAgainAndAgainReplansNothingUntilAPieceOfItCounts() {
    c.addJob(JobDef.of("j", "primes", 0, 6_000_000, "equal").withMinWorkers(2).withChunking(0, 3), 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 100), 0);
    c.workerJoined(WorkerInfo.of("b", "primes", 100), 0);
    drain();
    c.workerJoined(WorkerInfo.of("h", "primes", 100), 10);
    int replans = c.views().progress("j").replans();
    assertEquals(1, replans, "a new worker's first join is planned");
    List<Action.Assign> toH = only(drain(), Action.Assign.class).stream().filter(a -> a.worker().equals("h")).toList();
    assertTrue(!toH.isEmpty(), "the new worker is handed work");
    // it is refused (a message its role may not send): what it held follows the recovery lists
    c.workerRefused("h", "a worker may not send SUBMIT", 11);
    List<Action> atRefusal = drain();
    assertTrue(!only(atRefusal, Action.Rerouted.class).isEmpty(), atRefusal.toString());
    // and it logs in and is refused again, each time more than a re-plan interval apart
    for (int k = 0; k < 6; k++) {
      c.workerJoined(WorkerInfo.of("h", "primes", 100), 20 + 10 * k);
      c.workerRefused("h", "a worker may not send SUBMIT", 25 + 10 * k);
      drain();
    }
    assertEquals(replans, c.views().progress("j").replans(), "no re-plan for its refusals or its joins after one");
    assertEquals(0, c.estimates().risk("h", 100).interruptions(), "the master refused it: not an interruption");
    // an honest session again: a piece of it counts, and then its share is planned
    c.workerJoined(WorkerInfo.of("h", "primes", 100), 100);
    Action.Assign a = only(drain(), Action.Assign.class).stream().filter(x -> x.worker().equals("h")).findFirst()
        .orElseThrow();
    assertEquals(replans, c.views().progress("j").replans());
    long cut = a.checkpoints().length > 0 ? a.checkpoints()[0] : a.end();
    assertEquals(Verdict.COMMIT, c.piece("h", "j", a.chunkId(), a.start(), cut, 101));
    c.committed("h", "j", a.chunkId(), a.start(), cut, 1, 101);
    assertEquals(replans + 1, c.views().progress("j").replans(), "planned again once it does real work");
  }

  @Test
  void aJobNobodyCanRunSaysWhatItWaitsFor() {
    c.addJob(JobDef.of("p", "primes", 0, 1000, "self"), 0);
    c.addJob(JobDef.of("e", "exec", 0, 10, "self"), 0);
    c.workerJoined(WorkerInfo.of("a", "grep", 10), 0);
    assertEquals("waiting for 1 worker(s) that accept workload 'primes' (0 connected)", c.views().job("p").message());
    assertEquals("waiting for 1 worker(s) that accept workload 'exec' (0 connected; a worker runs programs only when"
        + " started with --allow-exec)", c.views().job("e").message());
  }

  @Test
  void atTheDeadlineThePieceUnderWayIsCollectedAndTheJobEndsWithItsNotDoneRanges() {
    c.addJob(JobDef.of("j", "primes", 0, 1000, "self").withChunking(100, 0).withDeadline(50), 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 10), 0);
    List<Action.Assign> given = only(drain(), Action.Assign.class);
    Action.Assign first = given.get(0);
    Action.Assign second = given.get(1);
    assertEquals(Verdict.COMMIT, c.piece("a", "j", first.chunkId(), first.start(), first.end(), 10));
    c.committed("a", "j", first.chunkId(), first.start(), first.end(), 10, 10.001);
    c.tick(50);
    List<Action> end = drain();
    // the copy under way is stopped where its worker had reported up to: it reports what it computed
    Action.Truncate stop = only(end, Action.Truncate.class).get(0);
    assertEquals(second.chunkId(), stop.chunkId());
    assertEquals(second.start(), stop.end());
    assertTrue(!stop.split());
    assertEquals(JobPhase.ENDING, c.views().job("j").phase(), "the last piece under way is waited for");
    assertTrue(c.piece("a", "j", second.chunkId(), second.start(), second.start() + 40, true, 50.2) == Verdict.COMMIT);
    c.committed("a", "j", second.chunkId(), second.start(), second.start() + 40, 4, 50.3);
    Action.Finished f = only(drain(), Action.Finished.class).get(0);
    assertEquals(JobPhase.DONE_PARTIAL, f.phase());
    RangeSet expected = RangeSet.of(0, 1000);
    expected.remove(first.start(), first.end());
    expected.remove(second.start(), second.start() + 40);
    assertEquals(expected, f.notDone());
    assertEquals(140, c.views().job("j").committed(), "the 40 units computed before the deadline are kept");
  }

  @Test
  void atTheDeadlineALastPieceThatDoesNotComeIsGivenUpAfterTheGrace() {
    c.addJob(JobDef.of("j", "primes", 0, 1000, "self").withChunking(100, 0).withDeadline(50), 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 10), 0);
    drain();
    c.tick(50);
    assertTrue(!only(drain(), Action.Truncate.class).isEmpty());
    c.tick(50 + ControlConfig.DEADLINE_GRACE - 0.1);
    assertEquals(JobPhase.ENDING, c.views().job("j").phase());
    c.tick(50 + ControlConfig.DEADLINE_GRACE);
    List<Action> end = drain();
    assertTrue(!only(end, Action.Cancel.class).isEmpty(), "given up: the copy is cancelled");
    assertEquals(JobPhase.DONE_PARTIAL, only(end, Action.Finished.class).get(0).phase());
    assertEquals(0, c.views().job("j").committed());
  }

  @Test
  void aChunkThatCannotFinishBeforeTheDeadlineIsCutToWhatFits() {
    // a worker with a known risk takes its plan's pieces as planned, cut to what fits the deadline
    c.addJob(JobDef.of("j", "primes", 0, 100_000, "equal").withDeadline(100).withChunking(0, 1), 0);
    c.workerJoined(WorkerInfo.of("a", "primes", 10).withHistory(1, 1e6), 0);
    Action.Assign a = only(drain(), Action.Assign.class).get(0);
    assertTrue(a.units() <= 1000, "10 units/s for 100 s: " + a);
    assertTrue(a.units() >= 990, a.toString());
  }

  @Test
  void aWorkerGoneAtADeclaredTimeGetsOnlyWhatItCanFinishBeforeIt() {
    c.addJob(JobDef.of("j", "primes", 0, 100_000, "self").withChunking(50_000, 0), 0);
    c.workerJoined(WorkerInfo.of("leaving", "primes", 10).withAvailableUntil(60), 0);
    Action.Assign a = only(drain(), Action.Assign.class).get(0);
    assertTrue(a.units() <= 600, a.toString());
    assertTrue(c.estimates().worker("leaving", "primes", false, 0, dev.gleaner.common.model.RiskModel.LINEAR, 0)
        .risk() >= 1.0 / 60, "a declared end is a certain interruption for the planner");
  }

  @Test
  void replicasOfOneRangeCountOnceAndTheSlowerCopyIsCancelled() {
    c.addJob(JobDef.of("j", "primes", 0, 1000, "self").withChunking(1000, 0), 0);
    c.workerJoined(WorkerInfo.of("risky", "primes", 1).withHistory(50, 100), 0);
    Action.Assign mine = only(drain(), Action.Assign.class).get(0);
    // the holder has been interrupted 50 times in 100 s: its copy is replicated, not split
    c.workerJoined(WorkerInfo.of("safe", "primes", 1), 1);
    List<Action> r = drain();
    assertTrue(only(r, Action.Truncate.class).isEmpty(), "a replica leaves the holder's range alone");
    Action.Assign replica = only(r, Action.Assign.class).get(0);
    assertEquals(mine.start(), replica.start());
    assertEquals(mine.end(), replica.end());
    // (both are at risk, the fleet having seen 50 interruptions in 100 s: each copy comes in pieces of a
    // couple of seconds, its hazard interval)
    List<Verdict> saved = complete(replica, 5);
    assertTrue(saved.size() > 1 && saved.stream().allMatch(v -> v == Verdict.COMMIT), saved.toString());
    assertTrue(only(drain(), Action.Cancel.class).stream().anyMatch(x -> x.chunkId() == mine.chunkId()),
        "the slower copy is cancelled once the other saved its units");
    // the holder's late piece counts nothing
    assertTrue(complete(mine, 6).stream().allMatch(v -> v == Verdict.DUPLICATE));
    assertEquals(JobPhase.DONE, c.views().job("j").phase());
    assertEquals(1000, c.views().job("j").committed());
  }

  @Test
  void streamsAreRankedInThePlansServiceOrder() {
    // with a deadline, what an interruption loses stays lost: the plan is paper 001's
    JobDef def = JobDef.of("j", "grep", 0, 1_000_000, "distrib").withInput(1, x -> x).withMinWorkers(3)
        .withDeadline(100_000);
    List<Action.Stream> streams = streamsOfThreeAtRisk(def);
    assertEquals(6, streams.size(), "two pieces each, the window");
    // with equal bandwidths DISTRIB serves the riskiest first (paper 001, Theorem 5)
    assertEquals(List.of("b", "c", "a"), streams.stream().sorted((x, y) -> Integer.compare(x.rank(), y.rank()))
        .map(Action.Stream::worker).distinct().toList());
    assertFalse(c.views().job("j").reason().startsWith("no deadline"), c.views().job("j").reason());
  }

  /**
   * Without a deadline every unit is done in the end and an interruption costs only the time to do
   * again what it lost: the plan is the round that ends soonest, as if nobody were at risk (all the
   * work expected), and it says so.
   */
  @Test
  void withoutADeadlineTheRoundThatEndsSoonestIsPlannedWhateverTheRisks() {
    JobDef def = JobDef.of("j", "grep", 0, 1_000_000, "distrib").withInput(1, x -> x).withMinWorkers(3);
    streamsOfThreeAtRisk(def);
    JobView v = c.views().job("j");
    assertTrue(v.reason().startsWith("no deadline, so an interruption costs time, not work"), v.reason());
    assertEquals(1_000_000, v.expectedWork(), 1, "every unit, in the end");
  }

  @Test
  void withADeadlineTheRisksCount() {
    streamsOfThreeAtRisk(JobDef.of("j", "grep", 0, 1_000_000, "distrib").withInput(1, x -> x).withMinWorkers(3)
        .withDeadline(100_000));
    JobView v = c.views().job("j");
    assertTrue(v.expectedWork() < 0.999 * 1_000_000, "what an interruption loses is lost: " + v.expectedWork());
  }

  /** The job, over three workers of equal speed and links, interrupted 1, 5 and 3 times in 10,000 s; their streams. */
  private List<Action.Stream> streamsOfThreeAtRisk(JobDef def) {
    for (String id : List.of("a", "b", "c")) {
      c.streamed(id, "earlier", 1, 1000, 1, 0);
    }
    c.addJob(def, 0);
    c.workerJoined(WorkerInfo.of("a", "grep", 100).withHistory(1, 10_000), 0);
    c.workerJoined(WorkerInfo.of("b", "grep", 100).withHistory(5, 10_000), 0);
    c.workerJoined(WorkerInfo.of("c", "grep", 100).withHistory(3, 10_000), 0);
    return only(drain(), Action.Stream.class);
  }

  /**
   * An idle worker behind a thin link takes nothing from one behind a fast link while the master's
   * port cannot send to both at once: each unit would hold the port ten times as long as its owner's
   * (paper 001: serve by non-increasing bandwidth). Once the egress takes both links, it takes no
   * more than makes both end together.
   */
  @Test
  void aThinLinkTakesNothingFromAFastOneWhileTheyCannotShareThePort() {
    double t = 41;
    assertTrue(thinDoneFastBusy() <= 2_000, "one port: the thin link takes its planned 0.1% and nothing from the"
        + " fast one");
    // and says why it idles while the fast one's queue waits
    WorkerView thin = c.views().worker("thin", t);
    assertTrue(thin.chunks().isEmpty() && thin.idleBecause().contains("thinner than fast's"), thin.toString());
    c.port(new dev.gleaner.common.port.PortRule(Integer.MAX_VALUE, 1e9));
    c.tick(t);
    List<Action.Assign> stolen = only(drain(), Action.Assign.class).stream().filter(a -> a.worker().equals("thin"))
        .toList();
    long took = stolen.stream().mapToLong(a -> a.end() - a.start()).sum();
    // both links at once: it takes from the back of the fast one's queue, at most its end-together share
    assertTrue(took > 0 && took <= 0.1 * 1_000_000, "took " + took + " in " + stolen);
  }

  /**
   * The reason a worker idles is shown only while it is held back: not once it drains (it takes
   * nothing for a reason of its own), nor once no work waits.
   */
  @Test
  void aWorkerHeldBackSaysWhyOnlyWhileItIs() {
    thinDoneFastBusy();
    assertTrue(c.views().worker("thin", 41).idleBecause().contains("thinner"));
    c.workerDraining("thin", 41);
    drain();
    WorkerView thin = c.views().worker("thin", 41);
    assertTrue(thin.chunks().isEmpty(), thin.toString());
    assertEquals("", thin.idleBecause(), "it drains: " + thin);
    c.cancel("j", "enough", 0, 42);
    drain();
    assertEquals("", c.views().worker("thin", 42).idleBecause(), "nothing waits any more");
  }

  /**
   * A thin-link worker and a fast one on a job with input under one port, the thin one done with its
   * planned pieces after 40 s while the fast one has hardly begun; the units the thin one computed.
   */
  private long thinDoneFastBusy() {
    JobDef def = JobDef.of("j", "grep", 0, 1_000_000, "distrib").withInput(1, x -> x).withMinWorkers(2);
    c.streamed("fast", "earlier", 1, 10_000, 1, 0);
    c.streamed("thin", "earlier", 1, 1_000, 1, 0);
    c.addJob(def, 0);
    c.workerJoined(WorkerInfo.of("fast", "grep", 1e6), 0);
    c.workerJoined(WorkerInfo.of("thin", "grep", 1e6), 0);
    List<Action.Assign> first = only(drain(), Action.Assign.class);
    // one port: the thin link's share ends with the fast one's (1/(1e-4 + 1e-6) units for the fast link
    // ends at 0.990 of the time, 0.0099/(1e-3 + 1e-6) for the thin one: 0.1% of the work)
    long thinUnits = 0;
    double t = 1;
    // the thin worker completes what it got, its planned pieces one by one, and asks for more
    for (int round = 0; round < 40; round++, t++) {
      for (Action.Assign a : first.stream().filter(x -> x.worker().equals("thin")).toList()) {
        thinUnits += a.end() - a.start();
        // computed at its speed of 1e6 units/s
        assertEquals(Verdict.COMMIT, c.piece(a.worker(), a.job(), a.chunkId(), a.start(), a.end(), t));
        c.committed(a.worker(), a.job(), a.chunkId(), a.start(), a.end(), (a.end() - a.start()) / 1e6, t);
      }
      c.tick(t);
      first = only(drain(), Action.Assign.class);
    }
    assertTrue(thinUnits > 0, "the thin link takes its planned share");
    return thinUnits;
  }

  /**
   * The port learns, as the job runs, what its egress takes: the plan is made again when it moved by
   * more than a tenth, or came to take every link at once (its sizes and order rest on it); a smaller
   * move is not a reason.
   */
  @Test
  void aJobIsPlannedAgainWhenTheEgressTurnsOutToTakeEveryLink() {
    JobDef def = JobDef.of("j", "grep", 0, 1_000_000, "distrib").withInput(1, x -> x).withMinWorkers(2);
    c.streamed("fast", "earlier", 1, 10_000, 1, 0);
    c.streamed("thin", "earlier", 1, 1_000, 1, 0);
    c.port(new dev.gleaner.common.port.PortRule(Integer.MAX_VALUE, 5_000));
    c.addJob(def, 0);
    c.workerJoined(WorkerInfo.of("fast", "grep", 1e3), 0);
    c.workerJoined(WorkerInfo.of("thin", "grep", 1e3), 0);
    List<Action.Planned> plans = only(drain(), Action.Planned.class);
    assertTrue(plans.get(plans.size() - 1).reason().contains("one port (no two links fit together"), plans.toString());
    c.port(new dev.gleaner.common.port.PortRule(Integer.MAX_VALUE, 5_200));
    c.tick(2);
    assertTrue(only(drain(), Action.Planned.class).isEmpty(), "a move of 4%, and the two links still do not fit");
    c.port(new dev.gleaner.common.port.PortRule(Integer.MAX_VALUE, 7_000));
    c.tick(4);
    assertEquals(1, only(drain(), Action.Planned.class).size(), "the egress moved by 35%: the sizes rest on it");
    c.port(new dev.gleaner.common.port.PortRule(Integer.MAX_VALUE, 12_000));
    c.tick(6);
    List<Action.Planned> again = only(drain(), Action.Planned.class);
    assertEquals(1, again.size(), again.toString());
    assertTrue(again.get(0).reason().contains("every link at once"), again.get(0).reason());
  }

  @Test
  void aWorkerThatHeartbeatsButNeverReportsLosesItsWorkWhenItsLeaseEnds() {
    c.addJob(JobDef.of("j", "primes", 0, 1_000_000, "equal").withMinWorkers(2), 0);
    c.workerJoined(WorkerInfo.of("hung", "primes", 1000), 0);
    c.workerJoined(WorkerInfo.of("ok", "primes", 1000), 0);
    List<Action.Assign> first = only(drain(), Action.Assign.class);
    Action.Assign held = first.stream().filter(a -> a.worker().equals("hung")).findFirst().orElseThrow();
    long cut = held.checkpoints().length > 0 ? held.checkpoints()[0] : held.end();
    // its lease: 10 times the first piece's expected time at 1000 units/s, at least 120 s
    double lease = Math.max(120, 10 * (cut - held.start()) / 1000.0);
    List<Action.Assign> okWork = new ArrayList<>(first.stream().filter(a -> a.worker().equals("ok")).toList());
    double t = 0;
    for (int step = 0; step < 10_000 && t < lease - 1; step++) {
      t = Math.min(lease - 1, t + 5);
      for (Action.Assign a : List.copyOf(okWork)) {
        complete(a, t);
        okWork.remove(a);
      }
      c.tick(t);
      List<Action> acts = drain();
      assertTrue(only(acts, Action.Drop.class).isEmpty(), "no drop before the lease ends, t=" + t + ": " + acts);
      okWork.addAll(only(acts, Action.Assign.class).stream().filter(a -> a.worker().equals("ok")).toList());
    }
    c.tick(lease + 1);
    List<Action> expired = drain();
    List<Action.Drop> drops = only(expired, Action.Drop.class);
    assertEquals(1, drops.size(), expired.toString());
    assertEquals("hung", drops.get(0).worker());
    assertTrue(drops.get(0).why().contains("lease"), drops.get(0).why());
    okWork.addAll(only(expired, Action.Assign.class).stream().filter(a -> a.worker().equals("ok")).toList());
    // the healthy worker gets the hung worker's units and the job ends exact
    t = lease + 1;
    for (int step = 0; step < 10_000 && !okWork.isEmpty(); step++) {
      t += 1;
      for (Action.Assign a : List.copyOf(okWork)) {
        complete(a, t);
        okWork.remove(a);
      }
      c.tick(t);
      okWork.addAll(only(drain(), Action.Assign.class).stream().filter(a -> a.worker().equals("ok")).toList());
    }
    assertEquals(JobPhase.DONE, c.views().job("j").phase());
    assertEquals(1_000_000, c.views().job("j").committed());
  }

  @Test
  void aPieceThatOutlivesItsLeaseOnThreeWorkersFailsTheJob() {
    // a program that never ends: each worker that takes the piece loses its lease, and the job
    // must not hand it out forever
    c.addJob(JobDef.of("j", "primes", 0, 1000, "self").withChunking(1000, 0), 0);
    double t = 0;
    for (int i = 1; i <= 3; i++) {
      String w = "w" + i;
      c.workerJoined(WorkerInfo.of(w, "primes", 1000), t);
      List<Action.Assign> got = only(drain(), Action.Assign.class);
      assertEquals(List.of(w), got.stream().map(Action.Assign::worker).distinct().toList(), "attempt " + i);
      t += 10 * c.config().leaseFloor() + 1;
      c.tick(t);
      List<Action> acts = drain();
      assertEquals(1, only(acts, Action.Drop.class).size(), acts.toString());
    }
    assertEquals(JobPhase.FAILED, c.views().job("j").phase());
    assertTrue(c.views().job("j").message().contains("failed 3 times") && c.views().job("j").message().contains("lease"),
        c.views().job("j").message());
  }

  /** Runs the job to its end: every assignment to a worker in {@code failing} fails, the others complete. */
  private void runWithFailures(List<Action.Assign> work, Set<String> failing, double t0) {
    double t = t0;
    List<Action.Assign> todo = new ArrayList<>(work);
    for (int step = 0; step < 10_000 && !todo.isEmpty(); step++) {
      t += 1;
      Action.Assign a = todo.remove(0);
      if (failing.contains(a.worker())) {
        c.chunkFailed(a.worker(), a.job(), a.chunkId(), "exit code 3: boom", t);
      } else {
        complete(a, t);
      }
      c.tick(t);
      todo.addAll(only(drain(), Action.Assign.class));
    }
  }

  @Test
  void aFailedPieceIsTriedAgainElsewhereAndAWorkerThatFailsTwiceIsSetAside() {
    c.addJob(JobDef.of("j", "primes", 0, 600_000, "equal").withMinWorkers(3), 0);
    for (String w : List.of("flaky", "b", "c")) {
      c.workerJoined(WorkerInfo.of(w, "primes", 1000), 0);
    }
    List<Action.Assign> first = only(drain(), Action.Assign.class);
    runWithFailures(first, Set.of("flaky"), 0);
    assertEquals(JobPhase.DONE, c.views().job("j").phase(), c.views().job("j").message());
    assertEquals(600_000, c.views().job("j").committed(), "every unit once, though flaky computed none");
    long toFlaky = only(log, Action.Assign.class).stream().filter(a -> a.worker().equals("flaky")).count();
    long flakyFirst = first.stream().filter(a -> a.worker().equals("flaky")).count();
    assertTrue(toFlaky <= flakyFirst + 1, "set aside after its second failure: " + toFlaky + " assignments");
    assertTrue(only(log, Action.Cancel.class).stream().anyMatch(x -> x.worker().equals("flaky")),
        "a failed copy is cancelled, so its input stops streaming");
  }

  @Test
  void aSetAsideWorkerTakesTheJobAgainWhenNobodyElseIsLeft() {
    c.addJob(JobDef.of("j", "primes", 0, 600_000, "equal").withMinWorkers(2), 0);
    c.workerJoined(WorkerInfo.of("flaky", "primes", 1000), 0);
    c.workerJoined(WorkerInfo.of("b", "primes", 1000), 0);
    List<Action.Assign> flaky = only(drain(), Action.Assign.class).stream()
        .filter(a -> a.worker().equals("flaky")).toList();
    assertEquals(2, flaky.size(), "a window of two chunks");
    double t = 1;
    c.chunkFailed("flaky", "j", flaky.get(0).chunkId(), "boom", t++);
    c.chunkFailed("flaky", "j", flaky.get(1).chunkId(), "boom", t++);
    drain();
    c.tick(t++);
    assertTrue(only(drain(), Action.Assign.class).stream().noneMatch(a -> a.worker().equals("flaky")),
        "set aside after two failures while b takes the job");
    c.workerLost("b", "gone", true, t++);
    drain();
    c.tick(t);
    List<Action.Assign> again = only(drain(), Action.Assign.class);
    assertTrue(again.stream().anyMatch(a -> a.worker().equals("flaky")), "the only worker left takes the job: " + again);
  }

  @Test
  void aPieceThatFailsOnThreeWorkersFailsTheJobWithItsError() {
    c.addJob(JobDef.of("j", "primes", 0, 600_000, "equal").withMinWorkers(3), 0);
    for (String w : List.of("a", "b", "c")) {
      c.workerJoined(WorkerInfo.of(w, "primes", 1000), 0);
    }
    runWithFailures(only(drain(), Action.Assign.class), Set.of("a", "b", "c"), 0);
    assertEquals(JobPhase.FAILED, c.views().job("j").phase());
    String why = c.views().job("j").message();
    assertTrue(why.contains("failed 3 times") && why.contains("exit code 3: boom"), why);
  }
}
