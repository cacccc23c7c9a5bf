package dev.gleaner.common.recovery;

import java.util.Arrays;

/**
 * The exact worst-case load L(n,k,R) of a recovery scheme, through chains and their unions (Paper VI,
 * Section 5): L(n,k,R) = p + max{ |I| : |union of chains C_i, i in I| <= k }, maximised over the
 * receiving computer (one computer suffices for a regular scheme, by symmetry).
 */
public final class WorstCaseLoad {
  /** Up to this n the default evaluation covers every k = 1..n-1. */
  public static final int COMPLETE_UP_TO_N = 32;

  /**
   * Beyond {@link #COMPLETE_UP_TO_N} the default evaluation stops after this many crashes: the search
   * for the smallest union of t chains grows about fourfold per t (n = 1000: 0.3 s for the 60 crashes
   * of t = 11, half a minute for the 90 of t = 14).
   */
  public static final int DEFAULT_HORIZON = 60;

  private WorstCaseLoad() {}

  /**
   * The profile for every k when n <= {@value #COMPLETE_UP_TO_N}; for larger n up to the first k
   * where L exceeds MV (so {@code optimalUpTo} is exact) or {@value #DEFAULT_HORIZON} crashes,
   * whichever comes first.
   */
  public static LoadProfile of(RecoveryScheme scheme) {
    return scheme.n() <= COMPLETE_UP_TO_N
        ? of(scheme, scheme.n() - 1)
        : untilAboveBound(scheme, DEFAULT_HORIZON);
  }

  /** The profile for k = 1..maxCrashes (at most n - 1). */
  public static LoadProfile of(RecoveryScheme scheme, int maxCrashes) {
    return evaluate(scheme, clamp(scheme, maxCrashes), false);
  }

  /**
   * The profile up to the first k at which L(n,k,R) > MV(k), or maxCrashes if it comes first; the
   * profile's optimalUpTo is then exact without computing the rest.
   */
  public static LoadProfile untilAboveBound(RecoveryScheme scheme, int maxCrashes) {
    return evaluate(scheme, clamp(scheme, maxCrashes), true);
  }

  private static int clamp(RecoveryScheme scheme, int maxCrashes) {
    if (maxCrashes < 1) {
      throw new IllegalArgumentException("the number of crashes to evaluate must be at least 1, got " + maxCrashes);
    }
    return Math.min(maxCrashes, scheme.n() - 1);
  }

  private static LoadProfile evaluate(RecoveryScheme scheme, int maxK, boolean stopAboveBound) {
    int n = scheme.n();
    int p = scheme.processes();
    int receivers = scheme.isRegular() ? 1 : n;
    Receiver[] rs = new Receiver[receivers];
    for (int y = 0; y < receivers; y++) {
      rs[y] = new Receiver(ChainFamily.endingAt(scheme, y));
    }
    int[] worst = new int[maxK];
    int[] bound = new int[maxK];
    int optimalUpTo = 0;
    boolean tight = true;
    int len = maxK;
    for (int k = 1; k <= maxK; k++) {
      int most = 0;
      for (Receiver r : rs) {
        most = Math.max(most, r.reachable(k));
      }
      worst[k - 1] = p + most;
      bound[k - 1] = Bounds.mv(n, k, p);
      if (worst[k - 1] < bound[k - 1]) {
        throw new IllegalStateException("L(" + n + "," + k + ") = " + worst[k - 1] + " is below the bound "
            + bound[k - 1] + " for " + scheme);
      }
      if (tight && worst[k - 1] == bound[k - 1]) {
        optimalUpTo = k;
      } else {
        tight = false;
        if (stopAboveBound) {
          len = k;
          break;
        }
      }
    }
    return new LoadProfile(scheme, Arrays.copyOf(worst, len), Arrays.copyOf(bound, len), optimalUpTo);
  }

  /** One receiving computer: the exact u(t) values found so far, computed lazily as k grows. */
  private static final class Receiver {
    final ChainFamily chains;
    int reached; // u(1..reached) <= current k
    int next = -1; // exact u(reached + 1), or -1 when not computed yet

    Receiver(ChainFamily chains) {
      this.chains = chains;
    }

    int reachable(int k) {
      while (reached < chains.count()) {
        if (next < 0) {
          next = chains.minUnion(reached + 1, Integer.MAX_VALUE - 1);
        }
        if (next > k) {
          break;
        }
        reached++;
        next = -1;
      }
      return reached;
    }
  }
}
