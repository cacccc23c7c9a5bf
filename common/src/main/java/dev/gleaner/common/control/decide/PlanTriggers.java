package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.ControlConfig;
import dev.gleaner.common.control.JobPhase;
import dev.gleaner.common.control.state.ControlState;
import dev.gleaner.common.control.state.JobLedger;
import dev.gleaner.common.control.state.Member;

/**
 * When a job is planned: first once {@code minWorkers} workers that accept its workload are up;
 * again after joins, returns, drains, losses and estimates that drifted past {@code drift}, at most
 * once per {@code replanInterval}, and while workers keep joining in a burst at most once per
 * {@link ControlConfig#BURST_REPLANS} intervals. The workers that join meanwhile get work from the
 * pool, other queues and the tails of running chunks.
 */
final class PlanTriggers {
  private final ControlState s;
  private final Planner planner;
  private final Endings endings;
  /** When the last worker joined, and since when workers have been joining in a burst (NaN: not now). */
  private double lastJoinAt = Double.NEGATIVE_INFINITY;
  private double burstSince = Double.NaN;

  PlanTriggers(ControlState s, Planner planner, Endings endings) {
    this.s = s;
    this.planner = planner;
    this.endings = endings;
  }

  /** The job is re-planned at the next chance; the first reason given is the one it says. */
  void replanLater(JobLedger j, String why) {
    if (!j.replanDue) {
      j.replanDue = true;
      j.replanWhy = why;
    }
  }

  /** Every running job the worker takes is re-planned at the next chance. */
  void replanFor(Member m, String why) {
    for (JobLedger j : s.live()) {
      if (j.active() && j.takes(m)) {
        replanLater(j, why);
      }
    }
  }

  /** A running job whose platform drifted from its plan's figures is re-planned at the next chance. */
  void drifted(JobLedger j, double now) {
    if (j.active() && !j.replanDue) {
      String drift = planner.drift(j, now);
      if (drift != null) {
        replanLater(j, drift);
      }
    }
  }

  /** A worker joined now: notes whether workers are joining in a burst (see {@link #joining}). */
  void joined(double now) {
    if (now - lastJoinAt < s.config.replanInterval()) {
      if (Double.isNaN(burstSince)) {
        burstSince = lastJoinAt;
      }
    } else {
      burstSince = Double.NaN;
    }
    lastJoinAt = now;
  }

  /** Starts the jobs whose workers are there, and re-plans those due (not during a burst of joins). */
  void due(double now) {
    boolean holdBack = joining(now);
    boolean planned = false;
    for (JobLedger j : s.live()) {
      if (j.phase == JobPhase.QUEUED) {
        start(j, now);
      } else if (j.active() && j.replanDue && now - j.lastPlanAt >= s.config.replanInterval() && !holdBack
          && !planner.probing(j, now)) {
        planner.replan(j, now);
        planned = true;
      }
    }
    if (planned && !Double.isNaN(burstSince)) {
      // a burst still going on waits as long again for its next re-plan
      burstSince = now;
    }
  }

  /**
   * Whether workers are joining in a burst (each less than {@code replanInterval} after the one
   * before): re-plans then wait until one {@code replanInterval} passes without a join, but no
   * longer than {@link ControlConfig#BURST_REPLANS} intervals since the burst began or last
   * re-planned. 10,000 workers connecting within a minute make a handful of re-plans instead of one
   * per interval (or, with the plan of 10,000 workers taking longer than the interval on a master's
   * clock, one per join).
   */
  private boolean joining(double now) {
    return !Double.isNaN(burstSince) && now - lastJoinAt < s.config.replanInterval()
        && now - burstSince < ControlConfig.BURST_REPLANS * s.config.replanInterval();
  }

  private void start(JobLedger j, double now) {
    if (j.committed.size() == j.units() && j.checksSettled()) {
      // every unit was saved before a restart: the job ends now, whoever is connected
      j.phase = JobPhase.RUNNING;
      j.message = "";
      endings.finish(j, JobPhase.DONE, "", now);
      return;
    }
    int accepting = s.accepting(j);
    int need = Math.max(1, j.def.minWorkers());
    if (accepting < need) {
      j.message = "waiting for " + need + " worker(s) that accept workload '" + j.def.workload() + "' ("
          + accepting + " connected" + (j.def.workload().equals("exec")
              ? "; a worker runs programs only when started with --allow-exec" : "") + ")";
      return;
    }
    j.phase = JobPhase.RUNNING;
    j.message = "";
    // a job a restarted master took up keeps its plan's recovery lists and homes, and plans its rest again
    j.replanWhy = j.replans < 0 ? "first plan" : "the master restarted";
    planner.replan(j, now);
  }
}
