package dev.gleaner.common.recovery;

import java.util.stream.IntStream;

/** The intuitive scheme: computer i's work goes to i+1, then i+2, ... (Paper III, Section 4). */
public final class IntuitiveScheme implements SchemeGenerator {
  @Override
  public String name() {
    return "intuitive";
  }

  @Override
  public String summary() {
    return "R_i = i+1, i+2, ..., i+n-1 (mod n)";
  }

  @Override
  public RecoveryScheme build(int n) {
    return RecoveryScheme.regular(name(), n, IntStream.range(1, n).toArray());
  }

  @Override
  public int guaranteed(int n) {
    return 1;
  }
}
