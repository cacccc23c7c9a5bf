package dev.gleaner.common.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.WorkerView;
import dev.gleaner.common.port.Sends;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The simulator's port with several streams on the wire, through whole closed-loop runs of a
 * data-heavy job (computing costs nothing next to the links): against the one-port port where the
 * two models are the same, and against the bounds the wire sets (the links' sum, the egress).
 */
class SimFluidPortTest {
  private static final double[] LINKS = {10e6, 5e6, 2.5e6, 1.25e6};
  private static final long UNITS = 40_000_000;

  private static List<ClosedLoop.Host> hosts() {
    List<ClosedLoop.Host> hosts = new ArrayList<>();
    for (int i = 0; i < LINKS.length; i++) {
      hosts.add(new ClosedLoop.Host("w" + (i + 1), 1e12, LINKS[i], 1e12, 0, List.of(), Double.POSITIVE_INFINITY));
    }
    return hosts;
  }

  private static ClosedLoop.Result run(String strategy, SimNetwork network) {
    JobDef job = JobDef.of("j", "wc", 0, UNITS, strategy).withMinWorkers(LINKS.length).withChunking(1_000_000, 1)
        .withInput(1, x -> x);
    ClosedLoop.Result r = ClosedLoop.run(job, hosts(), ClosedLoop.Setup.defaults(3600).with(network));
    assertEquals(JobPhase.DONE, r.phase());
    assertEquals(UNITS, r.committed());
    return r;
  }

  /**
   * One worker, its link known, ten pieces of 1e6 units (the master hands out a plan's chunk a piece
   * at a time): when the job ends, on each port.
   */
  private static double tenPieces(double link, double speed, SimNetwork network) {
    JobDef job = JobDef.of("j", "wc", 0, 10_000_000, "self").withMinWorkers(1).withChunking(10_000_000, 9)
        .withInput(1, x -> x);
    List<ClosedLoop.Host> one = List.of(new ClosedLoop.Host("w1", speed, link, speed, 0, List.of(),
        Double.POSITIVE_INFINITY));
    ClosedLoop.Result r = ClosedLoop.run(job, one, ClosedLoop.Setup.defaults(3600).with(network.withLinksKnown()));
    assertEquals(JobPhase.DONE, r.phase());
    assertEquals(10_000_000, r.committed());
    return r.end();
  }

  @Test
  void aWorkerComputesAPieceWhileTheNextOnesInputArrives() {
    for (SimNetwork network : List.of(SimNetwork.ONE_PORT, new SimNetwork(1e15, Sends.FIT))) {
      // the link binds (1 MB/s, 2e6 units/s): the last piece's input comes at 10 s, then 0.5 s of
      // computing and 5 ms of saving; all the input and then all the computing would take 15 s
      double linkBound = tenPieces(1e6, 2e6, network);
      assertTrue(linkBound >= 10.505 && linkBound < 10.505 + 0.6, linkBound + " s");
      // the computing binds (4 MB/s, 1e6 units/s): the first piece's input comes at 0.25 s, then ten
      // pieces of 1 s and 5 ms; all the input first would take 12.55 s
      double computeBound = tenPieces(4e6, 1e6, network);
      assertTrue(computeBound >= 10.3 && computeBound < 10.3 + 0.6, computeBound + " s");
    }
  }

  /**
   * Two workers behind links of 1 MB/s that bind (2e6 units/s), ten pieces of 1e6 units each, their
   * links known: when the job ends.
   */
  private static double twoWorkersTenPiecesEach(SimNetwork network) {
    JobDef job = JobDef.of("j", "wc", 0, 20_000_000, "equal").withMinWorkers(2).withChunking(10_000_000, 9)
        .withInput(1, x -> x);
    List<ClosedLoop.Host> two = new ArrayList<>();
    for (String id : List.of("w1", "w2")) {
      two.add(new ClosedLoop.Host(id, 2e6, 1e6, 2e6, 0, List.of(), Double.POSITIVE_INFINITY));
    }
    ClosedLoop.Result r = ClosedLoop.run(job, two, ClosedLoop.Setup.defaults(3600).with(network.withLinksKnown()));
    assertEquals(JobPhase.DONE, r.phase());
    assertEquals(20_000_000, r.committed());
    return r.end();
  }

  @Test
  void underOnePortEachStreamWaitsItsHandover() {
    for (SimNetwork network : List.of(SimNetwork.ONE_PORT, new SimNetwork(1e15, 1))) {
      // the link binds: its ten streams, each 10 ms on the wire before its bytes flow, end 0.1 s later
      double without = tenPieces(1e6, 2e6, network);
      assertEquals(without + 10 * 0.01, tenPieces(1e6, 2e6, network.withHandover(0.01)), 1e-9, network.toString());
    }
  }

  @Test
  void whereTheOrderDoesNotMatterAWorkersNextStreamFollowsItsStreamBeforeAtOnce() {
    for (SimNetwork network : List.of(new SimNetwork(1e15, Sends.FIT), new SimNetwork(1e15, Sends.SHARE))) {
      // chunks to whoever is free: each next piece's bytes follow the one before on the connection, as the
      // runtime's port sends them once that one is all written; only the first stream waits
      double without = tenPieces(1e6, 2e6, network);
      assertEquals(without + 0.01, tenPieces(1e6, 2e6, network.withHandover(0.01)), 1e-9, network.toString());
    }
  }

  @Test
  void aHandoverIsAFiniteNumberOfSecondsZeroOrMore() {
    for (double bad : new double[] {-0.001, Double.NaN, Double.POSITIVE_INFINITY}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> SimNetwork.ONE_PORT.withHandover(bad));
      assertTrue(e.getMessage().contains("handover"), e.getMessage());
    }
  }

  @Test
  void linksSideBySideTakeTheirHandoversSideBySide() {
    SimNetwork fit = new SimNetwork(1e15, Sends.FIT);
    double without = twoWorkersTenPiecesEach(fit);
    // each link idles before each of its own ten streams, while the other one's bytes flow: 10, not 20
    assertEquals(without + 10 * 0.01, twoWorkersTenPiecesEach(fit.withHandover(0.01)), 1e-9);
  }

  @Test
  void oneLinkAtATimeIsTheOnePortPortWhateverTheImplementation() {
    for (String strategy : List.of("self", "equal", "distrib")) {
      ClosedLoop.Result onePort = run(strategy, SimNetwork.ONE_PORT);
      // the fluid port, one link at a time behind an egress no link reaches: the same model
      ClosedLoop.Result fluid = run(strategy, new SimNetwork(1e15, 1));
      assertEquals(onePort.end(), fluid.end(), 1e-6 * onePort.end(), strategy);
      assertEquals(onePort.assigns(), fluid.assigns(), strategy);
    }
  }

  @Test
  void sharingWithoutAnEgressLimitRunsEveryLinkAtItsRate() {
    ClosedLoop.Result r = run("self", new SimNetwork(Double.POSITIVE_INFINITY, Sends.SHARE));
    double sum = 0;
    for (double l : LINKS) {
      sum += l;
    }
    // no faster than all links together, and close to it: the links never wait for each other, and
    // the end waits at most for a last chunk on the slowest link (one at a time, it would take 4.6 s)
    assertTrue(r.end() >= UNITS / sum, r.end() + " s");
    double tail = 1_000_000 / LINKS[LINKS.length - 1];
    assertTrue(r.end() <= UNITS / sum + tail, r.end() + " s against " + UNITS / sum + " + " + tail);
    for (WorkerView w : r.controller().views().workers(r.end())) {
      int i = Integer.parseInt(w.id().substring(1)) - 1;
      assertEquals(LINKS[i], w.bandwidth().value(), 1e-6 * LINKS[i], w.id());
    }
  }

  @Test
  void sharingBehindAnEgressIsHeldToIt() {
    double egress = 10e6;
    ClosedLoop.Result r = run("self", new SimNetwork(egress, Sends.SHARE));
    assertTrue(r.end() >= UNITS / egress, r.end() + " s");
    double tail = 1_000_000 / LINKS[LINKS.length - 1];
    assertTrue(r.end() <= UNITS / egress + tail, r.end() + " s against " + UNITS / egress + " + " + tail);
  }

  @Test
  void fittingInTheEgressIsNeverSlowerThanOnePortAndNeverFasterThanTheEgress() {
    double egress = LINKS[0];
    for (String strategy : List.of("self", "equal", "distrib")) {
      ClosedLoop.Result onePort = run(strategy, SimNetwork.ONE_PORT);
      ClosedLoop.Result fit = run(strategy, new SimNetwork(egress, Sends.FIT));
      assertTrue(fit.end() >= UNITS / egress, strategy + ": " + fit.end());
      assertTrue(fit.end() <= onePort.end() * (1 + 1e-9), strategy + ": fit " + fit.end() + " s, one port "
          + onePort.end() + " s");
    }
  }

  /**
   * A master that measured the links before (a job across them already) plans with them at once: no
   * probe chunks, one plan, and under an egress as fast as the fastest link DISTRIB sends everything
   * over that link, as fast as the egress allows.
   */
  @Test
  void aMasterThatKnowsTheLinksPlansWithThemFromTheStart() {
    double egress = LINKS[0];
    ClosedLoop.Result r = run("distrib", new SimNetwork(egress, Sends.FIT).withLinksKnown());
    assertEquals(1, r.replans(), "one plan, no probe chunks before it");
    assertTrue(r.controller().views().job("j").reason().contains("sizes that end together"),
        r.controller().views().job("j").reason());
    assertEquals(UNITS / egress, r.end(), 0.01 * UNITS / egress);
    ClosedLoop.Result learning = run("distrib", new SimNetwork(egress, Sends.FIT));
    assertTrue(learning.replans() > 1 && learning.end() > r.end(), learning.replans() + " plans, " + learning.end()
        + " s");
  }

  /** The first plan's units by worker, and w1's link as the master knew it at the end. */
  private record Known(Map<String, Long> planned, double w1AtTheEnd) {}

  /**
   * Two workers behind links of 1 MB/s that bind, DISTRIB with every link at once: the master plans
   * with what it knows of the links when the job starts, here w1's as {@code w1Known}.
   */
  private static Known twoLinksKnownAs(double w1Known) {
    JobDef job = JobDef.of("j", "wc", 0, 10_000_000, "distrib").withMinWorkers(2).withChunking(1_000_000, 1)
        .withInput(1, x -> x);
    List<ClosedLoop.Host> two = new ArrayList<>();
    for (String id : List.of("w1", "w2")) {
      two.add(new ClosedLoop.Host(id, 1e12, 1e6, 1e12, 0, List.of(), Double.POSITIVE_INFINITY));
    }
    Map<String, Long> planned = new TreeMap<>();
    ClosedLoop.Result r = ClosedLoop.run(job, two, ClosedLoop.Setup.defaults(3600)
        .with(new SimNetwork(1e15, Sends.FIT).withLinksKnown(Map.of("w1", w1Known))), (c, now) -> {
          if (planned.isEmpty()) {
            c.views().plannedTimeline("j").timeline().lanes().forEach(l -> planned.put(l.worker(), l.units()));
          }
        });
    assertEquals(JobPhase.DONE, r.phase());
    assertEquals(10_000_000, r.committed());
    return new Known(planned, r.controller().views().worker("w1", r.end()).bandwidth().value());
  }

  /**
   * The simulated master plans with what the real one measured, while each link carries bytes at its
   * own rate: a link it knows at half its rate gets a third of the job in its first plan (sizes that end
   * together on the links it believes in), one it knows at its rate a half; the link carries the bytes
   * at its rate all the same, and the master learns it from them.
   */
  @Test
  void aMasterPlansWithWhatItKnowsOfTheLinksNotWithTheirRates() {
    Known exact = twoLinksKnownAs(1e6);
    assertEquals(5_000_000, exact.planned().get("w1"), 1, exact.toString());
    assertEquals(5_000_000, exact.planned().get("w2"), 1, exact.toString());
    Known low = twoLinksKnownAs(0.5e6);
    assertEquals(10_000_000 / 3.0, low.planned().get("w1"), 1, low.toString());
    assertEquals(20_000_000 / 3.0, low.planned().get("w2"), 1, low.toString());
    assertTrue(low.w1AtTheEnd() > 0.9e6, "w1's transfers went at its 1 MB/s: " + low);
  }

  @Test
  void aLinkEstimateIsAPositiveRateOfALinkTheMasterKnows() {
    for (double bad : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> SimNetwork.ONE_PORT.withLinksKnown(Map.of("w1", bad)));
      assertTrue(e.getMessage().contains("w1's link estimate"), e.getMessage());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new SimNetwork(1e6, 1, false, Map.of(), false, 0, Map.of("w1", 1e6)));
    assertTrue(e.getMessage().contains("links not known"), e.getMessage());
  }

  /**
   * A fresh master learns its egress as the runtime's does (the same estimator, fed the same way) and
   * plans with what it learned: behind an egress as fast as the fastest link it finds the egress binding
   * and measures it; behind one faster than every link together it floors it by what went through, the
   * links' sum. Either way it starts from nothing known (no bound at all).
   */
  @Test
  void aFreshMasterLearnsItsEgressAsItSends() {
    double sum = 0;
    for (double l : LINKS) {
      sum += l;
    }
    for (String strategy : List.of("self", "distrib")) {
      ClosedLoop.Result bound = run(strategy, new SimNetwork(LINKS[0], Sends.FIT).withEgressLearned());
      assertEquals(LINKS[0], bound.controller().port().budget(), 0.1 * LINKS[0], strategy);
      // transfers long enough (half a second and more) to floor the egress by what arrived together
      JobDef job = JobDef.of("j", "wc", 0, UNITS, strategy).withMinWorkers(LINKS.length).withChunking(4_000_000, 1)
          .withInput(1, x -> x);
      ClosedLoop.Result wide = ClosedLoop.run(job, hosts(), ClosedLoop.Setup.defaults(3600)
          .with(new SimNetwork(2 * sum, Sends.FIT).withEgressLearned()));
      assertEquals(UNITS, wide.committed());
      double learned = wide.controller().port().budget();
      assertTrue(learned >= 0.9 * sum && learned <= 2 * sum, strategy + ": " + learned + " against the links' "
          + sum);
    }
    assertEquals(Double.POSITIVE_INFINITY, new SimNetwork(LINKS[0], Sends.FIT).withEgressLearned().planRule().budget());
  }

  /**
   * A one-unit piece whose last billionth of a unit is left at 20 s of simulated time would end
   * sooner than the clock can tell (its end 1.4e-15 s away, under the clock's resolution there): the
   * port used to schedule it for now again and again, the run spun until its step limit and ended with
   * the job RUNNING and 18% of its units not done. Replicated work on links and risks that differ
   * made such a piece (seed 6 of the testbed's experiment 3 platform): every unit is now done.
   */
  @Test
  void aRemainderUnderTheClocksResolutionStillArrives() {
    double[] speed = {1.5e6, 3e6, 2e6, 1e6};
    double[] link = {9.56e6, 4.78e6, 2.39e6, 1.195e6};
    double[] kappa = {0.01, 0.04, 0.02, 0.03};
    long units = 67_108_864;
    double horizon = 10_000;
    List<ClosedLoop.Host> hosts = new ArrayList<>();
    for (int i = 0; i < speed.length; i++) {
      String id = "w" + (i + 1);
      List<double[]> outages = FailureSchedule.parse("linear:" + kappa[i], 4).outages(6, id, horizon);
      hosts.add(new ClosedLoop.Host(id, speed[i], link[i], speed[i], 0, outages, Double.POSITIVE_INFINITY)
          .withHistory(5, 5 / (2 * kappa[i])));
    }
    JobDef job = JobDef.of("j", "wc", 0, units, "replicate").withChunking(1_048_576, 0).withMinWorkers(4)
        .withReplication(true).withInput(1, x -> x);
    ClosedLoop.Result r = ClosedLoop.run(job, hosts, new ClosedLoop.Setup(dev.gleaner.common.control.ControlConfig
        .defaults(), 0.5, 0.0007, horizon).with(new SimNetwork(9.56e6, 1).withLinksKnown()));
    assertEquals(JobPhase.DONE, r.phase(), "ended at " + r.end() + " s");
    assertEquals(units, r.committed());
  }
}
