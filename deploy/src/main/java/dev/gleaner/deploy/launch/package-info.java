/**
 * Where workers run, and how they are started, looked at and ended: worker JVMs on this machine ({@link
 * dev.gleaner.deploy.launch.WorkerProcesses}, and what the commands that run a whole cluster here share, among it the
 * tools' one wait for workers to join, {@link dev.gleaner.deploy.launch.WorkersJoined}, and the tools' one way to
 * start a master JVM, {@link dev.gleaner.deploy.launch.MasterProcess}, which learns its port from the master's port
 * file, {@link dev.gleaner.deploy.launch.PortFile}), worker
 * daemons on other computers over the system's ssh ({@link dev.gleaner.deploy.launch.RemoteWorkers}), Slurm's
 * commands and the batch script of a Slurm worker job, the autoscaler's decision (a pure function), and signals sent
 * to one process by its pid. {@link dev.gleaner.deploy.launch.EntryPoint} names the {@code gleaner} command for what
 * starts it again.
 *
 * <p>It imports the formats (the hosts file), the protocol (credentials, the master's status) and what a worker tells
 * of itself ({@link dev.gleaner.worker.WorkerEvents}, written and read back as a worker JVM's events file, {@link
 * dev.gleaner.deploy.launch.WorkerEventsFile}); never a command, the client, nor the entry point itself, which stands
 * above every package and is named, not imported.
 */
package dev.gleaner.deploy.launch;
