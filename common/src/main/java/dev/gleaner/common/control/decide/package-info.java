/**
 * The controller's decisions, internal to it: one class per concern (commits, losses and leases,
 * failures, verification, endings, restarts and reservations, membership, planning and what
 * triggers it, the hand-out, stealing, serving the waiting workers, memories, ticks), each working
 * on the shared {@link dev.gleaner.common.control.state.ControlState} and on the decisions below
 * it, and none naming the controller (as etcd's raft keeps {@code tracker} and {@code quorum}
 * apart from the {@code raft} that routes to them). {@link dev.gleaner.common.control.decide.Decisions}
 * wires them; the controller routes each event to one of them and pumps once. Public only so that
 * the controller can: not an API.
 */
package dev.gleaner.common.control.decide;
