package dev.gleaner.common.workload;

import java.util.Map;

/**
 * A kind of divisible job. Implementations must be stateless and thread-safe; per-chunk state
 * lives in the {@link ChunkComputation} that {@link #open} returns.
 */
public interface Workload {
  /** The name used in job files ({@code workload: primes}). Lower case, no spaces. */
  String name();

  /** One line for people: what it computes and its parameters. */
  String summary();

  /**
   * Validates the job parameters and gives the unit range of the whole job.
   *
   * @param params the job's parameters
   * @param input the job's input, or {@code null} when {@link #inputParam()} is {@code null}
   * @return the units {@code [start, end)} to compute
   * @throws IllegalArgumentException with a sentence naming the bad parameter
   */
  UnitRange range(Map<String, String> params, InputSource input);

  /**
   * The name of the parameter that holds the path of the input the master streams to workers
   * (units are then byte offsets into it), or {@code null} when the workload has no input.
   */
  default String inputParam() {
    return null;
  }

  /**
   * The first legal cut at or after {@code position} (for line-oriented input, the start of the
   * next line). Only called with {@code start < position < end}; may return {@code end}.
   */
  default long align(long position, InputSource input) {
    return position;
  }

  /**
   * Starts computing the units {@code [start, end)} of a job with these parameters.
   *
   * @throws IllegalArgumentException if the parameters are unusable on this computer
   */
  ChunkComputation open(Map<String, String> params, long start, long end);

  /**
   * Whether a range may be split between several threads and the results merged: true for pure
   * index-range computations, false for workloads that consume a byte stream in order.
   */
  default boolean splittable() {
    return inputParam() == null;
  }

  /** The result of no units at all (the identity of {@link #merge}). */
  byte[] empty();

  /** Merges the results of two adjacent ranges, {@code left} before {@code right}. */
  byte[] merge(byte[] left, byte[] right);

  /** The result as a person reads it. */
  String render(byte[] result);

  /**
   * Parameters and a range that take a fraction of a second, used by workers to measure their
   * speed for this workload; {@code null} if the workload cannot be calibrated without real input.
   */
  default Calibration calibration() {
    return null;
  }

  /** A small job used to measure speed. */
  record Calibration(Map<String, String> params, long start, long end) {}
}
