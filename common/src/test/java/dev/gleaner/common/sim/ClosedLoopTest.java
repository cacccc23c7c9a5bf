package dev.gleaner.common.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.Controller;
import dev.gleaner.common.control.JobDef;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.JobView;
import dev.gleaner.common.control.WorkerState;
import dev.gleaner.common.control.WorkerView;
import dev.gleaner.common.util.RangeSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/**
 * The controller driven by the simulator: random joins, losses, returns and wrong calibrations,
 * checked after every event; and the failures of the old static runtime as regressions.
 */
class ClosedLoopTest {
  private static final List<String> STRATEGIES = List.of("auto", "distrib", "self", "equal", "proportional", "fifo",
      "replicate", "bandwidth-centric");

  /** Checks the invariants after every event. */
  private static final class Invariants implements ClosedLoop.Observer {
    final String job;
    final boolean idleCheck;
    /** Whether the job streams input: only then may a worker be held back from others' work. */
    final boolean input;
    int events;

    Invariants(String job, boolean idleCheck) {
      this(job, idleCheck, false);
    }

    Invariants(String job, boolean idleCheck, boolean input) {
      this.job = job;
      this.idleCheck = idleCheck;
      this.input = input;
    }

    @Override
    public void after(Controller c, double now) {
      events++;
      String problem = c.views().checkLedger(job);
      if (problem != null) {
        throw new AssertionError("t=" + now + ": " + problem);
      }
      JobView v = c.views().job(job);
      if (idleCheck && v.phase() == JobPhase.RUNNING && v.queued() > 0) {
        for (WorkerView w : c.views().workers(now)) {
          // idle is allowed only for the reason the controller gives, which only a job that streams
          // input can have: a thin link that would hold the master's one port longer than the work's
          // owner (checked apart in ControllerTest)
          if (w.state() == WorkerState.READY && w.chunks().isEmpty() && (w.idleBecause().isEmpty() || !input)) {
            throw new AssertionError("t=" + now + ": worker " + w.id() + " is idle while " + v.queued()
                + " units wait");
          }
        }
      }
    }
  }

  /** A job and the hosts that run it. */
  record Scenario(JobDef job, List<ClosedLoop.Host> hosts) {}

  /**
   * 1 to 6 hosts of speeds 50-2,050 units/s, calibrations up to 4x off or missing, some joining
   * late, each with up to 3 outages (host 0 always comes back), input or not, any strategy.
   */
  static Scenario randomScenario(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int n = r.nextInt(1, 7);
    String strategy = STRATEGIES.get(r.nextInt(STRATEGIES.size()));
    boolean input = r.nextBoolean();
    long units = r.nextLong(1, 200_000);
    List<ClosedLoop.Host> hosts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      double speed = 50 + r.nextDouble() * 2000;
      double calibrated = r.nextInt(5) == 0 ? Double.NaN : speed * Math.pow(4, r.nextDouble() * 2 - 1);
      double bandwidth = input ? 2_000 + r.nextDouble() * 200_000 : Double.POSITIVE_INFINITY;
      double join = i == 0 ? 0 : r.nextInt(3) == 0 ? r.nextDouble() * 60 : 0;
      List<double[]> outages = new ArrayList<>();
      double t = join;
      for (int k = 0; k < r.nextInt(4); k++) {
        double down = t + 1 + r.nextDouble() * 100;
        double up = i > 0 && r.nextInt(4) == 0 ? Double.POSITIVE_INFINITY : down + r.nextDouble() * 50;
        outages.add(new double[] {down, up});
        if (Double.isInfinite(up)) {
          break;
        }
        t = up;
      }
      hosts.add(new ClosedLoop.Host("h" + i, speed, bandwidth, calibrated, join, outages, Double.POSITIVE_INFINITY));
    }
    // at most about a thousand chunks: the same paths, in a fraction of the time; and none longer than
    // a quarter of the lease of a worker of unknown speed on the slowest host, since a piece computed
    // longer without a word is taken for a hung program (ControllerTest's lease tests)
    long chunk = r.nextInt(3) == 0 ? Math.max(units / 1000, r.nextLong(1, units + 1)) : 0;
    ControlConfig config = ControlConfig.defaults();
    double slowest = hosts.stream().mapToDouble(ClosedLoop.Host::speed).min().orElseThrow();
    chunk = Math.min(chunk, Math.max(1, (long) (config.leaseFloor() * config.leaseFactor() / 4 * slowest)));
    JobDef job = JobDef.of("j", "w", 0, units, strategy).withChunking(chunk, r.nextInt(6))
        .withReplication(r.nextBoolean());
    if (input) {
      job = job.withInput(1 + r.nextInt(3), x -> x);
    }
    return new Scenario(job, hosts);
  }

  @Property(tries = 120)
  void everyUnitIsCommittedExactlyOnceWhateverHappens(@ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long seed) {
    Scenario s = randomScenario(seed);
    long units = s.job().units();
    Invariants check = new Invariants("j", true, s.job().hasInput());
    ClosedLoop.Result result = ClosedLoop.run(s.job(), s.hosts(), ClosedLoop.Setup.defaults(1e7), check);
    assertEquals(JobPhase.DONE, result.phase(), "seed " + seed + ", " + s.job().strategy() + ": " + result);
    assertEquals(units, result.committed());
    JobView v = result.controller().views().job("j");
    assertEquals(units, v.shares().values().stream().mapToLong(Long::longValue).sum(), "nothing counted twice");
    assertTrue(check.events > 0);
  }

  @Property(tries = 60)
  void atADeadlineEveryUnitIsCommittedOnceOrListedNotDone(@ForAll @LongRange(min = 1, max = Long.MAX_VALUE) long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int n = r.nextInt(1, 6);
    List<ClosedLoop.Host> hosts = new ArrayList<>();
    double total = 0;
    for (int i = 0; i < n; i++) {
      double speed = 10 + r.nextDouble() * 100;
      total += speed;
      double down = r.nextDouble() * 200;
      List<double[]> outages = r.nextBoolean() ? List.of(new double[] {down, down + r.nextDouble() * 50}) : List.of();
      hosts.add(new ClosedLoop.Host("h" + i, speed, Double.POSITIVE_INFINITY, speed, 0, outages,
          Double.POSITIVE_INFINITY));
    }
    double deadline = 20 + r.nextDouble() * 200;
    long units = (long) (total * deadline * (0.5 + r.nextDouble()));
    String strategy = STRATEGIES.get(r.nextInt(STRATEGIES.size()));
    JobDef job = JobDef.of("j", "w", 0, Math.max(1, units), strategy).withDeadline(deadline);
    ClosedLoop.Result result = ClosedLoop.run(job, hosts, ClosedLoop.Setup.defaults(1e6), new Invariants("j", false));
    JobView v = result.controller().views().job("j");
    assertTrue(v.phase() == JobPhase.DONE || v.phase() == JobPhase.DONE_PARTIAL, v.toString());
    RangeSet all = result.controller().views().committedUnits("j");
    assertEquals(0, all.overlap(0, 0));
    for (long[] nd : v.notDone().ranges()) {
      assertEquals(0, all.overlap(nd[0], nd[1]), "not-done ranges are not committed");
    }
    all.addAll(v.notDone());
    assertEquals(RangeSet.of(0, Math.max(1, units)), all, "committed and not done tile the job");
    // the last pieces under way at the deadline are waited for, a few seconds at most
    assertTrue(result.end() <= deadline + dev.gleaner.common.control.ControlConfig.DEADLINE_GRACE + 1,
        "ended at the deadline: " + result.end());
  }

  @Test
  void aLateJoinerShortensTheJobInsteadOfIdling() {
    // regression: static plans left the pool empty, and a worker joining late sat idle
    List<ClosedLoop.Host> three = List.of(ClosedLoop.Host.of("a", 100), ClosedLoop.Host.of("b", 100),
        ClosedLoop.Host.of("c", 100));
    List<ClosedLoop.Host> four = new ArrayList<>(three);
    four.add(new ClosedLoop.Host("late", 100, Double.POSITIVE_INFINITY, 100, 100, List.of(), Double.POSITIVE_INFINITY));
    JobDef job = JobDef.of("j", "w", 0, 300_000, "distrib").withMinWorkers(3);
    ClosedLoop.Result without = ClosedLoop.run(job, three, ClosedLoop.Setup.defaults(1e6));
    ClosedLoop.Result with = ClosedLoop.run(job, four, ClosedLoop.Setup.defaults(1e6),
        new Invariants("j", true));
    assertEquals(1000, without.end(), 1);
    assertTrue(with.controller().views().job("j").shares().getOrDefault("late", 0L) > 50_000,
        "the late joiner takes a real share: " + with.controller().views().job("j").shares());
    assertTrue(with.end() < 800, "and the job ends sooner: " + with.end());
  }

  @Test
  void aBlipDoesNotPileTheLostShareOnOneSuccessor() {
    // regression: a 10-second blip moved a worker's whole share to the back of one successor's queue
    List<ClosedLoop.Host> hosts = new ArrayList<>();
    for (String id : List.of("w0", "w1", "w2", "w3")) {
      List<double[]> outages = id.equals("w0") ? List.<double[]>of(new double[] {50, 60}) : List.of();
      hosts.add(new ClosedLoop.Host(id, 100, Double.POSITIVE_INFINITY, 100, 0, outages, Double.POSITIVE_INFINITY));
    }
    JobDef job = JobDef.of("j", "w", 0, 400_000, "equal").withMinWorkers(4).withChunking(0, 9);
    ClosedLoop.Result r = ClosedLoop.run(job, hosts, ClosedLoop.Setup.defaults(1e6), new Invariants("j", true));
    assertEquals(JobPhase.DONE, r.phase());
    Map<String, Long> shares = r.controller().views().job("j").shares();
    long max = shares.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    assertTrue(max < 130_000, "nobody carries the lost share alone: " + shares);
    assertTrue(shares.get("w0") > 60_000, "the returned worker takes work again: " + shares);
    // the lost work (about 10 s of w0 plus what it had not checkpointed) costs a few seconds, not 500
    assertTrue(r.end() < 1000 + 30, "ended at " + r.end());
  }

  @Test
  void replicateRunsForRealAndCountsEveryUnitOnce() {
    List<ClosedLoop.Host> hosts = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      double down = 300 + 200 * i;
      hosts.add(new ClosedLoop.Host("h" + i, 100, Double.POSITIVE_INFINITY, 100, 0,
          i % 2 == 0 ? List.<double[]>of(new double[] {down, Double.POSITIVE_INFINITY}) : List.of(),
          Double.POSITIVE_INFINITY).withHistory(4, 4000));
    }
    // a history of interruptions makes every worker risky, so the plan replicates
    JobDef job = JobDef.of("j", "w", 0, 200_000, "replicate").withMinWorkers(6).withReplication(true);
    ClosedLoop.Result r = ClosedLoop.run(job, hosts, ClosedLoop.Setup.defaults(1e6), new Invariants("j", false));
    assertEquals(JobPhase.DONE, r.phase(), r.toString());
    assertEquals("replicate", r.controller().views().job("j").strategy(), r.controller().views().job("j").reason());
    assertTrue(r.cancels() > 0, "chunks whose units another copy saved first are cancelled");
    assertEquals(200_000, r.committed());
    assertNull(r.controller().views().checkLedger("j"));
  }
}
