package dev.gleaner.common.plan.distrib;

import dev.gleaner.common.util.Permutations;
import java.util.Arrays;
import java.util.List;

/**
 * Optimal single-round allocations for workers that differ in speed, bandwidth and risk all at
 * once (paper 001, Section 5.4), where no closed form is known.
 *
 * <p>For a fixed service order the expectation {@code E(w) = sum_k w_k (1 - kappa_k T_k)} is a
 * quadratic in the amounts, not always concave (the paper lists the cases for two workers). Its
 * maximum over the feasible set is reached in the relative interior of some face: a set S of
 * workers that get work, with the budget {@code sum w = W} binding or not. On a face the stationary
 * conditions {@code dE/dw_m = lambda} (m in S) form a recurrence: with {@code P} the communication
 * time before worker m and {@code Q} the risk-weighted work from m on,
 * {@code w_m = (1 - lambda - kappa_m P - c_m Q) / (kappa_m (c_m + 2 d_m))}, {@code c = 1/bw},
 * {@code d = 1/s}. Carried as affine functions of the two unknowns {@code theta = Q_first} and
 * {@code lambda}, one pass and a 2x2 system solve a face in O(p). Up to {@value #EXACT_UP_TO}
 * workers every face is solved and the best feasible point is the exact maximum; above, an active
 * set method walks from the full face to a KKT point. If a face's quadratic is degenerate the
 * maximum on it is also reached on a smaller face, so skipping singular faces loses nothing.
 *
 * <p>The service order is chosen exhaustively up to {@value #ORDERS_UP_TO} workers; above, by the
 * paper's Conjecture 1 (non-increasing {@code bw_i kappa_i}), refined by adjacent swaps up to
 * {@value #LOCAL_SEARCH_UP_TO} workers.
 *
 * <p>Two problems: {@link Deploy#ALL} is the paper's DISTRIB(p), which hands out all W units;
 * {@link Deploy#BEST} may keep some back, which is what maximises the true, clipped expectation
 * (a worker certain to be interrupted is better given nothing): at that optimum every worker with
 * work has a nonzero chance to finish, so the quadratic and the true expectation agree there.
 */
public final class DistribSolver {
  /** Up to this many workers every face is solved: the allocation is exact for the order. */
  public static final int EXACT_UP_TO = 12;
  /** Up to this many workers every service order is tried. */
  public static final int ORDERS_UP_TO = 7;
  /** Up to this many workers the conjectured order is refined by adjacent swaps. */
  public static final int LOCAL_SEARCH_UP_TO = 64;
  /**
   * Above this many workers the allocation is searched in bulk ({@link Search#BULK}): the walk
   * from two starts costs one O(p) solve per worker it adds or drops and one O(p^2) scan per
   * exchange, seconds for a few thousand workers.
   */
  public static final int BULK_ABOVE = 512;

  private static final double TOL = 1e-12;

  private DistribSolver() {}

  /** Whether all W units are handed out (the paper's DISTRIB) or only as many as pay. */
  public enum Deploy {
    ALL,
    BEST
  }

  /**
   * A solution.
   *
   * @param order worker indices in service order (workers with no work included, at the end of
   *     their place in the order)
   * @param amounts units per worker, indexed like {@code order}
   * @param quadratic the papers' expectation of these amounts
   * @param exact whether it is proven optimal (order and allocation)
   * @param valid whether every worker with work can finish it (kappa T < 1), so that the quadratic
   *     is the true expectation
   */
  public record Result(int[] order, double[] amounts, double quadratic, boolean exact, boolean valid) {
    public double deployed() {
      double sum = 0;
      for (double a : amounts) {
        sum += a;
      }
      return sum;
    }
  }

  /** The best order and allocation for the workers (arrays indexed by worker). */
  public static Result solve(double[] speed, double[] bandwidth, double[] risk, double work, Deploy mode) {
    int p = check(speed, bandwidth, risk, work);
    if (p <= ORDERS_UP_TO) {
      int[] perm = new int[p];
      for (int i = 0; i < p; i++) {
        perm[i] = i;
      }
      Result best = null;
      do {
        Result r = forOrder(speed, bandwidth, risk, perm, work, mode);
        if (best == null || r.quadratic() > best.quadratic() + TOL * work) {
          best = r;
        }
      } while (Permutations.next(perm));
      return best;
    }
    Integer[] byProduct = new Integer[p];
    for (int i = 0; i < p; i++) {
      byProduct[i] = i;
    }
    Arrays.sort(byProduct, (a, b) -> {
      int c = Double.compare(bandwidth[b] * risk[b], bandwidth[a] * risk[a]);
      return c != 0 ? c : Double.compare(bandwidth[b], bandwidth[a]);
    });
    int[] order = new int[p];
    for (int i = 0; i < p; i++) {
      order[i] = byProduct[i];
    }
    Result best = forOrder(speed, bandwidth, risk, order, work, mode);
    if (p <= LOCAL_SEARCH_UP_TO) {
      boolean improved = true;
      for (int pass = 0; improved && pass < p; pass++) {
        improved = false;
        for (int i = 0; i + 1 < p; i++) {
          int[] swapped = best.order().clone();
          int t = swapped[i];
          swapped[i] = swapped[i + 1];
          swapped[i + 1] = t;
          Result r = forOrder(speed, bandwidth, risk, swapped, work, mode);
          if (r.quadratic() > best.quadratic() * (1 + 1e-12) + TOL * work) {
            best = r;
            improved = true;
          }
        }
      }
    }
    return new Result(best.order(), best.amounts(), best.quadratic(), p > BULK_ABOVE && best.exact(), best.valid());
  }

  /** The best allocation for a given service order (worker indices). */
  public static Result forOrder(double[] speed, double[] bandwidth, double[] risk, int[] order, double work,
      Deploy mode) {
    return forOrder(speed, bandwidth, risk, order, work, mode, order.length <= EXACT_UP_TO);
  }

  /** With {@code everyFace} false, the active-set walk whatever the size (for tests). */
  static Result forOrder(double[] speed, double[] bandwidth, double[] risk, int[] order, double work,
      Deploy mode, boolean everyFace) {
    return forOrder(speed, bandwidth, risk, order, work, mode, everyFace ? Search.EVERY_FACE
        : order.length > BULK_ABOVE ? Search.BULK : Search.WALK);
  }

  /** How {@link #forOrder} looks for the maximum. */
  enum Search {
    /** Every face: exact, for a dozen workers. */
    EVERY_FACE,
    /** The active-set walk from two starts, exchanges, and the vertices. */
    WALK,
    /**
     * For many workers: without communication costs the closed form; otherwise the walk from one
     * start found in bulk, with exchanges among the workers of highest and lowest gradient.
     */
    BULK
  }

  static Result forOrder(double[] speed, double[] bandwidth, double[] risk, int[] order, double work,
      Deploy mode, Search search) {
    boolean everyFace = search == Search.EVERY_FACE;
    int p = check(speed, bandwidth, risk, work);
    if (order.length != p) {
      throw new IllegalArgumentException("the order names " + order.length + " workers, expected " + p);
    }
    double[] c = new double[p];
    double[] d = new double[p];
    double[] k = new double[p];
    double[] s = new double[p];
    double[] bw = new double[p];
    for (int i = 0; i < p; i++) {
      int w = order[i];
      s[i] = speed[w];
      bw[i] = bandwidth[w];
      c[i] = 1 / bandwidth[w];
      d[i] = 1 / speed[w];
      k[i] = risk[w];
      if (!(k[i] > 0)) {
        throw new IllegalArgumentException("the solver needs a positive risk for every worker; worker " + w
            + " has " + k[i] + " (a risk-free worker should simply get all the work)");
      }
    }
    Face face = new Face(c, d, k, work, mode);
    double[] best = null;
    double bestValue = Double.NEGATIVE_INFINITY;
    if (mode == Deploy.BEST) {
      best = new double[p];
      bestValue = 0;
    }
    boolean exact = everyFace;
    if (exact) {
      boolean[] in = new boolean[p];
      for (int mask = 1; mask < (1 << p); mask++) {
        for (int i = 0; i < p; i++) {
          in[i] = (mask & (1 << i)) != 0;
        }
        for (double[] w : face.candidates(in)) {
          double v = SingleRound.quadratic(s, bw, k, w);
          if (v > bestValue) {
            bestValue = v;
            best = w;
          }
        }
      }
    } else if (search == Search.BULK && free(c)) {
      // no communication: E = sum w (1 - kappa d w) is concave and separable, its maximum in closed form
      best = face.separable();
      bestValue = SingleRound.quadratic(s, bw, k, best);
      exact = true;
    } else {
      // local search from several starts: where E is not concave it has several local maxima
      double[] equal = new double[p];
      Arrays.fill(equal, work / p);
      boolean bulk = search == Search.BULK;
      double[] found = bulk ? face.bulkStart() : null;
      List<double[]> starts = bulk && found != null ? List.of(found) : Arrays.asList(null, equal);
      for (double[] start : starts) {
        double[] w = face.activeSet(start);
        for (int round = 0; w != null && round < 30 && face.exchange(w, bulk); round++) {
          w = face.activeSet(w);
        }
        if (w != null) {
          double v = SingleRound.quadratic(s, bw, k, w);
          if (v > bestValue) {
            bestValue = v;
            best = w;
          }
        }
      }
      // the vertices: one worker alone, which the walk from the full face may miss when E is not concave
      int vertex = -1;
      double amount = 0;
      for (int i = 0; i < p; i++) {
        double rate = k[i] * (c[i] + d[i]);
        double x = mode == Deploy.ALL ? work : Math.min(work, 1 / (2 * rate));
        // SingleRound.quadratic of x units on worker i alone, in the same operations
        double v = x * (1 - k[i] * (x / bw[i] + x / s[i]));
        if (v > bestValue) {
          bestValue = v;
          vertex = i;
          amount = x;
        }
      }
      if (vertex >= 0) {
        best = new double[p];
        best[vertex] = amount;
      }
    }
    boolean proven = search == Search.BULK ? exact : exact && p <= ORDERS_UP_TO;
    return new Result(order.clone(), best, bestValue, proven, SingleRound.valid(s, bw, k, best));
  }

  /** Whether no worker costs communication time (every bandwidth infinite). */
  private static boolean free(double[] c) {
    for (double x : c) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }

  private static int check(double[] speed, double[] bandwidth, double[] risk, double work) {
    int p = speed.length;
    if (p == 0) {
      throw new IllegalArgumentException("no workers to plan for");
    }
    if (bandwidth.length != p || risk.length != p) {
      throw new IllegalArgumentException("speed, bandwidth and risk must describe the same workers");
    }
    if (!(work > 0) || Double.isInfinite(work)) {
      throw new IllegalArgumentException("work must be a positive number of units, got " + work);
    }
    return p;
  }

  /** The faces of one ordered instance. Arrays in service order. */
  private static final class Face {
    final double[] c;
    final double[] d;
    final double[] k;
    final double work;
    final Deploy mode;
    final int p;
    // affine forms a + b*theta + g*lambda, per worker
    final double[] wa;
    final double[] wb;
    final double[] wg;
    double lambda;

    Face(double[] c, double[] d, double[] k, double work, Deploy mode) {
      this.c = c;
      this.d = d;
      this.k = k;
      this.work = work;
      this.mode = mode;
      this.p = c.length;
      this.wa = new double[p];
      this.wb = new double[p];
      this.wg = new double[p];
    }

    /** The feasible stationary points of face {@code in}: budget binding and, for BEST, free. */
    java.util.List<double[]> candidates(boolean[] in) {
      java.util.List<double[]> out = new java.util.ArrayList<>(2);
      double[] bound = solve(in, true);
      if (bound != null && feasible(bound, in) && (mode == Deploy.ALL || lambda >= -TOL)) {
        out.add(scaleTo(bound, work));
      }
      if (mode == Deploy.BEST) {
        double[] free = solve(in, false);
        if (free != null && feasible(free, in) && sum(free) <= work * (1 + 1e-9)) {
          out.add(sum(free) > work ? scaleTo(free, work) : free);
        }
      }
      return out;
    }

    /**
     * The stationary point of the face with the budget binding (or lambda = 0), or null when the
     * face's system is singular. Sets {@link #lambda}.
     */
    double[] solve(boolean[] in, boolean binding) {
      double pa = 0, pb = 0, pg = 0; // communication time before m
      double qa = 0, qb = 1, qg = 0; // sum_{j >= m} kappa_j w_j, starting at theta
      double sa = 0, sb = 0, sg = 0; // units so far
      for (int m = 0; m < p; m++) {
        if (!in[m]) {
          wa[m] = wb[m] = wg[m] = 0;
          continue;
        }
        double den = k[m] * (c[m] + 2 * d[m]);
        double a = (1 - k[m] * pa - c[m] * qa) / den;
        double b = (-k[m] * pb - c[m] * qb) / den;
        double g = (-1 - k[m] * pg - c[m] * qg) / den;
        wa[m] = a;
        wb[m] = b;
        wg[m] = g;
        pa += c[m] * a;
        pb += c[m] * b;
        pg += c[m] * g;
        qa -= k[m] * a;
        qb -= k[m] * b;
        qg -= k[m] * g;
        sa += a;
        sb += b;
        sg += g;
      }
      double theta;
      if (binding) {
        // qa + qb theta + qg lambda = 0 ; sa + sb theta + sg lambda = work
        double det = qb * sg - qg * sb;
        double scale = Math.abs(qb * sg) + Math.abs(qg * sb);
        if (!(Math.abs(det) > 1e-13 * scale) || scale == 0) {
          return null;
        }
        theta = (-qa * sg - qg * (work - sa)) / det;
        lambda = (qb * (work - sa) + qa * sb) / det;
      } else {
        if (!(Math.abs(qb) > 1e-300)) {
          return null;
        }
        lambda = 0;
        theta = -qa / qb;
      }
      double[] w = new double[p];
      for (int m = 0; m < p; m++) {
        if (in[m]) {
          w[m] = wa[m] + wb[m] * theta + wg[m] * lambda;
        }
      }
      return w;
    }

    private boolean feasible(double[] w, boolean[] in) {
      for (int m = 0; m < p; m++) {
        if (in[m]) {
          if (!(w[m] >= -TOL * work)) {
            return false;
          }
          w[m] = Math.max(0, w[m]);
        }
      }
      return true;
    }

    /**
     * A primal active-set method: from a feasible point, move toward the stationary point of the
     * current face, stop at the first bound that blocks (which joins the working set), and at a face
     * optimum release the bound whose multiplier says the expectation still grows past it. Finite
     * and exact when E is concave; otherwise a KKT point, compared by the caller with the vertices.
     * Null if a face's system is singular before any point is reached.
     */
    double[] activeSet(double[] start) {
      boolean[] in = new boolean[p];
      double[] w = new double[p];
      boolean binding = mode == Deploy.ALL;
      if (start != null) {
        w = start.clone();
        for (int m = 0; m < p; m++) {
          in[m] = w[m] > 0;
        }
        binding |= sum(w) >= work * (1 - 1e-12);
      } else if (binding) {
        Arrays.fill(in, true);
        Arrays.fill(w, work / p);
      }
      double multiplier = 0;
      for (int iter = 0; iter < 10 * p + 50; iter++) {
        boolean any = false;
        for (boolean b : in) {
          any |= b;
        }
        boolean atTarget = true;
        if (any) {
          double[] target = solve(in, binding);
          if (target == null) {
            return w;
          }
          multiplier = binding ? lambda : 0;
          double step = 1;
          int blocking = -1;
          for (int m = 0; m < p; m++) {
            if (in[m] && target[m] < 0 && target[m] < w[m]) {
              double a = w[m] / (w[m] - target[m]);
              if (a < step) {
                step = a;
                blocking = m;
              }
            }
          }
          boolean budgetBlocks = false;
          if (!binding) {
            double now = sum(w);
            double then = sum(target);
            if (then > work && (work - now) / (then - now) < step) {
              step = (work - now) / (then - now);
              budgetBlocks = true;
              blocking = -1;
            }
          }
          for (int m = 0; m < p; m++) {
            if (in[m]) {
              w[m] += step * (target[m] - w[m]);
            }
          }
          if (blocking >= 0) {
            in[blocking] = false;
            w[blocking] = 0;
            atTarget = false;
          } else if (budgetBlocks) {
            binding = true;
            atTarget = false;
          }
        }
        if (!atTarget) {
          continue;
        }
        // at the face's optimum: is there a bound to release?
        if (binding && mode == Deploy.BEST && multiplier < -TOL) {
          binding = false;
          continue;
        }
        double sent = 0;
        double later = 0;
        for (int m = 0; m < p; m++) {
          later += k[m] * w[m];
        }
        int release = -1;
        double most = TOL;
        for (int m = 0; m < p; m++) {
          if (!in[m]) {
            double grad = 1 - k[m] * sent - c[m] * later;
            if (grad - multiplier > most) {
              most = grad - multiplier;
              release = m;
            }
          }
          sent += c[m] * w[m];
          later -= k[m] * w[m];
        }
        if (release < 0) {
          break;
        }
        in[release] = true;
      }
      for (int m = 0; m < p; m++) {
        w[m] = Math.max(0, w[m]);
      }
      if (sum(w) > work || mode == Deploy.ALL) {
        scaleTo(w, work);
      }
      return w;
    }

    /**
     * The maximum without communication costs (every c = 0): E = sum w (1 - kappa d w) is separable
     * and concave, so {@code w_m = (1 - lambda) / (2 kappa_m d_m)} for every worker, with lambda = 0
     * unless the budget binds (always, for ALL).
     */
    double[] separable() {
      double[] w = new double[p];
      double total = 0;
      for (int m = 0; m < p; m++) {
        w[m] = 1 / (2 * k[m] * d[m]);
        total += w[m];
      }
      return mode == Deploy.ALL || total > work ? scaleTo(w, work) : w;
    }

    /**
     * A start for the walk on a large instance, found in bulk: solve the face, drop every worker
     * the solution gives less than nothing, take in every worker whose gradient says it should
     * have work, and again, a few rounds (a primal-dual active set). The walk one worker at a time
     * from nothing needs one O(p) solve per worker; this needs a handful. Null if a face is
     * singular before a feasible point is found.
     */
    double[] bulkStart() {
      boolean[] in = new boolean[p];
      Arrays.fill(in, true);
      boolean binding = mode == Deploy.ALL;
      double[] feasible = null;
      double[] g = new double[p];
      for (int round = 0; round < 60; round++) {
        double[] t = solve(in, binding);
        if (t == null) {
          return feasible;
        }
        if (!binding && sum(t) > work) {
          binding = true;
          continue;
        }
        boolean changed = false;
        for (int m = 0; m < p; m++) {
          if (in[m] && t[m] < 0) {
            in[m] = false;
            changed = true;
          }
        }
        if (changed) {
          continue;
        }
        feasible = t;
        double multiplier = binding ? lambda : 0;
        if (binding && mode == Deploy.BEST && multiplier < -TOL) {
          binding = false;
          continue;
        }
        gradient(t, g);
        for (int m = 0; m < p; m++) {
          if (!in[m] && g[m] - multiplier > TOL) {
            in[m] = true;
            changed = true;
          }
        }
        if (!changed) {
          break;
        }
      }
      if (feasible != null && mode == Deploy.ALL) {
        scaleTo(feasible, work);
      }
      return feasible;
    }

    /** Workers whose pair moves a large exchange weighs: those of highest and of lowest gradient. */
    private static final int EXCHANGE_CANDIDATES = 24;
    /** Moves a large exchange makes at most (each costs a gradient, O(p)). */
    private static final int EXCHANGE_MOVES = 256;

    /**
     * Moves work between two workers (or, for BEST, between a worker and the undeployed rest), each
     * move the exact best on its segment, while one gains. Where E is not concave this leaves the
     * saddle points an active-set walk can stop at. Returns whether anything was gained. With
     * {@code large}, a move is chosen among the pairs of the workers of highest and lowest
     * gradient only (the pairs with most slope), and at most {@value #EXCHANGE_MOVES} are made.
     */
    boolean exchange(double[] w, boolean large) {
      double[] g = new double[p];
      gradient(w, g);
      boolean gainedAny = false;
      int[] candidates = new int[0];
      for (int moves = 0; moves < (large ? EXCHANGE_MOVES : 10 * p); moves++) {
        double bestGain = 1e-15 * work;
        int bi = -1;
        int bj = -1;
        double bt = 0;
        double rest = work - sum(w);
        if (large) {
          candidates = extremes(g);
        }
        for (int i = 0; i < p; i++) {
          double mii = k[i] * (c[i] + d[i]);
          if (mode == Deploy.BEST) {
            double t = clampedStep(g[i], mii, -w[i], rest);
            double gain = t * g[i] - t * t * mii;
            if (gain > bestGain) {
              bestGain = gain;
              bi = i;
              bj = -1;
              bt = t;
            }
          }
          if (large) {
            continue;
          }
          for (int j = i + 1; j < p; j++) {
            double mjj = k[j] * (c[j] + d[j]);
            double q = mii + mjj - k[j] * c[i];
            double slope = g[i] - g[j];
            double t = clampedStep(slope, q, -w[i], w[j]);
            double gain = t * slope - t * t * q;
            if (gain > bestGain) {
              bestGain = gain;
              bi = i;
              bj = j;
              bt = t;
            }
          }
        }
        for (int x = 0; large && x < candidates.length; x++) {
          for (int y = x + 1; y < candidates.length; y++) {
            int i = Math.min(candidates[x], candidates[y]);
            int j = Math.max(candidates[x], candidates[y]);
            double q = k[i] * (c[i] + d[i]) + k[j] * (c[j] + d[j]) - k[j] * c[i];
            double slope = g[i] - g[j];
            double t = clampedStep(slope, q, -w[i], w[j]);
            double gain = t * slope - t * t * q;
            if (gain > bestGain) {
              bestGain = gain;
              bi = i;
              bj = j;
              bt = t;
            }
          }
        }
        if (bi < 0) {
          break;
        }
        w[bi] = Math.max(0, w[bi] + bt);
        if (bj >= 0) {
          w[bj] = Math.max(0, w[bj] - bt);
        }
        gradient(w, g);
        gainedAny = true;
      }
      return gainedAny;
    }

    /**
     * The indices of the {@value #EXCHANGE_CANDIDATES} highest gradients and of as many of the
     * lowest, without repeats, in no particular order.
     */
    private int[] extremes(double[] g) {
      int half = Math.min(EXCHANGE_CANDIDATES, p / 2);
      int[] top = new int[half];
      int[] bottom = new int[half];
      int n = 0;
      for (int m = 0; m < p; m++) {
        if (n < half) {
          top[n] = m;
          bottom[n] = m;
          n++;
          continue;
        }
        // replace the weakest kept one (half is small: a scan beats a heap)
        int lo = 0;
        int hi = 0;
        for (int x = 1; x < half; x++) {
          lo = g[top[x]] < g[top[lo]] ? x : lo;
          hi = g[bottom[x]] > g[bottom[hi]] ? x : hi;
        }
        if (g[m] > g[top[lo]]) {
          top[lo] = m;
        }
        if (g[m] < g[bottom[hi]]) {
          bottom[hi] = m;
        }
      }
      return java.util.stream.IntStream.concat(Arrays.stream(top), Arrays.stream(bottom)).distinct().toArray();
    }

    /** The t in [lo, hi] that maximises t slope - t^2 curve. */
    private static double clampedStep(double slope, double curve, double lo, double hi) {
      if (curve > 0) {
        return Math.max(lo, Math.min(hi, slope / (2 * curve)));
      }
      double atLo = lo * slope - lo * lo * curve;
      double atHi = hi * slope - hi * hi * curve;
      return atHi >= atLo ? hi : lo;
    }

    /** dE/dw_m for every m. */
    private void gradient(double[] w, double[] g) {
      double sent = 0;
      double later = 0;
      for (int m = 0; m < p; m++) {
        later += k[m] * w[m];
      }
      for (int m = 0; m < p; m++) {
        later -= k[m] * w[m];
        g[m] = 1 - k[m] * sent - 2 * k[m] * (c[m] + d[m]) * w[m] - c[m] * later;
        sent += c[m] * w[m];
      }
    }

    /** Removes the rounding error of a solve: the amounts sum to exactly {@code total}. */
    private static double[] scaleTo(double[] w, double total) {
      double f = total / sum(w);
      for (int m = 0; m < w.length; m++) {
        w[m] *= f;
      }
      return w;
    }

    private static double sum(double[] w) {
      double s = 0;
      for (double x : w) {
        s += x;
      }
      return s;
    }
  }
}
