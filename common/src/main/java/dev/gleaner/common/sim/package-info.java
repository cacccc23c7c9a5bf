/**
 * The simulator: the master's own controller driven on a discrete-event clock (one-port links,
 * each worker's speed, interruptions drawn from a risk model or read from an availability trace),
 * and paper 000's heuristics and static-plan Monte Carlo beside it. {@link dev.gleaner.common.sim.ClosedLoop}
 * is the body around the controller; its clock, port, workers and figures are package-private
 * classes named {@code Sim*}.
 */
package dev.gleaner.common.sim;
