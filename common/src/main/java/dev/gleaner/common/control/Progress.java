package dev.gleaner.common.control;

/**
 * A job's progress, read in constant time (a {@link JobView} gathers its queues and chunks): for a
 * body that looks after every event, as the simulator does.
 *
 * @param handedOut chunks handed out so far (assignments, split tails, replicas, moved chunks)
 * @param replans plans made after the first
 */
public record Progress(JobPhase phase, long units, long committed, long handedOut, int replans) {}
