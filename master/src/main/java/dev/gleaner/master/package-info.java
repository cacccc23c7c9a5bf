/**
 * The master daemon. {@link dev.gleaner.master.MasterServer} listens on one TCP port for workers and
 * clients; {@link dev.gleaner.master.ConnectionHandler} runs the handshake and routes messages;
 * {@link dev.gleaner.master.ChunkDispatcher} executes plans, streams input through
 * {@link dev.gleaner.master.SendPort} and reroutes a failed worker's unfinished units;
 * {@link dev.gleaner.master.Store} keeps jobs, chunks, committed pieces and worker history in
 * SQLite, committing every piece before it is acknowledged.
 *
 * <p>Chunk lifecycle:
 * <pre>
 *   QUEUED --assign--> RUNNING --final piece committed--> DONE
 *      ^                  |
 *      +--worker down-----+   (the un-checkpointed rest becomes a new QUEUED chunk)
 * </pre>
 */
package dev.gleaner.master;
