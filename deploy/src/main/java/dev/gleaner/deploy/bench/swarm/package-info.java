/**
 * {@code gleaner bench --swarm}: thousands of simulated workers in this process ({@link
 * dev.gleaner.deploy.bench.swarm.SwarmFleet}, each a {@link dev.gleaner.deploy.bench.swarm.SwarmWorker} from its own
 * loopback address, speaking the real protocol) log in at once to a master JVM of its own ({@link
 * dev.gleaner.deploy.bench.swarm.SwarmMaster}) and run one job of many small chunks, while a client asks for the
 * status; {@link dev.gleaner.deploy.bench.swarm.SwarmBench} runs each size and says what it measured.
 *
 * <p>It imports the protocol, the prime sieve the simulated workers compute with and the launchers (the master JVM);
 * never a command, which mixes in its options ({@link dev.gleaner.deploy.bench.swarm.SwarmOptions}) and prints what
 * comes back.
 */
package dev.gleaner.deploy.bench.swarm;
