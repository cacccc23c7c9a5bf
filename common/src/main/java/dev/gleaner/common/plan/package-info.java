/**
 * Plans: who computes which units of a job, in which order, cut into which chunks with which
 * checkpoints. A {@link dev.gleaner.common.plan.PlanStrategy} turns a job's unit range and a
 * {@link dev.gleaner.common.model.Platform} into a {@link dev.gleaner.common.plan.Plan}; the master's
 * dispatcher executes any plan the same way, so strategies plug in without touching it.
 */
package dev.gleaner.common.plan;
