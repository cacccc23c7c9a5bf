/**
 * The end-to-end benches behind {@code gleaner bench}: each figure measured on real processes on
 * loopback, printed beside the physical limit measured in the same run (a plain socket copy,
 * iperf3 where installed, the data directory's fsync latency), the closed loop on real worker JVMs
 * set beside its prediction ({@link dev.gleaner.deploy.bench.ClosedLoopBench}), and the drivers that the
 * side-by-side script under {@code bench/peers/} runs against Work Queue and Dask. Nothing here
 * is a test: tests never time anything.
 *
 * <p>It imports the launchers, the client and the formats; never a command.
 */
package dev.gleaner.deploy.bench;
