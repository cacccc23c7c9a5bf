package dev.gleaner.common.recovery;

/**
 * The Log scheme: steps 1, 2, 4, 8, ... (partial sums 1, 3, 7, 15, ... below n), then the remaining
 * computers; optimal while at most floor(log2 n) computers are down (Lundberg and Svahnberg, as
 * recalled in Papers IV and VI).
 */
public final class LogScheme implements SchemeGenerator {
  @Override
  public String name() {
    return "log";
  }

  @Override
  public String summary() {
    return "steps 1, 2, 4, 8, ... then the remaining computers";
  }

  @Override
  public RecoveryScheme build(int n) {
    return RecoveryScheme.regular(name(), n, head(n));
  }

  static int[] head(int n) {
    int count = 0;
    while (count < 31 && (1L << (count + 1)) - 1 < n) {
      count++;
    }
    int[] steps = new int[count];
    for (int i = 0; i < count; i++) {
      steps[i] = 1 << i;
    }
    return SchemeGenerator.partialSumsBelow(n, steps);
  }

  @Override
  public int guaranteed(int n) {
    return head(n).length;
  }
}
