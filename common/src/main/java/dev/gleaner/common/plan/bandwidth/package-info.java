/**
 * Bandwidth-centric steady state on a tree (paper 002): the rate at which a tree of computers that
 * compute and forward tasks can work, children served by increasing communication time
 * ({@link dev.gleaner.common.plan.bandwidth.SteadyState}). Pure computation, no I/O.
 */
package dev.gleaner.common.plan.bandwidth;
