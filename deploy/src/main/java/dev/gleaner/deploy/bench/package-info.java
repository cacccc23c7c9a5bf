/**
 * The end-to-end benches behind {@code gleaner bench}: each figure measured on real processes on
 * loopback, printed beside the physical limit measured in the same run (a plain socket copy,
 * iperf3 where installed, the data directory's fsync latency), the closed loop on real worker JVMs
 * set beside its prediction ({@link dev.gleaner.deploy.bench.ClosedLoopBench}), and the controller alone at
 * the scale of a large fleet ({@link dev.gleaner.deploy.bench.ControllerScaleBench}). Beneath it: the drivers
 * that {@code gleaner bench driver} runs for the side-by-side script ({@code driver}), the simulated swarm
 * ({@code swarm}) and the hostile bench ({@code hostile}). Nothing here is a test: tests never time anything.
 *
 * <p>Which bench is where: the JMH module {@code bench} holds the microbenchmarks; {@code gleaner bench}, whose
 * code is here, measures end to end; {@code bench/peers} runs Gleaner side by side with other systems.
 *
 * <p>It imports the launchers, the client and the formats; never a command.
 */
package dev.gleaner.deploy.bench;
