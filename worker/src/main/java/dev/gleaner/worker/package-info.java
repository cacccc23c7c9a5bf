/**
 * The worker daemon. {@link dev.gleaner.worker.WorkerDaemon} starts, drains and stops it,
 * {@link dev.gleaner.worker.MasterDialer} connects to the master (reconnecting with capped, jittered
 * backoff), {@link dev.gleaner.worker.MasterLink} runs the handshake, heartbeats and routes
 * messages, and {@link dev.gleaner.worker.ChunkRunner} computes assigned chunks on the configured
 * cores, reporting a piece at every checkpoint. On SIGTERM the daemon drains: it reports what it
 * has computed, waits for the master's acknowledgements, says goodbye. With an owner policy
 * ({@code dev.gleaner.worker.owner}) it vacates when its owner comes back
 * ({@link dev.gleaner.worker.OwnerMoves}): it reports what it has computed, tells the master it
 * takes no work, and stays connected until the owner has left again.
 */
package dev.gleaner.worker;
