package dev.gleaner.common.control.decide;

import dev.gleaner.common.control.state.ControlState;

/**
 * The controller's decisions, one per concern, wired once over one {@link ControlState}: each
 * takes the state and the decisions below it, and none knows the controller that routes events to
 * it. From the bottom: rerouting and endings; the planner and what triggers it; verification;
 * failures; the hand-out, stealing and the serving that asks them; losses and leases; restarts and
 * reservations; membership; commits; memories; ticks.
 */
public final class Decisions {
  public final Endings endings;
  public final Verification verification;
  public final Failures failures;
  public final Losses losses;
  public final Restarts restarts;
  public final Membership membership;
  public final Commits commits;
  public final Memories memories;
  public final Ticks ticks;
  private final PlanTriggers triggers;
  private final Serving serving;

  public Decisions(ControlState s) {
    Rerouting rerouting = new Rerouting(s);
    endings = new Endings(s);
    triggers = new PlanTriggers(s, new Planner(s, endings), endings);
    verification = new Verification(s, endings);
    failures = new Failures(s, rerouting, endings, verification, triggers);
    Handout handout = new Handout(s);
    serving = new Serving(s, handout, new Stealing(s, handout));
    losses = new Losses(s, rerouting, endings, failures, triggers);
    restarts = new Restarts(s, rerouting, triggers);
    membership = new Membership(s, losses, restarts, triggers);
    commits = new Commits(s, rerouting, endings, verification, triggers);
    memories = new Memories(s);
    ticks = new Ticks(s, memories, restarts, losses, verification, endings, triggers);
  }

  /**
   * What follows every event, once: the jobs whose workers are there start, the plans that are due
   * are made, and the waiting workers are served.
   */
  public void pump(double now) {
    triggers.due(now);
    serving.serve(now);
  }
}
