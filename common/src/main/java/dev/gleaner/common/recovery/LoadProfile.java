package dev.gleaner.common.recovery;

import java.util.Arrays;

/**
 * A scheme's exact worst-case load against the bound MV.
 *
 * @param scheme the scheme evaluated
 * @param worst entry k-1 = the most processes on one computer after the worst k crashes, L(n,k,R)
 *     times p; computed for k = 1..{@code worst.length}
 * @param bound entry k-1 = MV(k) in processes, same length as {@code worst}
 * @param optimalUpTo the largest q with L(n,k,R) = MV(k) for every k <= q
 */
public record LoadProfile(RecoveryScheme scheme, int[] worst, int[] bound, int optimalUpTo) {
  public LoadProfile {
    worst = worst.clone();
    bound = bound.clone();
  }

  /** Whether L was computed for every k up to n - 1. */
  public boolean complete() {
    return worst.length == scheme.n() - 1;
  }

  /**
   * Whether optimalUpTo is only a lower bound: L met MV at every k computed but the evaluation
   * stopped before n - 1.
   */
  public boolean optimalBeyondHorizon() {
    return optimalUpTo == worst.length && !complete();
  }

  @Override
  public int[] worst() {
    return worst.clone();
  }

  @Override
  public int[] bound() {
    return bound.clone();
  }

  /**
   * Whether this worst-case vector is consecutively smaller than the other's (Paper III): equal up to
   * some k and smaller there. Compares the entries both profiles computed.
   */
  public boolean consecutivelySmallerThan(LoadProfile other) {
    int len = Math.min(worst.length, other.worst.length);
    for (int i = 0; i < len; i++) {
      if (worst[i] != other.worst[i]) {
        return worst[i] < other.worst[i];
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return scheme.name() + " n=" + scheme.n() + " L=" + Arrays.toString(worst) + " MV=" + Arrays.toString(bound)
        + " optimalUpTo=" + optimalUpTo;
  }
}
