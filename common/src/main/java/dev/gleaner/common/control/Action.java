package dev.gleaner.common.control;

import dev.gleaner.common.util.RangeSet;
import java.util.Arrays;

/**
 * What the controller decided; its body carries it out. Each action says, by the kinds it is of,
 * what the body does with it: a {@link Durable} one is written to the body's store, a
 * {@link Message} goes to a worker, a {@link Notice} is for logs, meters and the job's end. Within
 * one {@link Ready}, every record is durable before any message leaves (raft's rhythm: persist,
 * then send), so a chunk is recorded before its Assign and anything later about it follows.
 */
public sealed interface Action {
  /** A record the body makes durable before it sends any message of the same {@link Ready}. */
  sealed interface Durable extends Action permits Assign, Truncate, Cancel, Withdrawn, Planned, Remember {}

  /** What goes to a worker, or to the port that streams its input: sent once the records before it are durable. */
  sealed interface Message extends Action permits Assign, Stream, Truncate, Cancel, Withdrawn, Drop {
    /** The worker it goes to. */
    String worker();
  }

  /** For people, meters and the job's end: nothing to persist before, nothing to send. */
  sealed interface Notice extends Action permits Planned, Rerouted, Finished {}

  /**
   * Send worker the units {@code [start, end)} of a job as chunk {@code chunkId}, checkpointing at
   * {@code checkpoints}. Chunk ids of a job are never reused.
   *
   * @param inputBytes bytes of input that will follow as a {@link Stream} (0 for none)
   * @param lease seconds the worker may compute its first piece without reporting (see
   *     {@link ControlConfig#leaseFloor()}); a worker that lost its master keeps computing that long
   */
  record Assign(String worker, String job, long chunkId, long start, long end, long[] checkpoints, long inputBytes,
      double lease) implements Durable, Message {
    public long units() {
      return end - start;
    }

    @Override
    public String toString() {
      return "Assign[" + worker + " " + job + "#" + chunkId + " [" + start + ", " + end + ") cp="
          + Arrays.toString(checkpoints) + (inputBytes > 0 ? " +" + inputBytes + "B" : "") + "]";
    }
  }

  /**
   * Stream the input of units {@code [start, end)} of a chunk to its worker, through the port. The
   * port serves streams by increasing {@code rank} (the worker's place in the plan's service order),
   * then in the order they were asked for, as many at once as its rule lets
   * ({@link dev.gleaner.common.port.PortRule}).
   *
   * @param linkRate the worker's link as measured now, bytes/s; NaN while it is not known
   */
  record Stream(String worker, String job, long chunkId, long start, long end, int rank, double linkRate)
      implements Message {}

  /**
   * The chunk now ends at {@code end}: the worker stops there and reports up to it (a worker already
   * past it stops at its next step); the port stops streaming its input there.
   *
   * @param split whether the units past {@code end} went to another worker (not a cancel's stop)
   * @param why for people: what happens to the units past {@code end}
   */
  record Truncate(String worker, String job, long chunkId, long end, boolean split, String why) implements Durable, Message {}

  /**
   * End the worker's session: it held a chunk far past its lease without reporting a piece. Its work
   * was taken back (as for a lost worker); the worker may connect again.
   */
  record Drop(String worker, String why) implements Message {}

  /** Stop computing the chunk; what it reports from now on is not counted. */
  record Cancel(String worker, String job, long chunkId, String why) implements Durable, Message {}

  /**
   * The chunk no longer stands: its worker was lost (or set aside, or did not come back after a
   * restart) and its unsaved units went to others. A body that remembers chunks (the master's
   * store) forgets it, so a restart does not reserve its units for that worker; no frame goes to
   * the worker, but the port stops streaming its input (a worker that vacated stays connected).
   */
  record Withdrawn(String worker, String job, long chunkId) implements Durable, Message {}

  /**
   * The job was (re-)planned.
   *
   * @param units units planned (the work not yet handed out)
   * @param expectedWork what the plan expects to save of them
   * @param replan 0 for the first plan, then 1, 2, ...
   */
  record Planned(String job, String strategy, String reason, long units, double expectedWork, int workers, int replan,
      String why) implements Durable, Notice {}

  /** A lost worker's unfinished work went to {@code to} (empty: the shared pool), following {@code origin}'s list. */
  record Rerouted(String job, String from, String origin, String to, long units, int chunks) implements Notice {}

  /**
   * The job ended.
   *
   * @param notDone units that will not be computed (at a deadline); empty when DONE
   * @param message why, for FAILED and DONE_PARTIAL
   */
  record Finished(String job, JobPhase phase, RangeSet notDone, String message) implements Notice {}

  /**
   * What the job's controller state must keep across a restart changed (its plan's recovery lists
   * and homes, its checks): a body that stores them gives them back with the job after a restart.
   *
   * @param plan the plan memory, or null if it did not change
   * @param checks the verification memory, or null if it did not change
   */
  record Remember(String job, String plan, String checks) implements Durable {}
}
