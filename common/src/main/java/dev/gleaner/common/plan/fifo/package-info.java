/**
 * The FIFO worksharing protocol of a dedicated cluster with a lifespan (paper 003): the HiHCoHP
 * cost model ({@link dev.gleaner.common.plan.fifo.HiHCoHP}) and the O(n) solution of its linear
 * system, the work each computer gets when all send and finish in one startup order within the
 * lifespan ({@link dev.gleaner.common.plan.fifo.Fifo}). Pure computation, no I/O.
 */
package dev.gleaner.common.plan.fifo;
