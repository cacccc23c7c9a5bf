/**
 * The master's durable state in one SQLite file: jobs, chunks, committed pieces, workers and their
 * session history, dissenting checks and revoked tokens. {@link dev.gleaner.master.store.Store} is
 * what the master holds: it opens the file under the data folder's lock ({@code DataDirLock}), lets
 * the control loop attach, and passes its operations to the commit engine ({@code CommitEngine}),
 * which runs every write of one pass of the loop in one transaction and completes their futures only
 * after that transaction commits (group commit): a piece is durable before it is acknowledged, a
 * chunk's record before its Assign, and a pass costs one fsync. {@code Schema} creates the tables and
 * runs the migrations of older stores at open; {@code WalCheckpointer} copies the WAL into the
 * database on a thread of its own; {@code StoreReader} runs large reads of what is committed on
 * another; {@code ProblemLog} folds repeated failure lines. The operations are built by one class
 * per table ({@link dev.gleaner.master.store.JobTable}, {@link dev.gleaner.master.store.ChunkTable},
 * {@link dev.gleaner.master.store.PieceTable}, {@link dev.gleaner.master.store.WorkerTable},
 * {@link dev.gleaner.master.store.DissentTable}, {@link dev.gleaner.master.store.RevocationTable})
 * with the SQL binder of {@link dev.gleaner.master.store.Store.Tx}. Internal to the master.
 */
package dev.gleaner.master.store;
