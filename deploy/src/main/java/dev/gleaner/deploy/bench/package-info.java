/**
 * The end-to-end benches behind {@code gleaner bench}: each figure measured on real processes on
 * loopback, printed beside the physical limit measured in the same run (a plain socket copy,
 * iperf3 where installed, the data directory's fsync latency), and the drivers that the
 * side-by-side script under {@code bench/peers/} runs against Work Queue and Dask. Nothing here
 * is a test: tests never time anything.
 */
package dev.gleaner.deploy.bench;
