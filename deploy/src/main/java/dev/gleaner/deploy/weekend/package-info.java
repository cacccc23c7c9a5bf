/**
 * A weekend on borrowed desktops, rehearsed on this computer: availability traces read from the Failure Trace
 * Archive's tab format ({@link dev.gleaner.deploy.weekend.TraceFile}), played in compressed time on local workers'
 * owner files ({@link dev.gleaner.deploy.weekend.OwnerReplay}, {@link dev.gleaner.deploy.weekend.OwnerFiles}), and
 * the whole weekend end to end behind {@code gleaner replay --run} ({@link dev.gleaner.deploy.weekend.ReplayRun}): a
 * master and one worker JVM per trace node, then what was saved checked against the store and the bound.
 *
 * <p>It imports the launchers, the client, the formats and what results are checked against ({@code audit});
 * never a command.
 */
package dev.gleaner.deploy.weekend;
