/**
 * The master's durable state in one SQLite file: jobs, committed pieces, chunks, workers and
 * their session history. {@link dev.gleaner.master.store.Store} runs every operation on its own
 * thread and completes a caller's future only after the transaction is committed (group commit),
 * so a piece is durable before it is acknowledged. Internal to the master.
 */
package dev.gleaner.master.store;
