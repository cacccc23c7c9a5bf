/**
 * The controller: every runtime decision of a job, made in one pure, event-driven component.
 *
 * <p>Events come in as method calls on {@link dev.gleaner.common.control.Controller} (a job added,
 * a worker joined, was lost, is draining, input streamed, a piece received and then made durable,
 * a tick of the clock); decisions come out as {@link dev.gleaner.common.control.Action}s, taken as
 * one {@link dev.gleaner.common.control.Ready} batch that says what the body makes durable before
 * it sends anything (assign a range with its checkpoints, stream its input, truncate or cancel a
 * chunk, a plan made, work rerouted, a job finished). Time is a number of seconds passed in with
 * every event; there is no clock, socket, thread or disk here. The master runs it on one thread
 * behind Netty and SQLite; {@code common.sim} runs the very same class on a simulated clock, so
 * what the simulator predicts is what the master does.
 *
 * <p>Its layout follows etcd's raft: this package holds the façade that routes each event
 * ({@link dev.gleaner.common.control.Controller}), the read-only views
 * ({@link dev.gleaner.common.control.ControllerViews}, raft's {@code status.go}) and the vocabulary
 * the bodies share (jobs, workers, actions, verdicts, phases, settings). {@code control.decide}
 * holds one decision per concern, none naming the controller; {@code control.state} holds what they
 * decide on. Its decisions are look-ups in indexes kept up to date as events change the state
 * (each job's queues by backlog, running chunks by when their holders finish them, holders by
 * chunks held, workers up by workload), so one costs O(log n) in the number of workers, and a pump
 * looks at a bounded number of waiting workers however many wait.
 *
 * <p>The controller owns each job's ledger: every unit is committed (durable), pending (received,
 * being made durable), held (in a chunk some worker is computing), queued (planned for a worker or in
 * the shared pool), or, once a deadline has passed, not done.
 */
package dev.gleaner.common.control;
