/**
 * The master's durable state in one SQLite file: jobs, committed pieces, chunks, workers and
 * their session history. {@link dev.gleaner.master.store.Store} is written by the control loop's
 * thread in passes: every write of one pass commits in one transaction before the futures of its
 * writes complete (group commit), so a piece is durable before it is acknowledged and a chunk's
 * record before its Assign. Internal to the master.
 */
package dev.gleaner.master.store;
