/**
 * The control loop: the master's body around the pure {@link dev.gleaner.common.control.Controller},
 * run on one thread. {@link dev.gleaner.master.loop.ControlLoop} is its one door: its public
 * methods run on the caller's thread (a connection's, a timer's) and hand the event to the
 * {@link dev.gleaner.master.loop.ControlThread}, which runs every event in passes and commits each
 * pass in one store transaction before the messages that depend on it leave. The handlers behind
 * the door run on that thread only, over the master's {@link dev.gleaner.master.loop.Books}:
 * sessions, pieces made durable then acknowledged, the controller's decisions carried out, jobs
 * ended with one merge ({@link dev.gleaner.master.loop.ResultMerge}), and what is asked of a job.
 * {@link dev.gleaner.master.loop.JobService} validates, stores and resumes jobs;
 * {@link dev.gleaner.master.loop.WorkerLink} is a worker's session as the loop acts on it (the
 * network builds the frames). Internal to the master.
 */
package dev.gleaner.master.loop;
