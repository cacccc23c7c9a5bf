package dev.gleaner.common.plan;

import java.util.function.LongUnaryOperator;

/**
 * Where one computer should checkpoint under linear risk (paper 000, Section 3). Time is measured
 * in the computer's own computing seconds; {@code x} is how long it may still be up (1/kappa
 * minus the time it starts), and {@code eps} the cost of each chunk (starting it or saving it).
 *
 * <p>For chunks c_1..c_m the expected work saved, given the computer is up when it starts, is
 * sum_j c_j (1 - (c_1 + ... + c_j + j eps) / x), clipped at 0 per chunk.
 */
public final class Checkpointing {
  /** A cap on the number of chunks when nothing else bounds it. */
  public static final int MAX_CHUNKS = 10_000;

  private Checkpointing() {}

  /**
   * Chunk sizes and their expectation.
   *
   * @param sizes chunk sizes in order (their sum is what is deployed)
   * @param expected expected work saved
   */
  public record Chunks(double[] sizes, double expected) {
    public double total() {
      double sum = 0;
      for (double s : sizes) {
        sum += s;
      }
      return sum;
    }
  }

  /**
   * Theorem 2 (free initiation): at most n chunks for w units of work; all of size Z/n with
   * Z = min(w, n x / (n + 1)), expecting Z - (n + 1) Z^2 / (2 n x).
   */
  public static Chunks theorem2(double w, double x, int n) {
    double z = Math.min(w, n * x / (n + 1));
    double[] sizes = new double[n];
    java.util.Arrays.fill(sizes, z / n);
    return new Chunks(sizes, z - (n + 1) * z * z / (2 * n * x));
  }

  /**
   * Theorem 3 (charged initiation, eps > 0): at most n chunks for w units. With m chunks the best
   * sizes decrease by eps from c_1 = Z/m + (m - 1) eps / 2, where Z = min(w, m x/(m + 1) - m eps / 2),
   * and the expectation is Z - (m + 1) Z^2 / (2 m x) - (m + 1) eps Z / (2 x) + (m - 1) m (m + 1)
   * eps^2 / (24 x). The number of chunks is m = min(n, n1, n2): n1, the most chunks w can fill
   * (m (m - 1) eps / 2 < w), and n2, the most a lifetime x can use (m (m + 1) eps / 2 < x).
   *
   * @throws IllegalArgumentException if eps is not positive or x <= eps (no chunk can pay)
   */
  public static Chunks theorem3(double w, double x, double eps, int n) {
    if (!(eps > 0) || !(x > eps)) {
      throw new IllegalArgumentException("Theorem 3 needs 0 < eps < x, got eps " + eps + ", x " + x);
    }
    int m = Math.min(n, Math.min(mostChunks(w, eps, -1), mostChunks(x, eps, 1)));
    return charged(w, x, eps, m);
  }

  /** The largest m >= 1 with m (m + sign) eps / 2 < v. */
  static int mostChunks(double v, double eps, int sign) {
    int m = (int) Math.max(1, Math.floor(Math.sqrt(2 * v / eps + 0.25) - sign * 0.5));
    while (m > 1 && m * (m + (double) sign) * eps / 2 >= v) {
      m--;
    }
    while ((m + 1) * (m + 1.0 + sign) * eps / 2 < v && m < MAX_CHUNKS) {
      m++;
    }
    return m;
  }

  /** The best m-chunk schedule of Theorem 3's shape (sizes decreasing by eps). */
  static Chunks charged(double w, double x, double eps, int m) {
    double z = Math.max(0, Math.min(w, m * x / (m + 1) - m * eps / 2));
    double[] sizes = new double[m];
    for (int i = 0; i < m; i++) {
      sizes[i] = z / m + (m - 1) * eps / 2 - i * eps;
    }
    double e = z - (m + 1) * z * z / (2 * m * x) - (m + 1) * eps * z / (2 * x)
        + (m - 1) * (double) m * (m + 1) * eps * eps / (24 * x);
    return new Chunks(sizes, e);
  }

  /** The expectation of chunks computed in order, each paying eps, on a computer up for at most x. */
  public static double expected(double[] sizes, double x, double eps) {
    double done = 0;
    double e = 0;
    for (double c : sizes) {
      done += c + eps;
      e += c * Math.max(0, 1 - done / x);
    }
    return e;
  }

  /**
   * Checkpoints for an allocation the computer must compute in full (its data is already there):
   * the best of Theorem 2 or 3's schedules over Z <= w for every chunk count up to {@code maxChunks},
   * with what is left past Z computed last as one more chunk. Risk-free computers (x infinite) and
   * allocations that cannot pay one chunk's overhead get a single chunk.
   *
   * @return chunk sizes summing to w
   */
  public static Chunks forAllocation(double w, double x, double eps, int maxChunks) {
    if (!(w > 0) || Double.isInfinite(x) || !(x > eps)) {
      return new Chunks(new double[] {Math.max(0, w)}, expected(new double[] {Math.max(0, w)}, x, eps));
    }
    int limit = eps > 0 ? Math.min(maxChunks, mostChunks(x, eps, 1)) : maxChunks;
    // each count m is weighed in O(1) (see scheduleValue), the best one laid out once: a platform
    // of 10,000 workers with eps known may allow thousands of chunks each
    int bestM = -1;
    double bestValue = 0;
    for (int m = 1; m <= limit; m++) {
      double v = scheduleValue(w, x, eps, m);
      if (!Double.isNaN(v) && (bestM < 0 || v > bestValue)) {
        bestM = m;
        bestValue = v;
      }
    }
    if (bestM < 0) {
      return new Chunks(new double[] {w}, expected(new double[] {w}, x, eps));
    }
    Chunks c = eps > 0 ? charged(w, x, eps, bestM) : theorem2(w, x, bestM);
    double[] sizes = withTail(c.sizes(), w);
    return new Chunks(sizes, expected(sizes, x, eps));
  }

  /**
   * The expectation of Theorem 2's (eps = 0) or 3's m-chunk schedule for Z of the w units, then
   * what is left as one more chunk, in closed form; NaN when some chunk would not be positive.
   * With sizes {@code c_i = a - i eps} ({@code a = Z/m + (m - 1) eps / 2}) the work done after
   * chunk i is {@code (i + 1)(a + eps) - eps i (i + 1) / 2}, so the sum of {@code c_i} times it
   * is a polynomial in m. No chunk of the m ends past x for the m this is asked for
   * ({@code m (m + 1) eps / 2 < x}), so only the last chunk's factor is clipped at 0.
   */
  static double scheduleValue(double w, double x, double eps, int m) {
    double z = eps > 0 ? Math.max(0, Math.min(w, m * x / (m + 1) - m * eps / 2)) : Math.min(w, m * x / (m + 1));
    double a = eps > 0 ? z / m + (m - 1) * eps / 2 : z / m;
    double last = eps > 0 ? a - (m - 1) * eps : a;
    if (!(last > 0)) {
      return Double.NaN;
    }
    double b = a + eps;
    double mm = m;
    double s1 = mm * (mm + 1) / 2;
    double s2 = (mm - 1) * mm * (mm + 1) / 3;
    double s3 = Math.pow((mm - 1) * mm / 2, 2) + (mm - 1) * mm * (2 * mm - 1) / 6;
    double weighted = a * b * s1 - a * eps / 2 * s2 - eps * b * s2 + eps * eps / 2 * s3;
    double e = z - weighted / x;
    double tail = w - z;
    if (tail > 1e-9 * w) {
      e += tail * Math.max(0, 1 - (w + (m + 1) * eps) / x);
    }
    return e;
  }

  /** Positive sizes, with the remainder to w appended; null if some size is not positive. */
  private static double[] withTail(double[] sizes, double w) {
    double sum = 0;
    for (double s : sizes) {
      if (!(s > 0)) {
        return null;
      }
      sum += s;
    }
    if (w - sum > 1e-9 * w) {
      double[] out = java.util.Arrays.copyOf(sizes, sizes.length + 1);
      out[sizes.length] = w - sum;
      return out;
    }
    return sizes;
  }

  /**
   * The checkpoint interval under exponential risk: with interruptions at {@code rate} per second
   * and each checkpoint costing {@code eps} seconds, the expected time lost per interruption (the
   * work since the last checkpoint, plus the checkpoints paid) is least with a checkpoint every
   * sqrt(2 eps / rate) seconds of work (Young, "A first order approximation to the optimum
   * checkpoint interval", CACM 1974; Daly, FGCS 2006, to first order). Paper 000's Theorem 3 places
   * checkpoints for linear risk only up to the computer's last possible moment 1/kappa; this is the
   * bound past it, and for any chunk a plan did not lay out.
   *
   * @return seconds of work between two checkpoints; infinite when there is no risk or no cost known
   */
  public static double youngDaly(double eps, double rate) {
    if (!(rate > 0) || !(eps > 0)) {
      return Double.POSITIVE_INFINITY;
    }
    return Math.sqrt(2 * eps / rate);
  }

  /**
   * The chunk with checkpoints added so that no piece is over {@code maxUnits}: each piece longer
   * is cut into equal parts, each cut moved to a legal one ({@code align}, which may make a part a
   * little longer). Its own checkpoints stay. No added part is under {@code units / maxPieces}, so
   * a tiny bound cannot cut a chunk into more than about {@code maxPieces} pieces.
   */
  public static ChunkPlan bounded(ChunkPlan c, double maxUnits, LongUnaryOperator align, int maxPieces) {
    long units = c.end() - c.start();
    if (!(maxUnits < units)) {
      return c;
    }
    double limit = Math.max(Math.max(1, maxUnits), (double) units / Math.max(1, maxPieces));
    long[] own = c.checkpoints();
    long[] out = new long[0];
    int n = 0;
    long from = c.start();
    for (int i = 0; i <= own.length; i++) {
      long to = i < own.length ? own[i] : c.end();
      long gap = to - from;
      int parts = (int) Math.min(Integer.MAX_VALUE - 8, Math.ceil(gap / limit));
      long previous = from;
      for (int k = 1; k < parts; k++) {
        long cut = Math.min(to, align.applyAsLong(from + Math.round((double) gap * k / parts)));
        if (cut > previous && cut < to) {
          if (n == out.length) {
            out = java.util.Arrays.copyOf(out, Math.max(16, 2 * n));
          }
          out[n++] = cut;
          previous = cut;
        }
      }
      if (i < own.length) {
        if (n == out.length) {
          out = java.util.Arrays.copyOf(out, Math.max(16, 2 * n));
        }
        out[n++] = to;
      }
      from = to;
    }
    return new ChunkPlan(c.start(), c.end(), java.util.Arrays.copyOf(out, n));
  }

  /**
   * A chunk over {@code [start, end)} whose checkpoints fall at the given sizes (in units, summing
   * to about end - start), each moved to a legal cut; checkpoints that collapse are dropped.
   */
  static ChunkPlan chunk(long start, long end, double[] sizes, LongUnaryOperator align) {
    long[] cps = new long[Math.max(0, sizes.length - 1)];
    int n = 0;
    double at = start;
    long previous = start;
    for (int i = 0; i < sizes.length - 1; i++) {
      at += sizes[i];
      long cut = Math.round(at);
      if (cut <= previous || cut >= end) {
        continue;
      }
      cut = Math.min(end, align.applyAsLong(cut));
      if (cut > previous && cut < end) {
        cps[n++] = cut;
        previous = cut;
      }
    }
    return new ChunkPlan(start, end, n == cps.length ? cps : java.util.Arrays.copyOf(cps, n));
  }
}
