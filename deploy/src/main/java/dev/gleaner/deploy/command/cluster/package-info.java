/**
 * The commands that put workers on many computers at once: {@code gleaner cluster start|status|stop|run} over ssh
 * from a hosts file ({@link dev.gleaner.deploy.command.cluster.ClusterOptions} is what they share), {@code gleaner
 * slurm} for a Slurm batch job of workers, and {@code gleaner cluster autoscale --slurm}, which keeps enough of them
 * for the queued work ({@link dev.gleaner.deploy.command.cluster.SlurmOptions} is what those two share).
 *
 * <p>Commands: they may use every package below them, the launchers above all, and the client commands of {@code
 * dev.gleaner.deploy.command} ({@code cluster run} submits and follows a job as {@code submit} does); nothing below
 * imports them, and {@code dev.gleaner.deploy.command} does not know them.
 */
package dev.gleaner.deploy.command.cluster;
