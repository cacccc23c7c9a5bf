/**
 * The workload SPI that master and worker share, and the built-in workloads.
 *
 * <p>A {@link dev.gleaner.common.workload.Workload} says how big a job is, where it may be cut,
 * how to compute a range of units ({@link dev.gleaner.common.workload.ChunkComputation}), how to
 * encode and merge results, and how to show them. User plugins implement the same interface and
 * are found through {@link java.util.ServiceLoader}.
 *
 * <p>Results of disjoint ranges are merged in unit order: {@code merge(left, right)} where
 * {@code left} covers the units just before {@code right}.
 */
package dev.gleaner.common.workload;
