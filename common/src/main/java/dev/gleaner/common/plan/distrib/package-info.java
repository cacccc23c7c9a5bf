/**
 * Single-round worksharing under linear interruption risk (paper 001): the expectation of an
 * allocation ({@link dev.gleaner.common.plan.distrib.SingleRound}), the paper's closed forms for
 * workers that differ in one way ({@link dev.gleaner.common.plan.distrib.ClosedForms}), and the
 * general solver for workers that differ in speed, bandwidth and risk at once
 * ({@link dev.gleaner.common.plan.distrib.DistribSolver}). Pure computation, no I/O.
 */
package dev.gleaner.common.plan.distrib;
