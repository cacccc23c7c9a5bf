/**
 * A real network on one machine, for the tests and benches that need links that differ: network namespaces joined
 * by veth pairs to a bridge, with rates shaped by tbf ({@link dev.gleaner.deploy.testbed.Testbed}), made and removed
 * with iproute2's {@code ip} and {@code tc}, and the rates people write ({@link dev.gleaner.deploy.testbed.Rate}).
 *
 * <p>It imports nothing of Gleaner: what runs on the testbed (a master, workers, a driver) is started by the bench
 * or test through {@link dev.gleaner.deploy.testbed.Testbed#start} or a command wrapped by
 * {@link dev.gleaner.deploy.testbed.Testbed#inside}.
 */
package dev.gleaner.deploy.testbed;
