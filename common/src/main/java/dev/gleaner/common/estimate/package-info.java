/**
 * Estimates of the platform from what really happens: each worker's speed per workload from its
 * committed pieces (a calibration is only a prior), its bandwidth from real transfers, its
 * interruption risk from its history (with a fleet-wide prior for newcomers and what the worker
 * declares about its own end), and the per-chunk overhead eps from checkpoint round trips. Every
 * figure carries the number of observations it rests on. Pure: observations come in as numbers,
 * time from the caller.
 */
package dev.gleaner.common.estimate;
