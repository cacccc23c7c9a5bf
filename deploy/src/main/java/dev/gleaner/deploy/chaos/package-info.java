/**
 * Faults and attacks against real processes on loopback. The chaos suite behind {@code gleaner chaos}: seeded runs
 * ({@link dev.gleaner.deploy.chaos.ChaosRun}) of a master JVM and worker JVMs each behind a TCP proxy that can cut or
 * stall it ({@link dev.gleaner.deploy.chaos.ChaosCluster}, {@link dev.gleaner.deploy.chaos.ChaosProxy}), faults drawn
 * from the seed, jobs whose answers are known, and the report. The hostile-peer bench behind {@code gleaner bench
 * --hostile} ({@link dev.gleaner.deploy.chaos.HostileBench}): hostile connections of every kind against a master,
 * with the memory of its JVM measured from outside.
 *
 * <p>It imports the launchers (JVMs started, signals by pid), the client, the formats and what results are checked
 * against ({@code audit}); never a command: the commands call in here, and print what comes back.
 */
package dev.gleaner.deploy.chaos;
