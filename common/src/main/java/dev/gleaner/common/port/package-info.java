/**
 * The master's port for chunk input, as a model shared by the runtime and the simulator: when the
 * next stream may start ({@link dev.gleaner.common.port.PortRule}: in the plan's order, as many at
 * once as fit in the master's egress, or one at a time), and what the egress is, learned from
 * transfers that overlap ({@link dev.gleaner.common.port.EgressEstimator}).
 */
package dev.gleaner.common.port;
