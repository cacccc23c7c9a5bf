package dev.gleaner.deploy.bench;

import java.util.Arrays;
import java.util.List;

/** Order statistics of a sample of timings: the nearest-rank percentile, no interpolation. */
public final class Samples {
  private Samples() {}

  /** The p-th percentile (0 < p <= 100) by nearest rank: the smallest value with p% of the sample at or below it. */
  public static double percentile(List<Double> values, double p) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("no values to take a percentile of");
    }
    if (!(p > 0 && p <= 100)) {
      throw new IllegalArgumentException("a percentile is in (0, 100], got " + p);
    }
    double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    int rank = (int) Math.ceil(p / 100 * v.length);
    return v[Math.max(0, rank - 1)];
  }

  /** The median by nearest rank: the 50th percentile. */
  public static double median(List<Double> values) {
    return percentile(values, 50);
  }
}
