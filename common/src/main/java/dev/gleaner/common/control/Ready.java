package dev.gleaner.common.control;

import java.util.ArrayList;
import java.util.List;

/**
 * One batch of the controller's decisions, in the order they were made, as raft hands out its
 * {@code Ready}: the body makes {@link #toPersist()} durable, then carries out {@link #toSend()}
 * (never before: a chunk's record is durable before its Assign leaves, and whatever the batch
 * says later of the chunk follows the Assign), and takes note of {@link #notices()}. A body with
 * nothing to persist (the simulator) carries the actions out in order.
 */
public final class Ready {
  private final List<Action> actions;
  private final List<Action.Durable> toPersist = new ArrayList<>();
  private final List<Action.Message> toSend = new ArrayList<>();
  private final List<Action.Notice> notices = new ArrayList<>();

  public Ready(List<Action> actions) {
    this.actions = List.copyOf(actions);
    for (Action a : this.actions) {
      if (a instanceof Action.Durable d) {
        toPersist.add(d);
      }
      if (a instanceof Action.Message m) {
        toSend.add(m);
      }
      if (a instanceof Action.Notice n) {
        notices.add(n);
      }
    }
  }

  /** Every action of the batch, in order. */
  public List<Action> actions() {
    return actions;
  }

  public boolean isEmpty() {
    return actions.isEmpty();
  }

  /** The records to make durable, in order, before any message of the batch is sent. */
  public List<Action.Durable> toPersist() {
    return toPersist;
  }

  /** The messages, in order, to send once the batch's records are durable. */
  public List<Action.Message> toSend() {
    return toSend;
  }

  /** What to log and count, and the jobs that ended, in order. */
  public List<Action.Notice> notices() {
    return notices;
  }

  @Override
  public String toString() {
    return actions.toString();
  }
}
