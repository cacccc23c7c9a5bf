/**
 * The drivers {@code gleaner bench driver WORKLOAD} runs: one side-by-side workload each (small chunks, latency,
 * many inputs, one stream, a worker killed) against a master already running with its workers, from one JVM over one
 * client connection ({@link dev.gleaner.deploy.bench.driver.DriverConnection}), each answer checked against a count
 * made here. The script under {@code bench/peers/} runs the same workloads on Work Queue and Dask beside them.
 *
 * <p>It imports the protocol and the bench's shared statistics; the command hands it its connections, so it never
 * imports the client or a command.
 */
package dev.gleaner.deploy.bench.driver;
