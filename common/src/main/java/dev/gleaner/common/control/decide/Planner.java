package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.Action;
import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.Member;
import dev.gleaner.common.control.state.WorkQueue;
import dev.gleaner.common.estimate.Estimate;
import dev.gleaner.common.model.Platform;
import dev.gleaner.common.model.Worker;
import dev.gleaner.common.plan.Assignment;
import dev.gleaner.common.plan.ChunkPlan;
import dev.gleaner.common.plan.Plan;
import dev.gleaner.common.plan.PlanRequest;
import dev.gleaner.common.port.PortRule;
import dev.gleaner.common.plan.Strategies;
import dev.gleaner.common.plan.Timeline;
import dev.gleaner.common.recovery.RecoveryPlans;
import dev.gleaner.common.util.RangeSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The controller's planning: a job's work not handed out yet, planned with its strategy over the
 * workers of known speed with the estimator's figures, mapped back to queues of pieces; and when a
 * platform has drifted far enough from the figures the current plan used to plan again.
 */
final class Planner {
  private final ControlState s;
  private final Endings endings;

  Planner(ControlState s, Endings endings) {
    this.s = s;
    this.endings = endings;
  }

  /** Re-plans the job's work that is not handed out yet over the workers of known speed. */
  void replan(JobLedger j, double now) {
    j.replanDue = false;
    RangeSet held = j.held();
    RangeSet todo = j.queued();
    todo.removeAll(j.savedSet());
    todo.removeAll(held);
    boolean first = j.replans < 0;
    if (todo.isEmpty()) {
      j.queues.clear();
      j.pool.clear();
      j.unplanned.clear();
      j.lastPlanAt = now;
      return;
    }
    List<Member> accepting = new ArrayList<>();
    List<Worker> platform = new ArrayList<>();
    for (Member m : s.members.values()) {
      if (m.up() && j.takes(m)) {
        accepting.add(m);
        Worker w = planned(j, m, now);
        if (w != null) {
          platform.add(w);
        }
      }
    }
    if (accepting.isEmpty()) {
      return;
    }
    boolean timeOnly = timeOnly(j, platform);
    if (timeOnly) {
      platform.replaceAll(w -> new Worker(w.id(), w.speed(), w.bandwidth(), 0));
    }
    // nobody's speed is known, or the job streams input and nobody's link is: probe chunks measure them
    boolean linksUnknown = j.def.hasInput() && !platform.isEmpty() && noLinkKnown(accepting);
    boolean probe = platform.isEmpty() || linksUnknown;
    String strategy = j.def.strategy();
    // auto compares every strategy; a re-plan keeps its last pick while the workers are much the same
    boolean reuse = strategy.equals("auto") && j.autoPick != null && now - j.autoAt < ControlConfig.AUTO_REVIEW_SECONDS
        && Math.abs(platform.size() - j.autoWorkers) <= 0.2 * j.autoWorkers;
    if (reuse) {
      strategy = j.autoPick;
    }
    long chunkUnits = j.def.chunkUnits();
    if (probe) {
      // fixed chunks in the pool until a piece (or an arrival) measures someone
      platform.clear();
      for (Member m : accepting) {
        platform.add(Worker.ofSpeed(m.id, 1));
      }
      strategy = "self";
      chunkUnits = chunkUnits > 0 ? chunkUnits : Handout.probeUnits(j, accepting.size());
    }
    double left = j.def.deadline() - now;
    if (j.def.hasDeadline() && !(left > 0)) {
      return;
    }
    VirtualRanges v = new VirtualRanges(todo.ranges());
    Estimate eps = s.estimator.eps();
    Plan plan;
    try {
      PlanRequest request = new PlanRequest(0, v.total(), new Platform(platform), chunkUnits, j.def.checkpoints(),
          v.align(j.def.align(), j.def.start(), j.def.end()), eps.known() ? eps.value() : 0, j.def.risk(),
          j.def.hasDeadline() ? left : Double.NaN, j.def.replication(),
          j.def.hasInput() ? s.port.per(j.def.bytesPerUnit()) : PortRule.ONE_PORT);
      plan = Strategies.forRuntime(strategy).plan(request);
      plan.requireCovers(0, v.total());
    } catch (RuntimeException e) {
      if (first) {
        endings.finish(j, JobPhase.FAILED, "cannot plan: " + e.getMessage(), now);
      } else {
        j.message = "re-plan failed, the previous plan stands: " + e.getMessage();
      }
      return;
    }
    j.queues.clear();
    j.pool.clear();
    j.unplanned.clear();
    Map<String, Integer> rank = new HashMap<>();
    for (Assignment a : plan.order()) {
      WorkQueue q = j.queue(a.workerId());
      if (!a.chunks().isEmpty()) {
        s.waiting.wake(s.members.get(a.workerId()));
      }
      for (ChunkPlan c : a.chunks()) {
        for (ChunkPlan r : v.toReal(c)) {
          // the plan's pieces (checkpoint to checkpoint) go out one by one: a worker computes and saves
          // the same pieces, but what it has not started stays here, where a re-plan or an idle worker
          // can still take it, and its input streams piece by piece
          q.addAll(pieces(r));
          if (first) {
            j.homes.assign(r.start(), r.end(), a.workerId());
          }
        }
      }
      if (!a.chunks().isEmpty()) {
        rank.putIfAbsent(a.workerId(), rank.size());
      }
    }
    for (ChunkPlan c : plan.pool()) {
      for (ChunkPlan r : v.toReal(c)) {
        j.pool.addAll(pieces(r));
      }
    }
    j.rank = rank;
    j.replicated |= plan.replicated();
    j.replans++;
    j.lastPlanAt = now;
    j.strategy = plan.strategy();
    j.reason = probe ? "no worker's " + (linksUnknown ? "link" : "speed") + " is known yet: probe chunks of "
        + chunkUnits + " units to whoever is free, then a plan with " + j.def.strategy()
        : (reuse ? "auto's pick for these workers: " : "") + (timeOnly ? TIME_ONLY : "") + plan.reason();
    if (!probe && !reuse && j.def.strategy().equals("auto")) {
      j.autoPick = plan.strategy();
      j.autoAt = now;
      j.autoWorkers = platform.size();
    }
    j.planned = probe ? Map.of() : new Platform(platform).byId();
    j.plannedPort = s.port;
    j.timeline = probe ? Timeline.EMPTY : plan.timeline();
    j.expectedWork = j.committed.size() + j.pending.size() + held.size() + plan.expectedWork();
    j.message = "";
    if (first) {
      java.util.LinkedHashSet<String> ids = new java.util.LinkedHashSet<>();
      for (Assignment a : plan.order()) {
        ids.add(a.workerId());
      }
      for (Member m : accepting) {
        ids.add(m.id);
      }
      j.scheme = ids.size() < 2 ? null : RecoveryPlans.forWorkers(ids.size());
      // the workers behind one relay are lost together: their successors are put outside its subtree
      Map<String, String> relayOf = new HashMap<>();
      for (String id : ids) {
        Member m = s.members.get(id);
        if (m != null && !m.relay.isEmpty()) {
          relayOf.put(id, m.relay);
        }
      }
      j.members = List.copyOf(SiteSpread.order(List.copyOf(ids), relayOf, j.scheme));
    }
    s.emit(new Action.Planned(j.def.id(), j.strategy, j.reason, todo.size(), plan.expectedWork(), platform.size(),
        j.replans, j.replanWhy));
    s.workChanged = true;
  }

  /** A chunk cut at its checkpoints: one chunk per piece. */
  static List<ChunkPlan> pieces(ChunkPlan c) {
    long[] cps = c.checkpoints();
    if (cps.length == 0) {
      return List.of(c);
    }
    List<ChunkPlan> list = new ArrayList<>(cps.length + 1);
    long at = c.start();
    for (long k : cps) {
      list.add(new ChunkPlan(at, k, new long[0]));
      at = k;
    }
    list.add(new ChunkPlan(at, c.end(), new long[0]));
    return list;
  }

  /** A move of the egress, as a share, that makes a plan whose links do not all go at once be made again. */
  static final double PORT_DRIFT = 0.1;

  /**
   * Whether the master's egress, as its port learned it since the plan, now takes every one of the
   * plan's links at once where it did not (or no longer does), or, while it does not, moved by more
   * than {@link #PORT_DRIFT}: the plan's sizes and order rest on it.
   */
  private String portDrift(JobLedger j) {
    if (!j.def.hasInput() || j.planned.size() < 2 || j.plannedPort.equals(s.port)) {
      return null;
    }
    double sum = 0;
    for (Worker w : j.planned.values()) {
      sum += w.bandwidth() * j.def.bytesPerUnit();
    }
    boolean before = j.plannedPort.maxStreams() >= j.planned.size() && j.plannedPort.takes(sum);
    boolean after = s.port.maxStreams() >= j.planned.size() && s.port.takes(sum);
    if (before != after) {
      return String.format(Locale.ROOT, "the master's egress, now %.4g bytes/s, %s the links' sum, %.4g",
          s.port.budget(), after ? "takes" : "no longer takes", sum);
    }
    double was = j.plannedPort.budget();
    double now = s.port.budget();
    if (!after && Double.isFinite(was) && Double.isFinite(now) && Math.abs(now - was) > PORT_DRIFT * was) {
      // which links go together, and so the sizes, rest on it
      return String.format(Locale.ROOT, "the master's egress is now %.4g bytes/s (planned with %.4g)", now, was);
    }
    return null;
  }

  /** Whether none of these workers' links has been measured yet. */
  private boolean noLinkKnown(List<Member> members) {
    for (Member m : members) {
      if (s.estimator.bandwidth(m.id).known()) {
        return false;
      }
    }
    return true;
  }

  /** What a plan's reason begins with when {@link #timeOnly} planned it as if nobody were at risk. */
  static final String TIME_ONLY = "no deadline, so an interruption costs time, not work (what it loses is done"
      + " again): planned for the soonest end; ";

  /**
   * Whether the job is planned as if nobody were at risk: it has no deadline, so every unit is done
   * in the end and an interruption costs only the time to do again what it lost (the recovery lists
   * and the pool take it up; the hand-out still cuts a worker's pieces to its hazard). Paper 001's
   * objective, the expected work of one round whose losses stay lost, is then the wrong one: on
   * links and risks that differ it moves work off risky workers onto slower links, and the job ends
   * later (the simulator, 20 seeds each of five platforms with recoverable or permanent outages: the
   * round that ends soonest finished 6-11% sooner). Its pieces are then taken as those of a plan
   * that knew no risk (no more at once than from the pool, {@code Handout.ownCap}), each cut to its
   * worker's hazard. Every candidate of {@code auto} then expects all the work, and the first,
   * DISTRIB, is kept. The strategy {@code replicate} is the exception: the risk is its point.
   */
  private static boolean timeOnly(JobLedger j, List<Worker> platform) {
    return !j.def.hasDeadline() && !j.def.strategy().trim().toLowerCase(Locale.ROOT).equals("replicate")
        && platform.stream().anyMatch(w -> w.risk() > 0);
  }

  /**
   * The worker as the job's plan sees it: its risk is of losing work, so a worker whose owner
   * policy saves its piece as it vacates is planned against crashes only (as the hand-out bounds
   * its pieces, {@link Handout#hazardBounded}).
   */
  private Worker planned(JobLedger j, Member m, double now) {
    return s.estimator.worker(m.id, j.def.workload(), j.def.hasInput(), j.def.bytesPerUnit(), j.def.risk(),
        m.savesOnVacate, now);
  }

  /**
   * Whether the job's probe chunks are still measuring workers it could plan with: it runs on probe
   * chunks (no plan yet gives an order), and a worker holding one is not known yet (its speed, or its
   * link for a job with input). A plan made now would leave that worker out and hand out chunks sized
   * for the others; the plan that takes it in comes a re-plan interval later at best, with those chunks
   * already out (a first job across four links made its plan over two workers, then over four a second
   * later). Meanwhile the probe chunks go on to whoever is free. At most {@link
   * ControlConfig#PROBE_WAIT_SECONDS} from the probe plan.
   */
  boolean probing(JobLedger j, double now) {
    if (j.replans < 0 || !j.planned.isEmpty() || now - j.lastPlanAt >= ControlConfig.PROBE_WAIT_SECONDS) {
      return false;
    }
    for (Member m : s.members.values()) {
      if (!m.up() || !j.takes(m) || m.chunks.stream().noneMatch(c -> c.job == j)) {
        continue;
      }
      // a worker whose link is not measured yet is planned at the others' median link: not known either
      if (planned(j, m, now) == null || j.def.hasInput() && !s.estimator.bandwidth(m.id).known()) {
        return true;
      }
    }
    return false;
  }

  /** A worker's estimate moved past the drift threshold against the plan's figures, or the port's regime changed; or null. */
  String drift(JobLedger j, double now) {
    if (!j.anyQueued()) {
      return null;
    }
    String port = portDrift(j);
    if (port != null) {
      return port;
    }
    for (Member m : s.members.values()) {
      if (!m.up() || !j.takes(m)) {
        continue;
      }
      Worker w = planned(j, m, now);
      Worker p = j.planned.get(m.id);
      if (w != null && p == null) {
        return (j.def.hasInput() && s.estimator.bandwidth(m.id).known() ? "the link of worker " : "the speed of worker ")
            + m.id + " is now known";
      }
      if (w != null && moved(w.speed(), p.speed())) {
        return String.format(Locale.ROOT, "worker %s now computes %.4g units/s (planned with %.4g)", m.id, w.speed(),
            p.speed());
      }
      if (w != null && moved(w.bandwidth(), p.bandwidth())) {
        return String.format(Locale.ROOT, "worker %s now receives %.4g units/s (planned with %.4g)", m.id,
            w.bandwidth(), p.bandwidth());
      }
    }
    return null;
  }

  boolean moved(double now, double planned) {
    if (Double.isInfinite(now) || Double.isInfinite(planned)) {
      return now != planned;
    }
    return Math.abs(now - planned) > s.config.drift() * planned;
  }
}
