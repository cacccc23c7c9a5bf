/**
 * The commands that run a cluster and use it: the daemons ({@code gleaner master}, {@code gleaner worker}, with the
 * worker's metrics endpoint, the daemons' log file and the plugins folder), a cluster's credentials ({@code init},
 * {@code token}), and the client commands ({@code submit}, {@code status}, {@code jobs}, {@code wait}, {@code
 * cancel}, {@code result}, {@code forget}, {@code drain}), one class a command, with how they all reach the master
 * ({@link dev.gleaner.deploy.command.ClientOptions}).
 *
 * <p>Commands stand at the top: they may use every package below them (the client, the formats, the master and the
 * worker), and nothing below imports them. The commands of {@code command.cluster} and {@code command.tool} build on
 * these ({@code cluster run} submits as {@code submit} does; every command that talks to a master takes its
 * options); these know nothing of them.
 */
package dev.gleaner.deploy.command;
