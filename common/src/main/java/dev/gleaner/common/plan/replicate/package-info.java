/**
 * Replicated work under linear risk (paper 000): two identical computers sharing a job
 * ({@link dev.gleaner.common.plan.replicate.TwoComputers}, Algorithm 1), a coterie of g computers
 * processing one slice's chunks by an execution chart
 * ({@link dev.gleaner.common.plan.replicate.GroupSchedule}, Section 5.2), and how many chunks such a
 * schedule takes with a per-chunk cost ({@link dev.gleaner.common.plan.replicate.Replication},
 * Section 5.3). Pure computation, no I/O.
 */
package dev.gleaner.common.plan.replicate;
