package dev.gleaner.common.recovery;

/**
 * The Golomb scheme (Paper III, Section 5): the longest known optimal Golomb ruler whose length is
 * below n, as computer 0's first entries (its marks 1, 4, 9, 11, ... as partial sums of the
 * differences), then the remaining computers. Optimal while at most as many computers as the
 * ruler has differences are down. Beyond the table (22 differences, n > 373) the 22-difference ruler
 * is used.
 */
public final class GolombScheme implements SchemeGenerator {
  @Override
  public String name() {
    return "golomb";
  }

  @Override
  public String summary() {
    return "the longest known optimal Golomb ruler below n, then the remaining computers";
  }

  @Override
  public RecoveryScheme build(int n) {
    return RecoveryScheme.regular(name(), n, head(n));
  }

  @Override
  public int guaranteed(int n) {
    return head(n).length;
  }

  static int[] head(int n) {
    int count = 0;
    while (count < GolombRulers.longest() && GolombRulers.length(count + 1) < n) {
      count++;
    }
    return count == 0 ? new int[0] : SchemeGenerator.partialSumsBelow(n, GolombRulers.differences(count));
  }
}
