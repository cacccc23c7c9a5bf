/**
 * Faults and attacks against real processes on loopback. The chaos suite behind {@code gleaner chaos}: seeded runs
 * ({@link dev.gleaner.deploy.chaos.ChaosRun}) of a master JVM and worker JVMs each behind a TCP proxy that can cut or
 * stall it ({@link dev.gleaner.deploy.chaos.ChaosCluster}, {@link dev.gleaner.deploy.chaos.ChaosProxy}), faults drawn
 * from the seed, jobs whose answers are known, the audit of what the master stored and acknowledged, and the report.
 * The hostile peers ({@link dev.gleaner.deploy.chaos.HostilePeer}): connections of every kind that a master must
 * refuse, which the hostile bench ({@code gleaner bench --hostile}, in {@code bench.hostile}) runs against one.
 *
 * <p>It imports the launchers (JVMs started, signals by pid), the client, the formats and what results are checked
 * against ({@code audit}); never a command: the commands call in here, and print what comes back.
 */
package dev.gleaner.deploy.chaos;
