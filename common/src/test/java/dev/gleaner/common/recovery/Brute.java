package dev.gleaner.common.recovery;

import java.util.Arrays;
import java.util.BitSet;

/** The oracle: every crash set, every process walked along its list, the most loaded computer. */
final class Brute {
  private Brute() {}

  /** Entry k-1 = the most processes on one computer over all sets of k crashed computers. */
  static int[] worstCase(RecoveryScheme s) {
    int n = s.n();
    int p = s.processes();
    int[] worst = new int[n - 1];
    int[] load = new int[n];
    BitSet down = new BitSet(n);
    for (int mask = 1; mask < (1 << n) - 1; mask++) {
      down.clear();
      for (int i = 0; i < n; i++) {
        if ((mask >>> i & 1) != 0) {
          down.set(i);
        }
      }
      Arrays.fill(load, 0);
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < p; j++) {
          load[s.placement(i, j, down)]++;
        }
      }
      int k = Integer.bitCount(mask);
      for (int c = 0; c < n; c++) {
        worst[k - 1] = Math.max(worst[k - 1], load[c]);
      }
    }
    return worst;
  }
}
