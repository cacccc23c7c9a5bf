/**
 * {@code gleaner bench --hostile} ({@link dev.gleaner.deploy.bench.hostile.HostileBench}): a master JVM and two worker
 * JVMs count primes while this process opens hostile connections of every kind to the master (the attackers are
 * {@link dev.gleaner.deploy.chaos.HostilePeer}, which the chaos harness keeps) and a real client asks for the status
 * every second; the master's memory is measured from outside, and the report says what the master answered each
 * peer and whether the real work was served.
 *
 * <p>It imports the hostile peers, the launchers, the client and what answers are checked against ({@code audit});
 * never a command: the command calls in here, and prints what comes back.
 */
package dev.gleaner.deploy.bench.hostile;
