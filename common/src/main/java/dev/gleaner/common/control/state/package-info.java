/**
 * What the controller knows, internal to it: {@link dev.gleaner.common.control.state.ControlState}
 * holds it all (workers, jobs, the estimator, the actions decided), each job's
 * {@link dev.gleaner.common.control.state.JobLedger} accounts for every unit, a
 * {@link dev.gleaner.common.control.state.Chunk} is a chunk handed out, a
 * {@link dev.gleaner.common.control.state.Member} a worker across its sessions; the indexes
 * ({@link dev.gleaner.common.control.state.Queues}, {@link dev.gleaner.common.control.state.Finishes},
 * {@link dev.gleaner.common.control.state.Surplus}, {@link dev.gleaner.common.control.state.Homes},
 * {@link dev.gleaner.common.control.state.WaitLines}) answer the hand-out's questions in O(log n).
 * Nothing here decides; the decisions ({@code control.decide}) change it, the views read it. Public
 * only so that those two packages can: not an API.
 */
package dev.gleaner.common.control.state;
