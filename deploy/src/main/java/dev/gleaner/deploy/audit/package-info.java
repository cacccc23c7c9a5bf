/**
 * What a run's results are checked against, found without the runtime's own code: a master's store read from
 * outside, read-only ({@link dev.gleaner.deploy.audit.StoreAudit}: do a job's committed pieces tile its range?),
 * the number of primes in a range counted by a plain sieve of its own ({@link
 * dev.gleaner.deploy.audit.ReferenceSieve}), and published prime counts ({@link
 * dev.gleaner.deploy.audit.KnownPrimeCounts}). The chaos suite, the hostile bench, the weekend's replay and the demo
 * check their answers here.
 *
 * <p>It imports nothing of the other {@code dev.gleaner.deploy} packages: only the JDK and SQLite's JDBC driver.
 */
package dev.gleaner.deploy.audit;
