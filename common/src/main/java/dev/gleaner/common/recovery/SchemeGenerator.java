package dev.gleaner.common.recovery;

/** Builds one family of regular recovery schemes for any number of computers. */
public interface SchemeGenerator {
  /** The name used on the command line ({@code intuitive}, {@code golomb}, ...). */
  String name();

  /** One line on how the scheme is built. */
  String summary();

  /** The scheme for n computers (n >= 2). */
  RecoveryScheme build(int n);

  /**
   * The number of crashes for which the papers' theorem for this construction guarantees L = MV
   * (for example the number of marks of the Golomb ruler used). The exact {@code optimalUpTo} of
   * {@link WorstCaseLoad} is never smaller and is often larger.
   */
  int guaranteed(int n);

  /** The head of computer 0's list given by consecutive differences, kept while below n. */
  static int[] partialSumsBelow(int n, int[] differences) {
    int[] head = new int[differences.length];
    int len = 0;
    int sum = 0;
    for (int d : differences) {
      sum += d;
      if (sum >= n) {
        break;
      }
      head[len++] = sum;
    }
    return java.util.Arrays.copyOf(head, len);
  }
}
