package dev.gleaner.common.recovery;

import java.util.concurrent.ConcurrentHashMap;

/** The recovery scheme a job of n workers uses, computed once per n. */
public final class RecoveryPlans {
  /** Above this many workers the trapezium scheme is used as is, without comparing every generator. */
  static final int COMPARE_UP_TO = 64;

  private static final ConcurrentHashMap<Integer, RecoveryScheme> BY_N = new ConcurrentHashMap<>();

  private RecoveryPlans() {}

  public static RecoveryScheme forWorkers(int n) {
    return BY_N.computeIfAbsent(n, k -> k <= COMPARE_UP_TO ? Schemes.best(k) : Schemes.build("trapezium", k));
  }
}
