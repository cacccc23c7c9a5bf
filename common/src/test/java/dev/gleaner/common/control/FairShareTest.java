package dev.gleaner.common.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gleaner.common.sim.ClosedLoop;
import dev.gleaner.common.sim.ClosedLoop.Arrival;
import dev.gleaner.common.sim.ClosedLoop.Host;
import dev.gleaner.common.sim.ClosedLoop.JobEnd;
import dev.gleaner.common.sim.ClosedLoop.Shared;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The workers shared among owners and priorities, on the simulator's closed loop (the real
 * controller, simulated workers at 1,000 units/s each): a second owner's job gets its share within
 * seconds by cutting the first's chunks where their workers are, nothing computed is lost and
 * nothing is computed twice; weights divide the cluster; an owner alone gets all of it; a higher
 * priority of one owner goes first.
 */
class FairShareTest {
  private static final double SPEED = 1000;

  private static List<Host> hosts(int n) {
    List<Host> hosts = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      hosts.add(Host.of("w" + i, SPEED));
    }
    return hosts;
  }

  private static JobDef job(String id, String owner, int priority, long units) {
    return JobDef.of(id, "sim", 0, units, "auto").withTenant(new JobDef.Tenant(owner, priority));
  }

  /** Each job's workers (those computing a chunk of it) over time, sampled by the observer. */
  private static final class Holders implements ClosedLoop.Observer {
    final List<double[]> times = new ArrayList<>();
    final List<Map<String, Integer>> counts = new ArrayList<>();
    final Map<String, double[]> committedAt = new HashMap<>();
    double sampleAt;
    final double every;

    Holders(double every, String... watch) {
      this.every = every;
      for (String j : watch) {
        committedAt.put(j, new double[1]);
      }
    }

    @Override
    public void after(Controller c, double now) {
      if (now < sampleAt) {
        return;
      }
      sampleAt = now + every;
      Map<String, Integer> n = new HashMap<>();
      for (WorkerView w : c.views().workers(now)) {
        if (!w.chunks().isEmpty()) {
          n.merge(w.chunks().get(0).substring(0, w.chunks().get(0).indexOf('#')), 1, Integer::sum);
        }
      }
      times.add(new double[] {now});
      counts.add(n);
    }

    /** When the job first held at least {@code workers} workers at or after {@code from}; NaN if never. */
    double firstHolding(String job, int workers, double from) {
      for (int i = 0; i < times.size(); i++) {
        if (times.get(i)[0] >= from && counts.get(i).getOrDefault(job, 0) >= workers) {
          return times.get(i)[0];
        }
      }
      return Double.NaN;
    }
  }

  private static JobEnd end(Shared r, String id) {
    return r.jobs().stream().filter(e -> e.id().equals(id)).findFirst().orElseThrow();
  }

  /**
   * Alice's job would take the 4 workers for 100 s; Bob submits a 10 s job's worth for 2 workers at
   * 3 s, when Alice's first chunks (6.25 s each) are half done: within 5 s Bob's job holds 2 workers,
   * it ends within 1.3 times its time alone on 2 workers, and Alice's ends with every unit, none lost
   * and none computed twice: the two chunks cut kept what their workers had computed.
   */
  @Test
  void aSecondOwnersJobGetsItsShareWithinSecondsAndNothingIsLost() {
    Holders h = new Holders(0.1);
    Shared r = ClosedLoop.runAll(List.of(new Arrival(0, job("alice-1", "client:alice", 0, 400_000)),
        new Arrival(3, job("bob-1", "client:bob", 0, 20_000))), hosts(4), ClosedLoop.Setup.defaults(1000), h);
    JobEnd bob = end(r, "bob-1");
    JobEnd alice = end(r, "alice-1");
    double alone = 20_000 / (2 * SPEED);
    double held = h.firstHolding("bob-1", 2, 3);
    assertTrue(held <= 8, "Bob's job held 2 workers at " + held + " s");
    assertEquals(JobPhase.DONE, bob.phase());
    assertTrue(bob.end() - 3 <= 1.3 * alone, "Bob's job took " + (bob.end() - 3) + " s, alone on 2: " + alone);
    assertEquals(JobPhase.DONE, alice.phase());
    assertEquals(400_000, alice.committed());
    assertEquals(0, r.duplicateUnits(), "units computed twice");
    assertEquals(0, r.figures().lostUnits(), "units computed and lost");
    assertEquals(2, r.figures().truncations(), "Alice's two chunks under way cut a little ahead of their workers");
    // all of the 4 workers back on Alice's job once Bob's is done
    assertTrue(h.firstHolding("alice-1", 4, bob.end()) <= bob.end() + 1);
    // Alice lost 2 workers for about 10 s: 20 worker-seconds, 5 s of the 4
    assertTrue(alice.end() <= 100 + 5 + 2, "Alice's job ended at " + alice.end() + " s");
  }

  /**
   * With weights 3:1 and both owners busy, their jobs get units 3 to 1 (at 40 s); once the smaller
   * ends, the other has the whole cluster.
   */
  @Test
  void weightsDivideTheClusterAndAnOwnerAloneGetsAllOfIt() {
    Map<String, Double> units = new HashMap<>();
    ClosedLoop.Observer at60 = new ClosedLoop.Observer() {
      boolean done;

      @Override
      public void after(Controller c, double now) {
        if (now < 0.01) {
          c.share("operator:lab", 1, now);
          c.share("client:carol", 3, now);
        }
        if (!done && now >= 40) {
          done = true;
          units.put("carol", (double) c.views().progress("carol-1").committed());
          units.put("dave", (double) c.views().progress("dave-1").committed());
        }
      }
    };
    Shared r = ClosedLoop.runAll(List.of(new Arrival(0, job("dave-1", "operator:lab", 0, 120_000)),
        new Arrival(0, job("carol-1", "client:carol", 0, 600_000))), hosts(8), ClosedLoop.Setup.defaults(1000),
        at60);
    double ratio = units.get("carol") / units.get("dave");
    assertTrue(Math.abs(ratio / 3 - 1) <= 0.1, "carol:dave " + ratio + " (" + units + ")");
    assertEquals(0, r.duplicateUnits());
    // Dave's job ends first (a quarter of the cluster for a quarter of the units), then Carol's has all 8
    JobEnd dave = end(r, "dave-1");
    JobEnd carol = end(r, "carol-1");
    assertEquals(JobPhase.DONE, dave.phase());
    assertEquals(JobPhase.DONE, carol.phase());
    double after = (600_000 - dave.end() * 6 * SPEED) / (8 * SPEED);
    assertTrue(carol.end() <= dave.end() + 1.1 * after + 1, "Carol's job ended at " + carol.end()
        + " s, Dave's at " + dave.end() + " s: the whole cluster afterwards would take " + after + " s");
  }

  /** One owner: a priority-5 job submitted after a priority-0 job gets the workers first and ends first. */
  @Test
  void aHigherPriorityOfOneOwnerGoesFirst() {
    Holders h = new Holders(0.1);
    Shared r = ClosedLoop.runAll(List.of(new Arrival(0, job("low", "client:erin", 0, 200_000)),
        new Arrival(10, job("high", "client:erin", 5, 40_000))), hosts(4), ClosedLoop.Setup.defaults(1000), h);
    double held = h.firstHolding("high", 4, 10);
    assertTrue(held <= 15, "the priority-5 job held all 4 workers at " + held + " s");
    JobEnd high = end(r, "high");
    JobEnd low = end(r, "low");
    assertTrue(high.end() < low.end());
    assertTrue(high.end() - 10 <= 1.3 * 40_000 / (4 * SPEED), "the priority-5 job took " + (high.end() - 10) + " s");
    assertEquals(200_000, low.committed());
    assertEquals(0, r.duplicateUnits());
  }

  /** Two jobs of one owner at one priority go in the order they came, as before shares: no preemption. */
  @Test
  void oneOwnersJobsAtOnePriorityGoInTheOrderTheyCame() {
    Shared r = ClosedLoop.runAll(List.of(new Arrival(0, job("first", "client:erin", 0, 200_000)),
        new Arrival(10, job("second", "client:erin", 0, 40_000))), hosts(4), ClosedLoop.Setup.defaults(1000),
        (c, now) -> { });
    JobEnd first = end(r, "first");
    assertTrue(first.end() < end(r, "second").end());
    assertTrue(first.end() <= 1.1 * 200_000 / (4 * SPEED), "the first job, alone on 4 workers, took " + first.end());
    assertEquals(0, r.duplicateUnits());
  }

  /** The lowest priority there is, submitted later, waits: it takes nothing from the job before it. */
  @Test
  void theLowestPriorityWaitsForTheOwnersOtherJobs() {
    Shared r = ClosedLoop.runAll(List.of(new Arrival(0, job("first", "client:erin", 0, 200_000)),
        new Arrival(10, job("background", "client:erin", Integer.MIN_VALUE, 40_000))), hosts(4),
        ClosedLoop.Setup.defaults(1000), (c, now) -> { });
    JobEnd first = end(r, "first");
    assertTrue(first.end() < end(r, "background").end());
    assertTrue(first.end() <= 1.1 * 200_000 / (4 * SPEED), "the priority-0 job, alone on 4 workers, took "
        + first.end());
    assertEquals(0, r.figures().truncations(), "nothing cut for the background job");
  }
}
